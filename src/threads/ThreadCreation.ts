import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { CliType } from "../../catalog/domain/CliType.js"
import { Forbidden, InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { ProjectId, ThreadId, ThreadMessageId } from "../../catalog/domain/Ids.js"
import { acceptsRuntimeCommandOnCreate, gitRefnameProblem, titleFromContent } from "../../catalog/domain/Thread.js"
import type { CreateThread } from "../../catalog/Threads.js"
import type * as Tool from "../../catalog/Tool.js"
import { Projects } from "../projects/Projects.js"
import { requireWrite } from "../tasks/TaskAccess.js"
import { TaskReads } from "../tasks/TaskReads.js"
import { CliProfiles } from "../machines/CliProfiles.js"
import { type SpawnSource, ThreadGroups } from "./ThreadGroups.js"
import { requireSlashCommand } from "./ThreadMessages.js"
import { type ThreadRow, ThreadRows } from "./ThreadRows.js"

export type CreateThreadInput = Tool.InputOf<typeof CreateThread> & {
  /** The connection URL's `?project=`: used only to resolve a bare task ref, never to restrict the target. */
  readonly urlProjectId?: ProjectId | undefined
}

const withinProject = (row: ThreadRow, projectId: string, field: string) =>
  row.projectId === projectId
    ? Effect.void
    : new Forbidden({ message: `${field}: thread ${row.id} is in another project; a group cannot span projects` })

/** What is wrong with a requested worktree, if anything: the CLI makes it beside the thread's own checkout, so it must name that one. */
const worktreeProblem = (
  worktree: NonNullable<CreateThreadInput["worktree"]>,
  pathId: string,
  pathKind: string
): InvalidArgument | undefined => {
  if (worktree.parentPathId !== pathId) {
    return new InvalidArgument({
      message: `worktree.parentPathId: must equal the thread's pathId (${pathId})${
        pathKind === "worktree" ? "; this path is itself a worktree, so send the parent repository's pathId" : ""
      }`
    })
  }
  if (pathKind === "worktree") {
    return new InvalidArgument({
      message: "worktree.parentPathId: a worktree cannot be a parent; send the parent repository's pathId"
    })
  }
  for (const [field, value] of [["branch", worktree.branch], ["baseRef", worktree.baseRef]] as const) {
    const problem = value === undefined ? undefined : gitRefnameProblem(value)
    if (problem !== undefined) return new InvalidArgument({ message: `worktree.${field}: ${problem} (a git refname)` })
  }
  return undefined
}

/** `create_thread`: a new ordinary thread, pending with its first message, possibly spawned into a group. */
export class ThreadCreation extends Effect.Service<ThreadCreation>()("trellis/ThreadCreation", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const projects = yield* Projects
    const tasks = yield* TaskReads
    const profiles = yield* CliProfiles
    const rows = yield* ThreadRows
    const groups = yield* ThreadGroups
    const live = yield* LiveEvents

    const agentPromptOf = SqlSchema.findOne({
      Request: Schema.Struct({ agentId: Schema.String, projectId: Schema.String }),
      Result: Schema.Struct({ prompt: Schema.NullOr(Schema.String) }),
      execute: ({ agentId, projectId }) =>
        sql`
          SELECT prompt FROM project_agents WHERE id = ${agentId} AND project_id = ${projectId}
            AND archived_at IS NULL`
    })

    /** SPEC "Thread creation rules" 1–8. */
    const create = Effect.fn("ThreadCreation.create")(function*(principal: Principal, input: CreateThreadInput) {
      yield* requireSlashCommand(input)

      const spawn: SpawnSource | undefined = input.sourceThreadId === undefined
        ? undefined
        : yield* groups.spawnSource(principal, input.sourceThreadId)
      const source = spawn?.source

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
          message:
            "pathId: required when profileId differs from the source thread's profile (a path ID names a checkout on its own machine only)"
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
          message:
            `runtimeCommand: ${cliType} does not take a slash command as a thread's first message; create the thread, then send the command with send_thread_message`
        })
      }
      const worktreeRefused = input.worktree === undefined ? undefined : worktreeProblem(input.worktree, pathId, path.kind)
      if (worktreeRefused !== undefined) return yield* worktreeRefused

      const task = input.taskId === undefined
        ? undefined
        : yield* tasks.resolve(principal, input.taskId, input.projectId ?? input.urlProjectId ?? profile.projectId)
      if (task !== undefined && task.task.projectId !== profile.projectId) {
        return yield* new InvalidArgument({ message: `taskId: ${input.taskId} is in another project than the target profile` })
      }

      let agentPrompt: string | null = null
      if (input.projectAgentId !== undefined) {
        const agent = yield* agentPromptOf({ agentId: input.projectAgentId, projectId: profile.projectId }).pipe(Effect.orDie)
        if (Option.isNone(agent)) {
          return yield* new NotFound({ message: `projectAgentId: agent ${input.projectAgentId} not found in the target profile's project` })
        }
        agentPrompt = agent.value.prompt
      }

      const threadId = ThreadId.generate()
      const created = yield* sql.withTransaction(Effect.gen(function*() {
        const parentThreadId = spawn === undefined ? null : yield* groups.join(principal, spawn)
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
      return yield* rows.get(principal, threadId)
    })

    return { create } as const
  }),
  dependencies: [Projects.Default, TaskReads.Default, CliProfiles.Default, ThreadRows.Default, ThreadGroups.Default, LiveEvents.Default]
}) {}
