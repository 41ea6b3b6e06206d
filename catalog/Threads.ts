import { Schema } from "effect"
import { CliProfile } from "./domain/CliProfile.js"
import { CliType } from "./domain/CliType.js"
import { ProjectId } from "./domain/Ids.js"
import {
  AggregateStatus,
  DEFAULT_MESSAGES_WINDOW,
  MAX_GROUP_SIZE,
  MAX_MESSAGE_TEXT,
  MAX_MESSAGES_WINDOW,
  MAX_TITLE_LENGTH,
  ProcessingState,
  ThreadStatus
} from "./domain/Thread.js"
import * as Tool from "./Tool.js"

const Timestamp = Schema.String.annotations({ description: "ISO 8601 timestamp" })
const AnyThreadId = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }))
const Content = Schema.String.pipe(
  Schema.filter((text) => text.trim().length > 0, { message: () => "must not be empty or blank" })
)

export const ThreadTarget = Schema.Struct({
  profileId: Schema.String,
  pathId: Schema.String,
  path: Schema.NullOr(Schema.String),
  cliType: CliType,
  profileName: Schema.String
})

/** What a run cost, as its runtime reported it: present on a task's runs (`list_threads` with taskId). */
export const ThreadUsage = Schema.Struct({
  costUsd: Schema.NullOr(Schema.Number).annotations({
    description: "The sum of the costs the runtime reported for the thread's turns, in US dollars; null when it reported none"
  }),
  contextTokens: Schema.NullOr(Schema.Number).annotations({
    description: "Tokens in the runtime's context window at its latest report; null when it reported none"
  })
}).annotations({ identifier: "ThreadUsage" })

export const OrdinaryThread = Schema.Struct({
  threadId: Schema.String,
  kind: Schema.Literal("thread"),
  title: Schema.String,
  status: ThreadStatus.annotations({
    description: "pending (messages waiting), running (a CLI holds it), idle, failed (the last run failed; retryable)"
  }),
  isDone: Schema.Boolean,
  isPinned: Schema.Boolean.annotations({ description: "Pinned by its owner (POST /api/threads/{threadId}/pin)" }),
  isShared: Schema.Boolean.annotations({ description: "Shared with the project's members (POST /api/threads/{threadId}/share)" }),
  createdAt: Timestamp,
  lastActivityAt: Timestamp,
  associatedTaskId: Schema.NullOr(Schema.String),
  parentThreadId: Schema.NullOr(Schema.String).annotations({ description: "The group this thread belongs to" }),
  spawnedByThreadId: Schema.NullOr(Schema.String),
  target: ThreadTarget,
  cliModel: Schema.NullOr(Schema.String),
  cliEffort: Schema.NullOr(Schema.String),
  cliMode: Schema.NullOr(Schema.String),
  processingState: ProcessingState,
  hasPendingUserMessages: Schema.Boolean.annotations({
    description: "A user message is waiting for the agent: check this, not status, to confirm a send landed"
  }),
  hasPendingInteraction: Schema.Boolean,
  queueHeldAt: Schema.NullOr(Timestamp),
  targetOnline: Schema.Boolean,
  lastHeartbeatAt: Schema.NullOr(Timestamp),
  runtimeSessionElsewhere: Schema.Boolean.annotations({
    description:
      "The profile's CLI is connected from another machine than the one holding this thread's runtime session: the thread waits for that machine, unless started fresh (POST /api/threads/{threadId}/start-fresh)"
  }),
  usage: Schema.optionalWith(ThreadUsage, { exact: true })
}).annotations({ identifier: "Thread" })

export const ThreadContainer = Schema.Struct({
  threadId: Schema.String,
  kind: Schema.Literal("group", "workflow_run"),
  title: Schema.String,
  isDone: Schema.Boolean,
  isPinned: Schema.Boolean,
  isShared: Schema.Boolean,
  createdAt: Timestamp,
  lastActivityAt: Timestamp,
  childCount: Schema.Number,
  aggregateStatus: AggregateStatus,
  originThreadId: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ThreadContainer" })

export const Thread = Schema.Union(OrdinaryThread, ThreadContainer)
export type Thread = typeof Thread.Type

export const ThreadMessage = Schema.Struct({
  messageId: Schema.String,
  role: Schema.Literal("user", "assistant"),
  status: Schema.String.annotations({
    description: "pending, streaming (text is what has arrived so far), completed or failed"
  }),
  createdAt: Timestamp,
  text: Schema.String.annotations({
    description: `The agent's text output only (no tool calls or reasoning), at most ${MAX_MESSAGE_TEXT} characters`
  }),
  truncated: Schema.optionalWith(Schema.Literal(true), { exact: true }),
  sentBy: Schema.optionalWith(Schema.Struct({ threadId: Schema.String, title: Schema.String }), { exact: true }),
  errorMessage: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "ThreadMessage" })

export const ListCliProfiles = Tool.make("list_cli_profiles", {
  title: "List CLI profiles",
  description:
    "Lists the caller's own CLI profiles serving the project (machines that run agents), with their runtimes and checkouts. An offline profile is still a valid target: queued work starts once that CLI connects.",
  input: Schema.Struct({ projectId: Tool.ProjectIdArgument }),
  output: Schema.Struct({ profiles: Schema.Array(CliProfile) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const GetThread = Tool.make("get_thread", {
  title: "Get a thread",
  description:
    "Returns a thread (an agent run on a machine) or a thread group / workflow run container. A nonexistent ID, someone else's thread or a non-thread ID is `Thread not found`.",
  input: Schema.Struct({ threadId: AnyThreadId.annotations({ description: "A thread ID or a group / workflow run ID" }) }),
  output: Thread,
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

/** The most runs `list_threads` returns for one task, in one page. */
export const MAX_TASK_RUNS = 100

export const ListThreads = Tool.make("list_threads", {
  title: "List threads",
  description:
    `Without threadId: the caller's own threads in the project, most recent activity first; a group or workflow run is one row. With a group's threadId: its members (up to ${MAX_GROUP_SIZE}, one page). With a taskId: the task's runs, the threads bound to it that the caller may read (their own and shared ones), running and pending first, then most recent activity, up to ${MAX_TASK_RUNS} in one page, each with its usage. An unreadable ID returns an empty list.`,
  input: Schema.Struct({
    projectId: Schema.optional(ProjectId.annotations({
      description:
        "The project's ID; optional with threadId, with a taskId that is an ID or scoped ref, or when the connection URL carries ?project=<id>"
    })),
    threadId: Schema.optional(AnyThreadId.annotations({ description: "A group or workflow run ID: list its members" })),
    taskId: Schema.optional(
      Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
        description: "A task's ID or ref: list its runs (not with threadId)"
      })
    ),
    includeDone: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    limit: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(1, 50, { message: () => "must be an integer from 1 to 50" })),
      { default: () => 20 }
    ).annotations({ description: "Page size (ignored with threadId or taskId)" }),
    cursor: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
  }),
  output: Schema.Struct({ threads: Schema.Array(Thread), nextCursor: Schema.NullOr(Schema.String) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const ListThreadMessages = Tool.make("list_thread_messages", {
  title: "List thread messages",
  description:
    `The most recent messages of a thread, oldest first (no cursor: older turns are unreachable). Message text is the agent's text output only, capped at about ${MAX_MESSAGE_TEXT} characters with truncated: true. A group ID is an error; an unreadable thread returns an empty list.`,
  input: Schema.Struct({
    threadId: AnyThreadId,
    limit: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(1, MAX_MESSAGES_WINDOW, { message: () => `must be an integer from 1 to ${MAX_MESSAGES_WINDOW}` })),
      { default: () => DEFAULT_MESSAGES_WINDOW }
    )
  }),
  output: Schema.Struct({ messages: Schema.Array(ThreadMessage) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const Worktree = Schema.Struct({
  parentPathId: Schema.String.annotations({
    description: "Must equal the thread's pathId (sent or inherited); a worktree cannot be a parent"
  }),
  branch: Schema.String.annotations({ description: "A git refname (validated, not sanitized)" }),
  baseRef: Schema.optional(Schema.String.annotations({ description: "A git refname; defaults to the repository's current HEAD" })),
  startFromOrigin: Schema.optional(Schema.Boolean)
})

export const CreateThread = Tool.make("create_thread", {
  title: "Create a thread",
  description:
    `Starts an agent run: the thread is created pending with content as its first user message, and the target CLI picks it up (an offline target keeps it queued). With sourceThreadId the new thread is spawned beside that thread, inheriting its profile, path and runtime, and both join a group (at most ${MAX_GROUP_SIZE} threads, deleted ones count).`,
  input: Schema.Struct({
    content: Content.annotations({ description: "The initial prompt" }),
    sourceThreadId: Schema.optional(AnyThreadId.annotations({
      description: "Spawn beside this thread of yours (or add to this group); a workflow run cannot be joined"
    })),
    profileId: Schema.optional(Schema.String),
    pathId: Schema.optional(Schema.String),
    cliType: Schema.optional(CliType),
    title: Schema.optional(Schema.String.pipe(
      Schema.minLength(1),
      Schema.maxLength(MAX_TITLE_LENGTH, {
        message: () => `must be at most ${MAX_TITLE_LENGTH} characters`
      })
    )),
    taskId: Schema.optional(Schema.String.annotations({ description: "The task this thread works on (ID or ref)" })),
    projectId: Tool.ProjectIdForRefsArgument,
    cliModel: Schema.optional(Schema.String),
    cliEffort: Schema.optional(Schema.String),
    cliMode: Schema.optional(Schema.String.annotations({ description: "For example `plan`" })),
    runtimeCommand: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
      description: "Run content as the agent's own slash command (must start with /); claude and codex only"
    }),
    projectAgentId: Schema.optional(Schema.String),
    worktree: Schema.optional(Worktree)
  }),
  output: Thread,
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const SendThreadMessage = Tool.make("send_thread_message", {
  title: "Send a message to a thread",
  description:
    "Queues a user message on one of your threads. An idle thread becomes pending; a running one picks it up on its next turn; an offline one keeps it until its CLI connects. Check hasPendingUserMessages, not status, to confirm it landed.",
  input: Schema.Struct({
    threadId: AnyThreadId,
    content: Content,
    sourceThreadId: Schema.optional(AnyThreadId.annotations({
      description: "Your own thread sending this (shown as sent by an agent); same project as threadId"
    })),
    runtimeCommand: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }),
  output: Schema.Struct({
    messageId: Schema.String,
    threadId: Schema.String,
    status: ThreadStatus,
    hasPendingUserMessages: Schema.Boolean
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})
