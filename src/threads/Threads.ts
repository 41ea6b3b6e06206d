import * as PageCursor from "../../catalog/domain/PageCursor.js"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { threadNotFound, threadReadableBy } from "./ThreadVisibility.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { CliProfiles } from "./CliProfiles.js"
import { ThreadQueue } from "./ThreadQueue.js"
import { CliType } from "../../catalog/domain/CliType.js"
import { Conflict, Forbidden, InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { ProjectId, ThreadId, ThreadMessageId } from "../../catalog/domain/Ids.js"
import {
  acceptsRuntimeCommandOnCreate,
  AggregateStatus,
  capText,
  gitRefnameProblem,
  MAX_GROUP_SIZE,
  ProcessingState,
  ThreadKind,
  ThreadStatus,
  titleFromContent
} from "../../catalog/domain/Thread.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { Projects } from "../projects/Projects.js"
import { requireWrite, Tasks } from "../tasks/Tasks.js"

/** A thread as read for views: its target, queue state and, for containers, the members' summary. */
export const ThreadRow = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  createdBy: Schema.String,
  kind: ThreadKind,
  title: Schema.String,
  status: ThreadStatus,
  doneAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  lastActivityAt: Schema.DateFromSelf,
  associatedTaskId: Schema.NullOr(Schema.String),
  parentThreadId: Schema.NullOr(Schema.String),
  spawnedByThreadId: Schema.NullOr(Schema.String),
  originThreadId: Schema.NullOr(Schema.String),
  profileId: Schema.NullOr(Schema.String),
  profileName: Schema.NullOr(Schema.String),
  pathId: Schema.NullOr(Schema.String),
  path: Schema.NullOr(Schema.String),
  pathKind: Schema.NullOr(Schema.String),
  cliType: Schema.NullOr(Schema.String),
  cliModel: Schema.NullOr(Schema.String),
  cliEffort: Schema.NullOr(Schema.String),
  cliMode: Schema.NullOr(Schema.String),
  processingState: ProcessingState,
  hasPendingUserMessages: Schema.Boolean,
  hasPendingInteraction: Schema.Boolean,
  queueHeldAt: Schema.NullOr(Schema.DateFromSelf),
  pinnedAt: Schema.NullOr(Schema.DateFromSelf),
  sharedAt: Schema.NullOr(Schema.DateFromSelf),
  groupSharedAt: Schema.NullOr(Schema.DateFromSelf),
  memberCount: Schema.Number,
  /** `last_activity_at` in microseconds since the epoch (a decimal string), so a page cursor is exact. */
  activityCursor: Schema.String,
  targetOnline: Schema.Boolean,
  lastHeartbeatAt: Schema.NullOr(Schema.DateFromSelf),
  runtimeSessionElsewhere: Schema.Boolean,
  childCount: Schema.Number,
  aggregateStatus: Schema.NullOr(AggregateStatus)
})
export type ThreadRow = typeof ThreadRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(ThreadRow))

export const MessageRow = Schema.Struct({
  id: Schema.String,
  role: Schema.Literal("user", "assistant"),
  status: Schema.String,
  content: Schema.String,
  text: Schema.NullOr(Schema.String),
  truncated: Schema.Boolean,
  errorMessage: Schema.NullOr(Schema.String),
  sentByThreadId: Schema.NullOr(Schema.String),
  sentByTitle: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})
export type MessageRow = typeof MessageRow.Type
const decodeMessages = Schema.decodeUnknown(Schema.Array(MessageRow))

export interface WorktreeRequest {
  readonly parentPathId: string
  readonly branch: string
  readonly baseRef?: string | undefined
  readonly startFromOrigin?: boolean | undefined
}

export interface CreateThreadInput {
  readonly content: string
  readonly sourceThreadId?: string | undefined
  readonly profileId?: string | undefined
  readonly pathId?: string | undefined
  readonly cliType?: CliType | undefined
  readonly title?: string | undefined
  readonly taskId?: string | undefined
  readonly projectId?: ProjectId | undefined
  /** The connection URL's `?project=`: used only to resolve a bare task ref, never to restrict the target. */
  readonly urlProjectId?: ProjectId | undefined
  readonly cliModel?: string | undefined
  readonly cliEffort?: string | undefined
  readonly cliMode?: string | undefined
  readonly runtimeCommand: boolean
  readonly projectAgentId?: string | undefined
  readonly worktree?: WorktreeRequest | undefined
}

export interface SendMessageInput {
  readonly threadId: string
  readonly content: string
  readonly sourceThreadId?: string | undefined
  readonly runtimeCommand: boolean
}

/**
 * After the last row's (last activity, id). The activity is microseconds since the epoch, an
 * integer: exact, independent of the session's time zone, and nothing SQL can fail to parse.
 */
const Cursor = PageCursor.make("list_threads", Schema.Tuple(
  Schema.String.pipe(Schema.pattern(/^-?\d{1,16}$/)),
  Schema.String
))

const slashCommandRule = "runtimeCommand: content must be the whole slash command and start with /"

export class Threads extends Effect.Service<Threads>()("trellis/Threads", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* TrellisConfig
    const projects = yield* Projects
    const tasks = yield* Tasks
    const profiles = yield* CliProfiles
    const queue = yield* ThreadQueue
    const live = yield* LiveEvents
    const ttlSeconds = config.bridge.sessionTtlMs / 1000

    const selectThreads = (where: ReturnType<typeof sql.and>, tail = sql``) =>
      sql`
        SELECT t.id, t.project_id AS "projectId", t.created_by AS "createdBy", t.kind, t.title, t.status,
          t.done_at AS "doneAt", t.created_at AS "createdAt", t.last_activity_at AS "lastActivityAt",
          t.associated_task_id AS "associatedTaskId", t.parent_thread_id AS "parentThreadId",
          t.spawned_by_thread_id AS "spawnedByThreadId", t.origin_thread_id AS "originThreadId",
          t.profile_id AS "profileId", pr.name AS "profileName", t.path_id AS "pathId", cp.path, cp.kind AS "pathKind",
          t.cli_type AS "cliType", t.cli_model AS "cliModel", t.cli_effort AS "cliEffort", t.cli_mode AS "cliMode",
          t.processing_state AS "processingState", t.has_pending_user_messages AS "hasPendingUserMessages",
          t.has_pending_interaction AS "hasPendingInteraction", t.queue_held_at AS "queueHeldAt",
          t.pinned_at AS "pinnedAt", t.shared_at AS "sharedAt", g.shared_at AS "groupSharedAt",
          t.member_count AS "memberCount", (extract(epoch FROM t.last_activity_at) * 1000000)::bigint::text AS "activityCursor",
          EXISTS (SELECT 1 FROM agent_sessions s WHERE s.profile_id = t.profile_id AND s.ended_at IS NULL
            AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})) AS "targetOnline",
          (SELECT max(s.last_heartbeat_at) FROM agent_sessions s WHERE s.profile_id = t.profile_id) AS "lastHeartbeatAt",
          COALESCE((SELECT bool_and(s.machine_id IS DISTINCT FROM t.runtime_machine_id) FROM agent_sessions s
            WHERE t.runtime_machine_id IS NOT NULL AND s.profile_id = t.profile_id AND s.ended_at IS NULL
              AND s.last_heartbeat_at > now() - make_interval(secs => ${ttlSeconds})), false) AS "runtimeSessionElsewhere",
          COALESCE(agg.children, 0)::int AS "childCount", agg.status AS "aggregateStatus"
        FROM threads t
        LEFT JOIN cli_profiles pr ON pr.id = t.profile_id
        LEFT JOIN cli_paths cp ON cp.id = t.path_id
        LEFT JOIN threads g ON g.id = t.parent_thread_id
        LEFT JOIN LATERAL (
          SELECT count(*) AS children,
            CASE WHEN bool_or(m.has_pending_interaction) THEN 'needs_attention'
              WHEN bool_or(m.status = 'failed') THEN 'failed'
              WHEN bool_or(m.status IN ('pending', 'running')) THEN 'running'
              ELSE 'idle' END AS status
          FROM threads m WHERE m.parent_thread_id = t.id AND m.deleted_at IS NULL AND t.kind <> 'thread'
        ) agg ON true
        WHERE ${where} ${tail}`.pipe(Effect.flatMap(decodeRows), Effect.orDie)

    /** A thread the caller may read (ThreadVisibility's one rule, in the WHERE); anything else is none. */
    const findReadable = (principal: Principal, threadId: string) =>
      Effect.map(
        selectThreads(sql.and([sql`t.id = ${threadId}`, sql`t.deleted_at IS NULL`, threadReadableBy(sql, principal)])),
        ([row]) => row
      )

    /** One of the caller's own threads, for writes: anyone else's reads as not found. */
    const findOwn = (principal: Principal, threadId: string, field: string) =>
      Effect.gen(function* () {
        const [row] = yield* selectThreads(sql.and([
          sql`t.id = ${threadId}`,
          sql`t.deleted_at IS NULL`,
          sql`t.created_by = ${principal.userId}`
        ]))
        if (row === undefined) return yield* new NotFound({ message: `${field}: thread ${threadId} not found` })
        const projectId = Schema.decodeUnknownOption(ProjectId)(row.projectId)
        if (Option.isNone(projectId)) return yield* new NotFound({ message: `${field}: thread ${threadId} not found` })
        yield* projects.access(principal, projectId.value).pipe(
          Effect.catchTag("NotFound", () => new NotFound({ message: `${field}: thread ${threadId} not found` }))
        )
        return row
      })

    const get = Effect.fn("Threads.get")(function* (principal: Principal, threadId: string) {
      const row = yield* findReadable(principal, threadId)
      if (row === undefined) return yield* threadNotFound
      return row
    })

    /** The project list: the caller's top-level rows (threads outside groups, and containers), newest activity first. */
    const listProject = Effect.fn("Threads.listProject")(function* (
      principal: Principal,
      access: ProjectAccess,
      options: { readonly includeDone: boolean; readonly limit: number; readonly cursor: string | null }
    ) {
      let after = sql``
      const position = yield* Cursor.decode(options.cursor)
      if (position !== null) {
        const [micros, id] = position
        after = sql`AND (t.last_activity_at, t.id) < (timestamptz 'epoch' + ${micros}::bigint * interval '1 microsecond', ${id})`
      }
      const rows = yield* selectThreads(
        sql.and([
          sql`t.project_id = ${access.project.id}`,
          sql`t.created_by = ${principal.userId}`,
          sql`t.deleted_at IS NULL`,
          sql`t.parent_thread_id IS NULL`,
          options.includeDone ? sql`true` : sql`t.done_at IS NULL`
        ]),
        sql`${after} ORDER BY t.last_activity_at DESC, t.id DESC LIMIT ${options.limit + 1}`
      )
      const page = rows.slice(0, options.limit)
      const last = page.at(-1)
      const nextCursor = rows.length > options.limit && last !== undefined
        ? Cursor.encode([last.activityCursor, last.id])
        : null
      return { threads: page, nextCursor }
    })

    /** A group's members, all in one page; an unreadable or ordinary ID gives none. */
    const listMembers = Effect.fn("Threads.listMembers")(function* (
      principal: Principal,
      containerId: string,
      includeDone: boolean
    ) {
      const container = yield* findReadable(principal, containerId)
      if (container === undefined || container.kind === "thread") return []
      return yield* selectThreads(
        sql.and([
          sql`t.parent_thread_id = ${containerId}`,
          sql`t.deleted_at IS NULL`,
          includeDone ? sql`true` : sql`t.done_at IS NULL`
        ]),
        sql`ORDER BY t.created_at, t.id LIMIT ${MAX_GROUP_SIZE}`
      )
    })

    /** The newest `limit` messages, oldest first, with assistant text derived from normalized text events. */
    const listMessages = Effect.fn("Threads.listMessages")(function* (principal: Principal, threadId: string, limit: number) {
      const thread = yield* findReadable(principal, threadId)
      if (thread === undefined) return []
      if (thread.kind !== "thread") {
        return yield* new InvalidArgument({
          message: `threadId: ${threadId} is a thread ${thread.kind === "group" ? "group" : "workflow run"}; list its members with list_threads`
        })
      }
      const rows = yield* sql`
        SELECT m.id, m.role, m.status, m.content, m.text, m.truncated, m.error_message AS "errorMessage",
          m.sent_by_thread_id AS "sentByThreadId", s.title AS "sentByTitle", m.created_at AS "createdAt"
        FROM thread_messages m LEFT JOIN threads s ON s.id = m.sent_by_thread_id
        WHERE m.thread_id = ${threadId}
        ORDER BY m.created_at DESC, m.id DESC LIMIT ${limit}`.pipe(Effect.flatMap(decodeMessages), Effect.orDie)
      const messages = []
      for (const row of [...rows].reverse()) {
        if (row.role === "user") {
          const capped = capText(row.content)
          messages.push({ row, text: capped.text, truncated: capped.truncated })
        } else if (row.text !== null) {
          messages.push({ row, text: row.text, truncated: row.truncated })
        } else {
          // Still streaming: the text is what has arrived so far.
          const derived = yield* queue.assistantText(row.id)
          messages.push({ row, text: derived.text, truncated: derived.truncated === true })
        }
      }
      return messages
    })

    const withinProject = (row: ThreadRow, projectId: string, field: string) =>
      row.projectId === projectId
        ? Effect.void
        : new Forbidden({ message: `${field}: thread ${row.id} is in another project; a group cannot span projects` })

    /** SPEC "Thread creation rules" 1–8. */
    const create = Effect.fn("Threads.create")(function* (principal: Principal, input: CreateThreadInput) {
      if (input.runtimeCommand && !input.content.startsWith("/")) return yield* new InvalidArgument({ message: slashCommandRule })

      // The source: an ordinary thread of the caller's, or a group of theirs (a member is chosen).
      let source: ThreadRow | undefined
      let group: ThreadRow | undefined
      if (input.sourceThreadId !== undefined) {
        const found = yield* findOwn(principal, input.sourceThreadId, "sourceThreadId")
        if (found.kind === "workflow_run") {
          return yield* new InvalidArgument({ message: `sourceThreadId: ${found.id} is a workflow run, which cannot be joined` })
        }
        if (found.kind === "group") {
          group = found
          const members = yield* selectThreads(
            sql.and([sql`t.parent_thread_id = ${found.id}`, sql`t.deleted_at IS NULL`]),
            sql`ORDER BY (t.id = ${found.originThreadId ?? ""}) DESC, t.created_at, t.id LIMIT 1`
          )
          source = members[0]
          if (source === undefined) return yield* new InvalidArgument({ message: `sourceThreadId: group ${found.id} has no member to spawn beside` })
        } else {
          source = found
          if (found.parentThreadId !== null) {
            const [parent] = yield* selectThreads(sql.and([sql`t.id = ${found.parentThreadId}`]))
            group = parent
          }
        }
      }

      // Target: sent, or inherited from the source. A path ID means something only on its own profile.
      if (source === undefined) {
        const missing = (["profileId", "pathId", "cliType"] as const).filter((field) => input[field] === undefined)
        if (missing.length > 0) {
          return yield* new InvalidArgument({
            message: `${missing.join(", ")}: required without sourceThreadId (each names where and how the agent runs)`
          })
        }
      } else if (input.profileId !== undefined && input.profileId !== source.profileId && input.pathId === undefined) {
        return yield* new InvalidArgument({
          message: "pathId: required when profileId differs from the source thread's profile (a path ID names a checkout on its own machine only)"
        })
      }
      const profileId = input.profileId ?? source?.profileId ?? ""
      const sameProfile = input.profileId === undefined || input.profileId === source?.profileId
      const pathId = input.pathId ?? (sameProfile ? source?.pathId : undefined) ?? ""
      const inherited = Schema.decodeUnknownOption(CliType)(source?.cliType)
      const cliType = input.cliType ?? Option.getOrElse(inherited, () => "other" as const)

      const profile = yield* profiles.getOwn(principal, profileId)
      const path = profile.paths.find((p) => p.pathId === pathId)
      if (path === undefined) {
        return yield* new NotFound({ message: `pathId: path ${pathId} not found on profile ${profile.profileId}` })
      }
      const profileProject = Schema.decodeUnknownOption(ProjectId)(profile.projectId)
      if (Option.isNone(profileProject)) return yield* new NotFound({ message: `profileId: CLI profile ${profileId} not found` })
      const access = yield* projects.access(principal, profileProject.value)
      yield* requireWrite(access, "threads")
      if (source !== undefined) yield* withinProject(source, profile.projectId, "profileId")
      if (input.projectId !== undefined && input.projectId !== profile.projectId) {
        return yield* new InvalidArgument({
          message: `projectId: ${input.projectId} is not the target profile's project (${profile.projectId})`
        })
      }
      if (input.runtimeCommand && !acceptsRuntimeCommandOnCreate(cliType)) {
        return yield* new InvalidArgument({
          message: `runtimeCommand: ${cliType} does not take a slash command as a thread's first message; create the thread, then send the command with send_thread_message`
        })
      }

      if (input.worktree !== undefined) {
        if (input.worktree.parentPathId !== pathId) {
          return yield* new InvalidArgument({
            message: `worktree.parentPathId: must equal the thread's pathId (${pathId})${
              path.kind === "worktree" ? "; this path is itself a worktree, so send the parent repository's pathId" : ""
            }`
          })
        }
        if (path.kind === "worktree") {
          return yield* new InvalidArgument({
            message: "worktree.parentPathId: a worktree cannot be a parent; send the parent repository's pathId"
          })
        }
        for (const [field, value] of [["branch", input.worktree.branch], ["baseRef", input.worktree.baseRef]] as const) {
          const problem = value === undefined ? undefined : gitRefnameProblem(value)
          if (problem !== undefined) return yield* new InvalidArgument({ message: `worktree.${field}: ${problem} (a git refname)` })
        }
      }

      const task = input.taskId === undefined
        ? undefined
        : yield* tasks.resolve(principal, input.taskId, input.projectId ?? input.urlProjectId ?? profile.projectId)
      if (task !== undefined && task.task.projectId !== profile.projectId) {
        return yield* new InvalidArgument({ message: `taskId: ${input.taskId} is in another project than the target profile` })
      }

      let agentPrompt: string | null = null
      if (input.projectAgentId !== undefined) {
        const agents = yield* sql<{ prompt: string | null }>`
          SELECT prompt FROM project_agents WHERE id = ${input.projectAgentId} AND project_id = ${profile.projectId}
            AND archived_at IS NULL`.pipe(Effect.orDie)
        const agent = agents[0]
        if (agent === undefined) {
          return yield* new NotFound({ message: `projectAgentId: agent ${input.projectAgentId} not found in the target profile's project` })
        }
        agentPrompt = agent.prompt
      }

      const threadId = ThreadId.generate()
      const created = yield* sql.withTransaction(Effect.gen(function* () {
        let parentThreadId: string | null = null
        if (source !== undefined) {
          if (group === undefined) {
            // Parallel spawns from one thread (an agent fanning out) must make one group: the source is
            // read again under its row lock, and whoever waited finds the group the first one made.
            const [current] = yield* sql<{ parentThreadId: string | null; pinnedAt: Date | null; sharedAt: Date | null }>`
              SELECT parent_thread_id AS "parentThreadId", pinned_at AS "pinnedAt", shared_at AS "sharedAt"
              FROM threads WHERE id = ${source.id} AND deleted_at IS NULL FOR NO KEY UPDATE`
            if (current === undefined) return yield* new NotFound({ message: `sourceThreadId: thread ${source.id} not found` })
            if (current.parentThreadId === null) {
              // Spawning turns the source into a group: pin and share move to the group.
              const groupId = ThreadId.generate()
              yield* sql`
                INSERT INTO threads (id, project_id, created_by, kind, title, origin_thread_id, processing_state, status,
                  pinned_at, shared_at, member_count)
                VALUES (${groupId}, ${source.projectId}, ${principal.userId}, 'group', ${source.title}, ${source.id}, 'idle', 'idle',
                  ${current.pinnedAt}, ${current.sharedAt}, 1)`
              yield* sql`UPDATE threads SET parent_thread_id = ${groupId}, pinned_at = NULL, shared_at = NULL WHERE id = ${source.id}`
              parentThreadId = groupId
            } else {
              parentThreadId = current.parentThreadId
            }
          } else {
            parentThreadId = group.id
          }
          const grown = yield* sql<{ memberCount: number }>`
            UPDATE threads SET member_count = member_count + 1, last_activity_at = now()
            WHERE id = ${parentThreadId} AND member_count < ${MAX_GROUP_SIZE}
            RETURNING member_count AS "memberCount"`
          if (grown.length === 0) {
            return yield* new LimitExceeded({
              message: `sourceThreadId: the group is full (${MAX_GROUP_SIZE} threads, deleted ones count); retrying will not help`
            })
          }
        }
        yield* sql`
          INSERT INTO threads (id, project_id, created_by, title, status, processing_state, has_pending_user_messages,
            associated_task_id, parent_thread_id, spawned_by_thread_id, profile_id, path_id, cli_type, cli_model,
            cli_effort, cli_mode, project_agent_id, agent_prompt, worktree)
          VALUES (${threadId}, ${profile.projectId}, ${principal.userId}, ${input.title ?? titleFromContent(input.content)},
            'pending', 'pending', true, ${task?.task.id ?? null}, ${parentThreadId}, ${source?.id ?? null},
            ${profile.profileId}, ${pathId}, ${cliType}, ${input.cliModel ?? null}, ${input.cliEffort ?? null},
            ${input.cliMode ?? null}, ${input.projectAgentId ?? null}, ${agentPrompt},
            ${input.worktree === undefined ? null : JSON.stringify(input.worktree)}::jsonb)`
        yield* sql`
          INSERT INTO thread_messages (id, thread_id, role, status, content, runtime_command)
          VALUES (${ThreadMessageId.generate()}, ${threadId}, 'user', 'pending', ${input.content}, ${input.runtimeCommand})`
        return parentThreadId
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* live.threadChanged(threadId, profile.profileId)
      if (created !== null) yield* live.threadChanged(created, null)
      yield* Effect.annotateCurrentSpan("projectId", access.project.id)
      return yield* get(principal, threadId)
    })

    /** SPEC's `send_thread_message` rules: own threads only, same project, never to a container. */
    const send = Effect.fn("Threads.send")(function* (principal: Principal, input: SendMessageInput) {
      if (input.runtimeCommand && !input.content.startsWith("/")) return yield* new InvalidArgument({ message: slashCommandRule })
      const target = yield* findOwn(principal, input.threadId, "threadId")
      if (target.kind !== "thread") {
        return yield* new InvalidArgument({ message: `threadId: ${target.id} is a thread group or workflow run, which cannot receive messages` })
      }
      if (input.sourceThreadId !== undefined) {
        const source = yield* findOwn(principal, input.sourceThreadId, "sourceThreadId")
        if (source.kind !== "thread") {
          return yield* new InvalidArgument({ message: `sourceThreadId: ${source.id} is a thread group or workflow run, which cannot send messages` })
        }
        if (source.projectId !== target.projectId) {
          return yield* new Forbidden({ message: "sourceThreadId: must be in the same project as threadId" })
        }
      }
      const messageId = ThreadMessageId.generate()
      const updated = yield* sql.withTransaction(Effect.gen(function* () {
        yield* sql`
          INSERT INTO thread_messages (id, thread_id, role, status, content, runtime_command, sent_by_thread_id)
          VALUES (${messageId}, ${target.id}, 'user', 'pending', ${input.content}, ${input.runtimeCommand},
            ${input.sourceThreadId ?? null})`
        // An idle thread becomes pending; a claimed one picks the message up on its next batch.
        return yield* sql<{ status: string }>`
          UPDATE threads SET has_pending_user_messages = true, last_activity_at = now(),
            processing_state = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE processing_state END,
            status = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE status END
          WHERE id = ${target.id} RETURNING status`
          .pipe(Effect.tap(() => queue.touchGroup(target.id)))
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* live.threadChanged(target.id, target.profileId)
      const status = Schema.decodeUnknownOption(ThreadStatus)(updated[0]?.status)
      return {
        messageId,
        threadId: target.id,
        status: Option.getOrElse(status, () => "pending" as const),
        hasPendingUserMessages: true
      }
    })

    /** Requeues the failed batch: its user messages wait again and the failed answer is removed. */
    const retry = Effect.fn("Threads.retry")(function* (principal: Principal, threadId: string) {
      const thread = yield* findOwn(principal, threadId, "threadId")
      if (thread.kind !== "thread") return yield* new InvalidArgument({ message: `threadId: ${threadId} is not an ordinary thread` })
      yield* sql.withTransaction(Effect.gen(function* () {
        const failed = yield* sql<{ id: string }>`
          SELECT id FROM thread_messages WHERE thread_id = ${threadId} AND role = 'assistant'
          ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`
        const latest = failed[0]
        const status = latest === undefined ? [] : yield* sql<{ status: string }>`SELECT status FROM thread_messages WHERE id = ${latest.id}`
        if (latest === undefined || status[0]?.status !== "failed") {
          return yield* new Conflict({ message: `threadId: the latest run of thread ${threadId} did not fail; nothing to retry` })
        }
        yield* sql`
          UPDATE thread_messages SET status = 'pending', batch_message_id = NULL WHERE batch_message_id = ${latest.id}`
        yield* sql`DELETE FROM thread_messages WHERE id = ${latest.id}`
        yield* sql`
          UPDATE threads SET has_pending_user_messages = true, last_activity_at = now(),
            processing_state = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE processing_state END,
            status = CASE WHEN processing_state = 'idle' THEN 'pending' ELSE 'running' END
          WHERE id = ${threadId}`
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* live.threadChanged(threadId, thread.profileId)
      return yield* get(principal, threadId)
    })

    const setDone = Effect.fn("Threads.setDone")(function* (principal: Principal, threadId: string, done: boolean) {
      yield* findOwn(principal, threadId, "threadId")
      yield* sql`UPDATE threads SET done_at = ${done ? sql`now()` : null} WHERE id = ${threadId}`.pipe(Effect.orDie)
      return yield* get(principal, threadId)
    })

    /** Pin or share a thread; a thread in a group pins and shares through its group. */
    const setFlag = Effect.fn("Threads.setFlag")(function* (
      principal: Principal,
      threadId: string,
      flag: "pinned" | "shared",
      on: boolean
    ) {
      const row = yield* findOwn(principal, threadId, "threadId")
      const targetId = row.parentThreadId ?? row.id
      const column = flag === "pinned" ? sql`pinned_at` : sql`shared_at`
      yield* sql`UPDATE threads SET ${column} = ${on ? sql`now()` : null} WHERE id = ${targetId}`.pipe(Effect.orDie)
      return yield* get(principal, targetId)
    })

    /** Holding the queue stops the CLI from claiming the thread; releasing makes waiting messages claimable again. */
    const setQueueHeld = Effect.fn("Threads.setQueueHeld")(function* (principal: Principal, threadId: string, held: boolean) {
      const row = yield* findOwn(principal, threadId, "threadId")
      if (row.kind !== "thread") return yield* new InvalidArgument({ message: `threadId: ${threadId} is not an ordinary thread` })
      yield* sql`UPDATE threads SET queue_held_at = ${held ? sql`COALESCE(queue_held_at, now())` : null} WHERE id = ${threadId}`.pipe(
        Effect.orDie
      )
      yield* live.threadChanged(threadId, row.profileId)
      return yield* get(principal, threadId)
    })

    /**
     * Forgets the thread's runtime session and the machine holding it, so any machine of the
     * profile may run it next, in a new session told the conversation so far. Not while a batch
     * streams: the run in flight would name its session again when it ends.
     */
    const startFresh = Effect.fn("Threads.startFresh")(function* (principal: Principal, threadId: string) {
      const row = yield* findOwn(principal, threadId, "threadId")
      if (row.kind !== "thread") return yield* new InvalidArgument({ message: `threadId: ${threadId} is not an ordinary thread` })
      const updated = yield* sql<{ id: string }>`
        UPDATE threads SET runtime_session_id = NULL, runtime_machine_id = NULL
        WHERE id = ${threadId} AND processing_state <> 'streaming' RETURNING id`.pipe(Effect.orDie)
      if (updated.length === 0) {
        return yield* new Conflict({ message: `threadId: thread ${threadId} is running; start it fresh once the run has ended` })
      }
      yield* live.threadChanged(threadId, row.profileId)
      return yield* get(principal, threadId)
    })

    /** An empty workflow run container; runs are started into it with create_thread's sourceThreadId. */
    const createWorkflowRun = Effect.fn("Threads.createWorkflowRun")(function* (
      principal: Principal,
      access: ProjectAccess,
      title: string
    ) {
      yield* requireWrite(access, "threads")
      const id = ThreadId.generate()
      yield* sql`
        INSERT INTO threads (id, project_id, created_by, kind, title, processing_state, status)
        VALUES (${id}, ${access.project.id}, ${principal.userId}, 'workflow_run', ${title}, 'idle', 'idle')`.pipe(Effect.orDie)
      return yield* get(principal, id)
    })

    return {
      get,
      listProject,
      listMembers,
      listMessages,
      create,
      send,
      retry,
      setDone,
      setFlag,
      setQueueHeld,
      startFresh,
      createWorkflowRun,
      findOwn
    } as const
  }),
  dependencies: [Projects.Default, Tasks.Default, CliProfiles.Default, ThreadQueue.Default, LiveEvents.Default]
}) {}

