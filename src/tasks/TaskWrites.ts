import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Either, Option, Schema } from "effect"
import type { CreateTask, UpdateTask } from "../../catalog/Tasks.js"
import { Conflict, InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { TaskId } from "../../catalog/domain/Ids.js"
import { rankAfter } from "../../catalog/domain/Rank.js"
import { RichTextModule } from "./RichTextModule.js"
import { MAX_EXTERNAL_LINKS } from "../../catalog/domain/Task.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { isForeignKeyViolation } from "../platform/sql/SqlErrors.js"
import { Labels } from "../lists-labels/Labels.js"
import { TaskLists } from "../lists-labels/TaskLists.js"
import { requireWrite, type ResolvedTask } from "./TaskAccess.js"
import { TaskLinks } from "./TaskLinks.js"
import { TaskReads } from "./TaskReads.js"
import { jsonb } from "./TaskRow.js"

/** create_task's arguments; the project is resolved by the caller. */
export type NewTask = Omit<typeof CreateTask.input.Type, "projectId">

/** update_task's changes: every argument but the task's address. */
export type TaskChanges = Omit<typeof UpdateTask.input.Type, "taskId" | "projectId">

const ProjectStatuses = Schema.Struct({ statuses: Schema.Array(Schema.String) })
const TaskNumber = Schema.Struct({ n: Schema.Number })
const LastRank = Schema.Struct({ rank: Schema.NullOr(Schema.String) })

/** Checked references can vanish before the write commits (a label deleted meanwhile): the call is refused whole. */
const concurrentChange = (error: SqlError) =>
  isForeignKeyViolation(error)
    ? new Conflict({
      message: "a List, label, agent, user or parent task named in this call was removed meanwhile; nothing was written, retry"
    })
    : Effect.die(error)

const normalizeDescription = (description: string) =>
  Effect.flatMap(RichTextModule, (RichText) =>
    Either.map(RichText.normalize(description, "description"), (document) => ({
      document,
      text: RichText.plainText(document)
    })))

/** Creating tasks and changing their fields, each reference checked against the task's project. */
export class TaskWrites extends Effect.Service<TaskWrites>()("trellis/TaskWrites", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const reads = yield* TaskReads
    const links = yield* TaskLinks
    const taskLists = yield* TaskLists
    const labels = yield* Labels

    const statusRows = SqlSchema.findOne({
      Request: Schema.String,
      Result: ProjectStatuses,
      execute: (projectId) => sql`SELECT task_statuses AS statuses FROM projects WHERE id = ${projectId}`
    })

    const statusesOf = (access: ProjectAccess) =>
      statusRows(access.project.id).pipe(
        Effect.orDie,
        Effect.map((row): ReadonlyArray<string> => Option.match(row, { onNone: () => [], onSome: ({ statuses }) => statuses }))
      )

    const checkStatus = (access: ProjectAccess, status: string) =>
      Effect.flatMap(statusesOf(access), (statuses) =>
        statuses.includes(status)
          ? Effect.succeed(status)
          : new InvalidArgument({
            message: `status: "${status}" is not a status of project ${access.project.ref} (${statuses.join(", ")})`
          }))

    const checkAssignee = (access: ProjectAccess, userId: string) =>
      Effect.gen(function*() {
        const rows = yield* sql`
          SELECT 1 FROM projects p
          LEFT JOIN organization_members om ON om.organization_id = p.organization_id AND om.user_id = ${userId}
          LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ${userId}
          WHERE p.id = ${access.project.id} AND (pm.role IS NOT NULL OR om.role IN ('owner', 'admin'))`.pipe(Effect.orDie)
        if (rows.length === 0) {
          return yield* new InvalidArgument({ message: `assigneeId: user ${userId} is not a member of project ${access.project.ref}` })
        }
        return userId
      })

    const checkAgent = (access: ProjectAccess, agentId: string) =>
      Effect.gen(function*() {
        const rows = yield* sql`SELECT 1 FROM project_agents
          WHERE id = ${agentId} AND project_id = ${access.project.id} AND archived_at IS NULL`.pipe(Effect.orDie)
        if (rows.length === 0) {
          return yield* new NotFound({ message: `delegatedToAgentId: project agent ${agentId} not found in project ${access.project.ref}` })
        }
        return agentId
      })

    const resolveLabel = (access: ProjectAccess, label: string) =>
      labels.resolve(access, label).pipe(
        Effect.catchTag("NotFound", () => new NotFound({ message: `label: label ${label} not found in project ${access.project.ref}` }))
      )

    const takeNumber = SqlSchema.findAll({
      Request: Schema.String,
      Result: TaskNumber,
      execute: (projectId) => sql`UPDATE projects SET task_counter = task_counter + 1 WHERE id = ${projectId} RETURNING task_counter AS n`
    })

    const lastRank = SqlSchema.findAll({
      Request: Schema.Struct({ projectId: Schema.String, parentId: Schema.NullOr(Schema.String) }),
      Result: LastRank,
      execute: ({ parentId, projectId }) =>
        sql`SELECT max(rank) AS rank FROM tasks WHERE project_id = ${projectId} AND parent_id IS NOT DISTINCT FROM ${parentId}`
    })

    const create = Effect.fn("TaskWrites.create")(function*(principal: Principal, access: ProjectAccess, input: NewTask) {
      yield* requireWrite(access)
      const description = input.description === undefined ? undefined : yield* normalizeDescription(input.description)
      const status = input.status === undefined
        ? (yield* statusesOf(access))[0] ?? "To Do"
        : yield* checkStatus(access, input.status)
      const parent = input.parentId === undefined
        ? undefined
        : yield* reads.resolve(principal, input.parentId, access.project.id, "parentId")
      if (parent !== undefined && parent.access.project.id !== access.project.id) {
        return yield* new InvalidArgument({ message: `parentId: task ${input.parentId} is in another project` })
      }
      const list = input.listId === undefined
        ? yield* taskLists.resolve(access, "BACKLOG")
        : yield* taskLists.resolve(access, input.listId)
      if (list.archivedAt !== null) return yield* new InvalidArgument({ message: `listId: List ${list.ref} is archived` })
      const agentId = input.delegatedToAgentId == null ? null : yield* checkAgent(access, input.delegatedToAgentId)
      // Delegating an ownerless task makes the caller accountable, unless the caller says no owner.
      const assigneeId = input.assigneeId !== undefined
        ? input.assigneeId === null ? null : yield* checkAssignee(access, input.assigneeId)
        : agentId !== null
        ? principal.userId
        : null
      const label = input.label === undefined ? null : yield* resolveLabel(access, input.label)
      const externalLinks = input.externalLinks ?? []
      if (externalLinks.length > MAX_EXTERNAL_LINKS) {
        return yield* new LimitExceeded({ message: `externalLinks: a task holds at most ${MAX_EXTERNAL_LINKS} links` })
      }
      const duplicate = externalLinks.find((link, i) => externalLinks.findIndex((other) => other.id === link.id) !== i)
      if (duplicate !== undefined) {
        return yield* new InvalidArgument({ message: `externalLinks: the link id ${duplicate.id} is used twice` })
      }

      const id = TaskId.generate()
      const ref = yield* sql.withTransaction(Effect.gen(function*() {
        // The project row's lock makes numbers gapless and unique under concurrent creates.
        const [counter] = yield* takeNumber(access.project.id)
        if (counter === undefined) return yield* Effect.dieMessage(`project ${access.project.id} vanished while creating a task`)
        const ref = `${access.project.ref}-${counter.n}`
        const [last] = yield* lastRank({ projectId: access.project.id, parentId: parent?.task.id ?? null })
        const rank = yield* rankAfter(last?.rank ?? null)
        yield* sql`INSERT INTO tasks (id, project_id, number, ref, parent_id, list_id, name, description, description_text,
            task_type_key, priority, status, due_at, assignee_id, delegated_to_agent_id, tags, label_id, rank, created_by)
          VALUES (${id}, ${access.project.id}, ${counter.n}, ${ref}, ${parent?.task.id ?? null}, ${list.id}, ${input.name.trim()},
            ${description === undefined ? null : jsonb(sql, description.document)}, ${description?.text ?? ""},
            ${input.taskTypeKey ?? "task"}, ${input.priority ?? "None"}, ${status},
            ${input.dueDate === undefined ? null : new Date(input.dueDate * 1000)}, ${assigneeId}, ${agentId},
            ${jsonb(sql, input.tags ?? [])}, ${label?.id ?? null}, ${rank}, ${principal.userId})`
        yield* links.insert(id, externalLinks)
        return ref
      })).pipe(Effect.catchTags({ SqlError: concurrentChange, ParseError: Effect.die }))
      return { taskId: id, refId: ref, ...(yield* reads.paths(access, ref)) }
    })

    const update = Effect.fn("TaskWrites.update")(function*(principal: Principal, resolved: ResolvedTask, changes: TaskChanges) {
      const { access, task } = resolved
      yield* requireWrite(access)
      const sets: Array<Fragment> = []
      if (changes.name !== undefined) sets.push(sql`name = ${changes.name.trim()}`)
      if (changes.description !== undefined) {
        if (changes.description === null) sets.push(sql`description = NULL, description_text = ''`)
        else {
          const description = yield* normalizeDescription(changes.description)
          sets.push(sql`description = ${jsonb(sql, description.document)}, description_text = ${description.text}`)
        }
      }
      if (changes.taskTypeKey !== undefined) sets.push(sql`task_type_key = ${changes.taskTypeKey ?? "task"}`)
      if (changes.priority !== undefined) sets.push(sql`priority = ${changes.priority}`)
      if (changes.status !== undefined) sets.push(sql`status = ${yield* checkStatus(access, changes.status)}`)
      if (changes.dueDate !== undefined) sets.push(sql`due_at = ${changes.dueDate === null ? null : new Date(changes.dueDate * 1000)}`)
      if (changes.tags !== undefined) sets.push(sql`tags = ${jsonb(sql, changes.tags)}`)
      if (changes.label !== undefined) {
        sets.push(sql`label_id = ${changes.label === null ? null : (yield* resolveLabel(access, changes.label)).id}`)
      }
      const agentId = changes.delegatedToAgentId == null
        ? changes.delegatedToAgentId
        : yield* checkAgent(access, changes.delegatedToAgentId)
      if (agentId !== undefined) sets.push(sql`delegated_to_agent_id = ${agentId}`)
      if (changes.assigneeId !== undefined) {
        sets.push(sql`assignee_id = ${changes.assigneeId === null ? null : yield* checkAssignee(access, changes.assigneeId)}`)
      } else if (agentId != null && task.assigneeId === null) {
        // Delegating an ownerless task makes the caller accountable (an explicit assigneeId: null keeps it ownerless).
        sets.push(sql`assignee_id = ${principal.userId}`)
      }
      if (sets.length === 0) return { taskId: task.id }
      yield* sql`UPDATE tasks SET ${sql.csv(sets)}, updated_at = now() WHERE id = ${task.id}`.pipe(
        Effect.catchTag("SqlError", concurrentChange)
      )
      return { taskId: task.id }
    })

    return { create, update } as const
  }),
  dependencies: [TaskReads.Default, TaskLinks.Default, TaskLists.Default, Labels.Default]
}) {}
