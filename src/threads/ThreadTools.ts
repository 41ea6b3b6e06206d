import { Effect, Either, Schema } from "effect"
import {
  CreateThread,
  GetThread,
  ListCliProfiles,
  ListThreadMessages,
  ListThreads,
  SendThreadMessage,
  type Thread
} from "../../catalog/Threads.js"
import { CurrentPrincipal, CurrentProject, DefaultProject } from "../platform/auth/Principal.js"
import { CliProfiles } from "../machines/CliProfiles.js"
import { CliType } from "../../catalog/domain/CliType.js"
import { InvalidArgument } from "../../catalog/domain/Errors.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { Projects } from "../projects/Projects.js"
import { messageView } from "./ThreadMessages.js"
import type { ThreadRow } from "./ThreadRows.js"
import { ThreadCreation } from "./ThreadCreation.js"
import { ThreadListing } from "./ThreadListing.js"
import { ThreadMessages } from "./ThreadMessages.js"
import { ThreadRows } from "./ThreadRows.js"
import { ThreadUsage } from "./ThreadUsage.js"
import { TaskReads } from "../tasks/TaskReads.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

const iso = (date: Date | null) => date?.toISOString() ?? null
const decodeCliType = Schema.decodeUnknownOption(CliType)

/** The `get_thread` shape: an ordinary thread with its target, or a container with its members' summary. */
export const threadView = (row: ThreadRow): Thread =>
  row.kind === "thread"
    ? {
      threadId: row.id,
      kind: "thread",
      title: row.title,
      status: row.status,
      isDone: row.doneAt !== null,
      isPinned: row.pinnedAt !== null,
      isShared: row.sharedAt !== null,
      createdAt: row.createdAt.toISOString(),
      lastActivityAt: row.lastActivityAt.toISOString(),
      associatedTaskId: row.associatedTaskId,
      parentThreadId: row.parentThreadId,
      spawnedByThreadId: row.spawnedByThreadId,
      target: {
        profileId: row.profileId ?? "",
        pathId: row.pathId ?? "",
        path: row.path,
        cliType: decodeCliType(row.cliType).pipe((o) => (o._tag === "Some" ? o.value : "other")),
        profileName: row.profileName ?? ""
      },
      cliModel: row.cliModel,
      cliEffort: row.cliEffort,
      cliMode: row.cliMode,
      processingState: row.processingState,
      hasPendingUserMessages: row.hasPendingUserMessages,
      hasPendingInteraction: row.hasPendingInteraction,
      queueHeldAt: iso(row.queueHeldAt),
      targetOnline: row.targetOnline,
      lastHeartbeatAt: iso(row.lastHeartbeatAt),
      runtimeSessionElsewhere: row.runtimeSessionElsewhere
    }
    : {
      threadId: row.id,
      kind: row.kind,
      title: row.title,
      isDone: row.doneAt !== null,
      isPinned: row.pinnedAt !== null,
      isShared: row.sharedAt !== null,
      createdAt: row.createdAt.toISOString(),
      lastActivityAt: row.lastActivityAt.toISOString(),
      childCount: row.childCount,
      aggregateStatus: row.aggregateStatus ?? "idle",
      originThreadId: row.originThreadId
    }

const projectIdFromUrl = Schema.decodeUnknownEither(ProjectId)

export const ThreadTools = Effect.gen(function*() {
  const rows = yield* ThreadRows
  const listing = yield* ThreadListing
  const usage = yield* ThreadUsage
  const tasks = yield* TaskReads
  const threadMessages = yield* ThreadMessages
  const creation = yield* ThreadCreation
  const profiles = yield* CliProfiles
  const projects = yield* Projects

  /** `list_threads` needs a project only without threadId, so it resolves one itself. */
  const projectFor = (explicit: ProjectId | undefined) =>
    Effect.gen(function*() {
      const principal = yield* CurrentPrincipal
      if (explicit !== undefined) return yield* projects.access(principal, explicit)
      const fallback = yield* DefaultProject
      if (fallback === null) {
        return yield* new InvalidArgument({
          message: "projectId: required without threadId, because the connection URL has no ?project=<project_id>"
        })
      }
      const projectId = yield* Either.mapLeft(
        projectIdFromUrl(fallback),
        () => new InvalidArgument({ message: `project: the URL's ?project=${fallback} is not a project ID (proj_…)` })
      )
      return yield* projects.access(principal, projectId)
    })

  return [
    Implement.scoped(ListCliProfiles, () =>
      Effect.gen(function*() {
        const { project } = yield* CurrentProject
        return { profiles: yield* profiles.listOwn(yield* CurrentPrincipal, project.id) }
      })),
    Implement.unscoped(
      GetThread,
      ({ threadId }) => Effect.map(Effect.flatMap(CurrentPrincipal, (principal) => rows.get(principal, threadId)), threadView)
    ),
    Implement.unscoped(ListThreads, ({ cursor, includeDone, limit, projectId, taskId, threadId }) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        if (taskId !== undefined) {
          if (threadId !== undefined) {
            return yield* new InvalidArgument({ message: "taskId: not with threadId (a group's members are listed by threadId alone)" })
          }
          // An unreadable task lists nothing, as an unreadable threadId does; a malformed one is still an error.
          const task = yield* tasks.resolve(principal, taskId, projectId ?? (yield* DefaultProject)).pipe(
            Effect.map((resolved) => resolved.task.id),
            Effect.catchTags({ NotFound: () => Effect.succeed(null), Forbidden: () => Effect.succeed(null) })
          )
          if (task === null) return { threads: [], nextCursor: null }
          const runs = yield* listing.listTask(principal, task, includeDone)
          const usageOf = yield* usage.usageOf(runs.map((run) => run.id))
          return {
            threads: runs.map((run) => {
              const view = threadView(run)
              const spent = usageOf.get(run.id)
              return view.kind === "thread" && spent !== undefined ? { ...view, usage: spent } : view
            }),
            nextCursor: null
          }
        }
        if (threadId !== undefined) {
          const members = yield* listing.listMembers(principal, threadId, includeDone)
          return { threads: members.map(threadView), nextCursor: null }
        }
        const access = yield* projectFor(projectId)
        const page = yield* listing.listProject(principal, access, { includeDone, limit, cursor })
        return { threads: page.threads.map(threadView), nextCursor: page.nextCursor }
      })),
    Implement.unscoped(ListThreadMessages, ({ limit, threadId }) =>
      Effect.gen(function*() {
        const messages = yield* threadMessages.listMessages(yield* CurrentPrincipal, threadId, limit)
        return { messages: messages.map(messageView) }
      })),
    Implement.unscoped(CreateThread, (input) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const fallback = yield* DefaultProject
        const urlProject = fallback === null ? undefined : Either.getOrUndefined(projectIdFromUrl(fallback))
        const row = yield* creation.create(principal, { ...input, urlProjectId: urlProject })
        return threadView(row)
      })),
    Implement.unscoped(SendThreadMessage, (input) => Effect.flatMap(CurrentPrincipal, (principal) => threadMessages.send(principal, input)))
  ] as const
})
