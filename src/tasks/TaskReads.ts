import { SqlClient, SqlSchema } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Option, Schema } from "effect"
import type { ListTasks } from "../../catalog/Tasks.js"
import { InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { parseTaskAddress, TASK_ADDRESS_RULE } from "../../catalog/domain/Task.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { baseUrl, RequestOrigin } from "../platform/http/RequestOrigin.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { TaskLists } from "../lists-labels/TaskLists.js"
import { Projects } from "../projects/Projects.js"
import type { ResolvedTask } from "./TaskAccess.js"
import { TaskComments } from "./TaskComments.js"
import { TaskLinks } from "./TaskLinks.js"
import { TaskRow } from "./TaskRow.js"

/** list_tasks' filters. */
export type TaskFilter = Pick<typeof ListTasks.input.Type, "includeArchived" | "statuses" | "listId">

const decodeRows = Schema.decodeUnknown(Schema.Array(TaskRow))
const decodeMatches = Schema.decodeUnknown(Schema.Array(Schema.Struct({ ...TaskRow.fields, score: Schema.Number })))

const ProjectOfTask = Schema.Struct({ projectId: Schema.String })

/** Finding tasks: by the address a caller gives, by List and status, and one task with what hangs off it. */
export class TaskReads extends Effect.Service<TaskReads>()("trellis/TaskReads", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const projects = yield* Projects
    const taskLists = yield* TaskLists
    const links = yield* TaskLinks
    const comments = yield* TaskComments
    const config = yield* TrellisConfig

    const selectTasks = (description: Fragment, extraColumns: Fragment = sql``) =>
      sql`
      SELECT t.id, t.project_id AS "projectId", t.ref, t.name, t.task_type_key AS "taskTypeKey", t.status, t.priority,
        extract(epoch FROM t.due_at)::float8 AS "dueDate",
        t.assignee_id AS "assigneeId", u.name AS "assigneeName", u.email AS "assigneeEmail",
        t.delegated_to_agent_id AS "agentId", a.name AS "agentName",
        t.label_id AS "labelId", lb.name AS "labelName", lb.color AS "labelColor",
        t.list_id AS "listId", l.ref AS "listRef", l.name AS "listName",
        t.parent_id AS "parentId", t.tags, ${description},
        (SELECT count(*)::int FROM tasks c WHERE c.parent_id = t.id AND c.deleted_at IS NULL) AS "subtaskCount",
        t.archived_at AS "archivedAt", t.created_at AS "createdAt", t.updated_at AS "updatedAt"${extraColumns}
      FROM tasks t
      JOIN task_lists l ON l.id = t.list_id
      LEFT JOIN users u ON u.id = t.assignee_id
      LEFT JOIN project_agents a ON a.id = t.delegated_to_agent_id
      LEFT JOIN labels lb ON lb.id = t.label_id`

    /** Tasks matching a condition, in rank order; descriptions only when asked (lists do not show them). */
    const findRows = (condition: Fragment, withDescription = false) =>
      sql`${
        selectTasks(withDescription ? sql`t.description` : sql`NULL::jsonb AS description`)
      } WHERE t.deleted_at IS NULL AND ${condition} ORDER BY t.rank, t.id`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie
      )

    /**
     * The tasks a ranking query (`id, score` rows) chose, best first, ties by ID, each with its score:
     * one statement, so a search is one round trip and reads one snapshot.
     */
    const findMatches = (matches: Fragment) =>
      sql`WITH matches AS (${matches}) ${selectTasks(sql`NULL::jsonb AS description`, sql`, m.score`)}
      JOIN matches m ON m.id = t.id
      ORDER BY m.score DESC, t.id`.pipe(Effect.flatMap(decodeMatches), Effect.orDie)

    const projectOfTask = SqlSchema.findOne({
      Request: Schema.String,
      Result: ProjectOfTask,
      execute: (taskId) => sql`SELECT project_id AS "projectId" FROM tasks WHERE id = ${taskId} AND deleted_at IS NULL`
    })

    const projectOfScopedRef = SqlSchema.findOne({
      Request: Schema.Struct({ organizationSlug: Schema.String, projectRef: Schema.String }),
      Result: ProjectOfTask,
      execute: ({ organizationSlug, projectRef }) =>
        sql`SELECT p.id AS "projectId" FROM projects p JOIN organizations o ON o.id = p.organization_id
          WHERE o.slug = ${organizationSlug} AND p.ref = ${projectRef}`
    })

    const notFound = (address: string, field: string) => new NotFound({ message: `${field}: task ${address} not found` })

    /** Finds a task by ID, bare ref (in the given or default project) or scoped ref, for this caller. */
    const resolve = Effect.fn("TaskReads.resolve")(function*(
      principal: Principal,
      address: string,
      project: string | null,
      field = "taskId"
    ) {
      const parsed = parseTaskAddress(address)
      if (parsed === undefined) return yield* new InvalidArgument({ message: `${field}: "${address}" is not ${TASK_ADDRESS_RULE}` })
      const lookup: Effect.Effect<Option.Option<{ readonly projectId: string }>, InvalidArgument> = parsed._tag === "Id"
        ? projectOfTask(parsed.id).pipe(Effect.orDie)
        : parsed._tag === "ScopedRef"
        ? projectOfScopedRef(parsed).pipe(Effect.orDie)
        : project === null
        ? Effect.fail(
          new InvalidArgument({
            message: `projectId: needed to resolve the bare ref ${address} (or use a scoped ref such as acme/${address})`
          })
        )
        : Effect.succeed(Option.some({ projectId: project }))
      const projectRow = yield* lookup
      if (Option.isNone(projectRow)) return yield* notFound(address, field)
      const { projectId } = projectRow.value
      const decodedProject = Schema.decodeUnknownOption(ProjectId)(projectId)
      if (Option.isNone(decodedProject)) {
        return yield* new InvalidArgument({ message: `projectId: ${projectId} is not a project ID (proj_…)` })
      }
      const access = yield* projects.access(principal, decodedProject.value).pipe(
        Effect.catchTag(
          "NotFound",
          () =>
            parsed._tag === "BareRef"
              ? Effect.fail(new NotFound({ message: `projectId: project ${projectId} not found` }))
              : notFound(address, field)
        )
      )
      const condition = parsed._tag === "Id"
        ? sql`t.id = ${parsed.id}`
        : parsed.projectRef !== access.project.ref
        ? sql`false`
        : sql`t.project_id = ${access.project.id} AND t.number = ${parsed.number}`
      const [task] = yield* findRows(condition, true)
      if (task === undefined) return yield* notFound(address, field)
      return { task, access } satisfies ResolvedTask
    })

    const list = Effect.fn("TaskReads.list")(function*(access: ProjectAccess, filter: TaskFilter) {
      if (filter.statuses !== undefined && filter.statuses.length === 0) return []
      const listId = filter.listId === undefined ? undefined : (yield* taskLists.resolve(access, filter.listId)).id
      return yield* findRows(sql.and([
        sql`t.project_id = ${access.project.id}`,
        ...(filter.includeArchived === true ? [] : [sql`t.archived_at IS NULL`]),
        ...(filter.statuses === undefined ? [] : [sql`t.status IN ${sql.in(filter.statuses)}`]),
        ...(listId === undefined ? [] : [sql`t.list_id = ${listId}`])
      ]))
    })

    /**
     * Where the web app shows a task: its page's path, on TRELLIS_APP_URL when one is configured,
     * else on the URL the request reached this server by (the server serves the web app itself).
     */
    const paths = (access: ProjectAccess, ref: string) =>
      Effect.map(RequestOrigin, (origin) => {
        const path = `/projects/${encodeURIComponent(access.project.id)}/tasks/${encodeURIComponent(ref)}`
        const base = Option.getOrElse(config.appUrl, () => baseUrl(config, origin)).replace(/\/+$/, "")
        return { taskPath: path, taskUrl: `${base}${path}` }
      })

    /** A task with its links, latest comments, direct subtasks and web app location. */
    const details = Effect.fn("TaskReads.details")(function*(resolved: ResolvedTask) {
      const { access, task } = resolved
      const taskLinks = yield* links.linksOf([task.id])
      const latestComments = yield* comments.latest(task.id)
      const subtasks = yield* findRows(sql`t.parent_id = ${task.id}`)
      return { task, access, links: taskLinks, comments: latestComments, subtasks, ...(yield* paths(access, task.ref)) }
    })

    return { resolve, list, details, findRows, findMatches, paths } as const
  }),
  dependencies: [Projects.Default, TaskLists.Default, TaskLinks.Default, TaskComments.Default]
}) {}

/** One task as details() reads it, before it is shaped into get_task's result. */
export type TaskDetailRows = Effect.Effect.Success<ReturnType<TaskReads["details"]>>
