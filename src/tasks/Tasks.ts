import * as PageCursor from "../../catalog/domain/PageCursor.js"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Either, Option, Schema } from "effect"
import { canWrite } from "../platform/auth/Permissions.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { Conflict, Forbidden, InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { isForeignKeyViolation } from "../platform/sql/SqlErrors.js"
import { LabelId, ProjectId, TaskCommentId, TaskId, TaskListId } from "../../catalog/domain/Ids.js"
import { rankAfter } from "../../catalog/domain/Rank.js"
import * as RichText from "../../catalog/domain/RichText.js"
import {
  Link,
  MAX_COMMENTS_ON_GET,
  MAX_EXTERNAL_LINKS,
  parseTaskAddress,
  Priority,
  SOFT_DELETE_RETENTION_DAYS,
  TASK_ADDRESS_RULE
} from "../../catalog/domain/Task.js"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { Labels } from "../lists-labels/Labels.js"
import { Projects } from "../projects/Projects.js"
import { TaskLists } from "../lists-labels/TaskLists.js"

/** A task as read from the database, with its projections joined in. */
export const TaskRow = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  ref: Schema.String,
  name: Schema.String,
  taskTypeKey: Schema.String,
  status: Schema.String,
  priority: Priority,
  dueDate: Schema.NullOr(Schema.Number),
  assigneeId: Schema.NullOr(Schema.String),
  assigneeName: Schema.NullOr(Schema.String),
  assigneeEmail: Schema.NullOr(Schema.String),
  agentId: Schema.NullOr(Schema.String),
  agentName: Schema.NullOr(Schema.String),
  labelId: Schema.NullOr(LabelId),
  labelName: Schema.NullOr(Schema.String),
  labelColor: Schema.NullOr(Schema.String),
  listId: TaskListId,
  listRef: Schema.String,
  listName: Schema.String,
  parentId: Schema.NullOr(Schema.String),
  tags: Schema.Array(Schema.String),
  description: Schema.NullOr(RichText.RichTextDocument),
  subtaskCount: Schema.Number,
  archivedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type TaskRow = typeof TaskRow.Type

export const StoredLink = Schema.Struct({
  taskId: Schema.String,
  id: Schema.String,
  link: Link,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type StoredLink = typeof StoredLink.Type

const decodeRows = Schema.decodeUnknown(Schema.Array(TaskRow))
const decodeLinks = Schema.decodeUnknown(Schema.Array(StoredLink))

export interface NewTask {
  readonly name: string
  readonly description?: string | undefined
  readonly taskTypeKey?: string | undefined
  readonly parentId?: string | undefined
  readonly listId?: string | undefined
  readonly priority?: Priority | undefined
  readonly status?: string | undefined
  readonly dueDate?: number | undefined
  readonly assigneeId?: string | null | undefined
  readonly delegatedToAgentId?: string | null | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly label?: string | undefined
  readonly externalLinks?: ReadonlyArray<{ readonly id: string } & Link> | undefined
}

export interface TaskChanges {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  readonly taskTypeKey?: string | null | undefined
  readonly priority?: Priority | undefined
  readonly status?: string | undefined
  readonly dueDate?: number | null | undefined
  readonly assigneeId?: string | null | undefined
  readonly delegatedToAgentId?: string | null | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly label?: string | null | undefined
}

export interface TaskSearch {
  readonly query: string
  readonly archiveMode?: "active" | "archived" | undefined
  readonly filters?: {
    readonly status?: string | undefined
    readonly assigneeId?: string | null | undefined
    readonly delegatedToAgentId?: string | null | undefined
  } | undefined
  readonly listId?: string | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | null | undefined
}

export interface TaskFilter {
  readonly includeArchived?: boolean | undefined
  readonly statuses?: ReadonlyArray<string> | undefined
  readonly listId?: string | undefined
}

/** A task found for a caller, with the caller's access to its project. */
export interface ResolvedTask {
  readonly task: TaskRow
  readonly access: ProjectAccess
}

/** Writing a project's tasks and what hangs off them (comments, artifacts) needs the role member or admin. */
export const requireWrite = (access: ProjectAccess, what = "tasks") =>
  canWrite(access.role)
    ? Effect.void
    : new Forbidden({ message: `changing ${what} in project ${access.project.ref} requires the project role member or admin; the caller is ${access.role}` })

/** Checked references can vanish before the write commits (a label deleted meanwhile): the call is refused whole. */
const concurrentChange = (error: SqlError) =>
  isForeignKeyViolation(error)
    ? new Conflict({ message: "a List, label, agent, user or parent task named in this call was removed meanwhile; nothing was written, retry" })
    : Effect.die(error)

const decodeTags = Schema.decodeUnknownOption(Schema.Array(Schema.String))

export class Tasks extends Effect.Service<Tasks>()("trellis/Tasks", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Passed as JSON text: node-postgres would turn a JS array parameter into a PostgreSQL array literal.
    const jsonb = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`
    const projects = yield* Projects
    const taskLists = yield* TaskLists
    const labels = yield* Labels
    const config = yield* TrellisConfig

    const selectTasks = (description: Fragment) => sql`
      SELECT t.id, t.project_id AS "projectId", t.ref, t.name, t.task_type_key AS "taskTypeKey", t.status, t.priority,
        extract(epoch FROM t.due_at)::float8 AS "dueDate",
        t.assignee_id AS "assigneeId", u.name AS "assigneeName", u.email AS "assigneeEmail",
        t.delegated_to_agent_id AS "agentId", a.name AS "agentName",
        t.label_id AS "labelId", lb.name AS "labelName", lb.color AS "labelColor",
        t.list_id AS "listId", l.ref AS "listRef", l.name AS "listName",
        t.parent_id AS "parentId", t.tags, ${description},
        (SELECT count(*)::int FROM tasks c WHERE c.parent_id = t.id AND c.deleted_at IS NULL) AS "subtaskCount",
        t.archived_at AS "archivedAt", t.created_at AS "createdAt", t.updated_at AS "updatedAt"
      FROM tasks t
      JOIN task_lists l ON l.id = t.list_id
      LEFT JOIN users u ON u.id = t.assignee_id
      LEFT JOIN project_agents a ON a.id = t.delegated_to_agent_id
      LEFT JOIN labels lb ON lb.id = t.label_id`

    /** Tasks matching a condition, in rank order; descriptions only when asked (lists do not show them). */
    const findRows = (condition: Fragment, withDescription = false) =>
      sql`${selectTasks(withDescription ? sql`t.description` : sql`NULL::jsonb AS description`)} WHERE t.deleted_at IS NULL AND ${condition} ORDER BY t.rank, t.id`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie
      )

    const notFound = (address: string, field: string) => new NotFound({ message: `${field}: task ${address} not found` })

    /** Finds a task by ID, bare ref (in the given or default project) or scoped ref, for this caller. */
    const resolve = Effect.fn("Tasks.resolve")(function* (
      principal: Principal,
      address: string,
      project: string | null,
      field = "taskId"
    ) {
      const parsed = parseTaskAddress(address)
      if (parsed === undefined) return yield* new InvalidArgument({ message: `${field}: "${address}" is not ${TASK_ADDRESS_RULE}` })
      const lookup: Effect.Effect<ReadonlyArray<{ readonly projectId: string }>, InvalidArgument | SqlError> =
        parsed._tag === "Id"
          ? sql`SELECT project_id AS "projectId" FROM tasks WHERE id = ${parsed.id} AND deleted_at IS NULL`
          : parsed._tag === "ScopedRef"
          ? sql`SELECT p.id AS "projectId" FROM projects p JOIN organizations o ON o.id = p.organization_id
              WHERE o.slug = ${parsed.organizationSlug} AND p.ref = ${parsed.projectRef}`
          : project === null
          ? Effect.fail(new InvalidArgument({
            message: `projectId: needed to resolve the bare ref ${address} (or use a scoped ref such as acme/${address})`
          }))
          : Effect.succeed([{ projectId: project }])
      const projectRow = yield* lookup.pipe(Effect.catchTag("SqlError", Effect.die))
      const projectId = projectRow[0]?.projectId
      if (projectId === undefined) return yield* notFound(address, field)
      const decodedProject = Schema.decodeUnknownOption(ProjectId)(projectId)
      if (Option.isNone(decodedProject)) {
        return yield* new InvalidArgument({ message: `projectId: ${projectId} is not a project ID (proj_…)` })
      }
      const access = yield* projects.access(principal, decodedProject.value).pipe(
        Effect.catchTag("NotFound", () => parsed._tag === "BareRef" ? Effect.fail(new NotFound({ message: `projectId: project ${projectId} not found` })) : notFound(address, field))
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

    const statusesOf = (access: ProjectAccess) =>
      sql<{ statuses: unknown }>`SELECT task_statuses AS statuses FROM projects WHERE id = ${access.project.id}`.pipe(
        Effect.orDie,
        Effect.map((rows): ReadonlyArray<string> => Option.getOrElse(decodeTags(rows[0]?.statuses), () => []))
      )

    const checkStatus = (access: ProjectAccess, status: string) =>
      Effect.flatMap(statusesOf(access), (statuses) =>
        statuses.includes(status)
          ? Effect.succeed(status)
          : new InvalidArgument({ message: `status: "${status}" is not a status of project ${access.project.ref} (${statuses.join(", ")})` }))

    const checkAssignee = (access: ProjectAccess, userId: string) =>
      Effect.gen(function* () {
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
      Effect.gen(function* () {
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

    const normalizeDescription = (description: string) =>
      Either.map(RichText.normalize(description, "description"), (document) => ({
        document,
        text: RichText.plainText(document)
      }))

    const paths = (access: ProjectAccess, ref: string) => {
      const path = `/${access.project.organizationSlug}/${access.project.ref}/tasks/${ref}`
      return Option.match(config.appUrl, {
        onNone: () => ({ taskPath: null, taskUrl: null }),
        onSome: (base) => ({ taskPath: path, taskUrl: `${base.replace(/\/+$/, "")}${path}` })
      })
    }

    const insertLinks = (taskId: string, links: ReadonlyArray<{ readonly id: string } & Link>) =>
      Effect.forEach(links, ({ id, ...link }, position) =>
        sql`INSERT INTO task_links (task_id, id, position, link) VALUES (${taskId}, ${id}, ${position}, ${jsonb(link)})`, { discard: true })

    const create = Effect.fn("Tasks.create")(function* (principal: Principal, access: ProjectAccess, input: NewTask) {
      yield* requireWrite(access)
      const description = input.description === undefined ? undefined : yield* normalizeDescription(input.description)
      const status = input.status === undefined
        ? (yield* statusesOf(access))[0] ?? "To Do"
        : yield* checkStatus(access, input.status)
      const parent = input.parentId === undefined
        ? undefined
        : yield* resolve(principal, input.parentId, access.project.id, "parentId")
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
        : agentId !== null ? principal.userId : null
      const label = input.label === undefined ? null : yield* resolveLabel(access, input.label)
      const links = input.externalLinks ?? []
      if (links.length > MAX_EXTERNAL_LINKS) {
        return yield* new LimitExceeded({ message: `externalLinks: a task holds at most ${MAX_EXTERNAL_LINKS} links` })
      }
      const duplicate = links.find((link, i) => links.findIndex((other) => other.id === link.id) !== i)
      if (duplicate !== undefined) return yield* new InvalidArgument({ message: `externalLinks: the link id ${duplicate.id} is used twice` })

      const id = TaskId.generate()
      const ref = yield* sql.withTransaction(Effect.gen(function* () {
        // The project row's lock makes numbers gapless and unique under concurrent creates.
        const [counter] = yield* sql<{ n: number }>`UPDATE projects SET task_counter = task_counter + 1
          WHERE id = ${access.project.id} RETURNING task_counter AS n`
        if (counter === undefined) return yield* Effect.dieMessage(`project ${access.project.id} vanished while creating a task`)
        const ref = `${access.project.ref}-${counter.n}`
        const [last] = yield* sql<{ rank: string | null }>`SELECT max(rank) AS rank FROM tasks
          WHERE project_id = ${access.project.id} AND parent_id IS NOT DISTINCT FROM ${parent?.task.id ?? null}`
        const rank = yield* rankAfter(last?.rank ?? null)
        yield* sql`INSERT INTO tasks (id, project_id, number, ref, parent_id, list_id, name, description, description_text,
            task_type_key, priority, status, due_at, assignee_id, delegated_to_agent_id, tags, label_id, rank, created_by)
          VALUES (${id}, ${access.project.id}, ${counter.n}, ${ref}, ${parent?.task.id ?? null}, ${list.id}, ${input.name.trim()},
            ${description === undefined ? null : jsonb(description.document)}, ${description?.text ?? ""},
            ${input.taskTypeKey ?? "task"}, ${input.priority ?? "None"}, ${status},
            ${input.dueDate === undefined ? null : new Date(input.dueDate * 1000)}, ${assigneeId}, ${agentId},
            ${jsonb(input.tags ?? [])}, ${label?.id ?? null}, ${rank}, ${principal.userId})`
        yield* insertLinks(id, links)
        return ref
      })).pipe(Effect.catchTag("SqlError", concurrentChange))
      return { taskId: id, refId: ref, ...paths(access, ref) }
    })

    const update = Effect.fn("Tasks.update")(function* (principal: Principal, resolved: ResolvedTask, changes: TaskChanges) {
      const { access, task } = resolved
      yield* requireWrite(access)
      const sets: Array<Fragment> = []
      if (changes.name !== undefined) sets.push(sql`name = ${changes.name.trim()}`)
      if (changes.description !== undefined) {
        if (changes.description === null) sets.push(sql`description = NULL, description_text = ''`)
        else {
          const description = yield* normalizeDescription(changes.description)
          sets.push(sql`description = ${jsonb(description.document)}, description_text = ${description.text}`)
        }
      }
      if (changes.taskTypeKey !== undefined) sets.push(sql`task_type_key = ${changes.taskTypeKey ?? "task"}`)
      if (changes.priority !== undefined) sets.push(sql`priority = ${changes.priority}`)
      if (changes.status !== undefined) sets.push(sql`status = ${yield* checkStatus(access, changes.status)}`)
      if (changes.dueDate !== undefined) sets.push(sql`due_at = ${changes.dueDate === null ? null : new Date(changes.dueDate * 1000)}`)
      if (changes.tags !== undefined) sets.push(sql`tags = ${jsonb(changes.tags)}`)
      if (changes.label !== undefined) {
        sets.push(sql`label_id = ${changes.label === null ? null : (yield* resolveLabel(access, changes.label)).id}`)
      }
      const agentId = changes.delegatedToAgentId == null ? changes.delegatedToAgentId : yield* checkAgent(access, changes.delegatedToAgentId)
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

    const list = Effect.fn("Tasks.list")(function* (access: ProjectAccess, filter: TaskFilter) {
      if (filter.statuses !== undefined && filter.statuses.length === 0) return []
      const listId = filter.listId === undefined ? undefined : (yield* taskLists.resolve(access, filter.listId)).id
      return yield* findRows(sql.and([
        sql`t.project_id = ${access.project.id}`,
        ...(filter.includeArchived === true ? [] : [sql`t.archived_at IS NULL`]),
        ...(filter.statuses === undefined ? [] : [sql`t.status IN ${sql.in(filter.statuses)}`]),
        ...(listId === undefined ? [] : [sql`t.list_id = ${listId}`])
      ]))
    })

    const linksOf = (taskIds: ReadonlyArray<string>) =>
      taskIds.length === 0
        ? Effect.succeed([] as ReadonlyArray<StoredLink>)
        : sql`SELECT task_id AS "taskId", id, link, created_at AS "createdAt", updated_at AS "updatedAt"
          FROM task_links WHERE task_id IN ${sql.in(taskIds)} ORDER BY task_id, position, created_at`.pipe(
          Effect.flatMap(decodeLinks),
          Effect.orDie
        )

    const details = Effect.fn("Tasks.details")(function* (resolved: ResolvedTask) {
      const { access, task } = resolved
      const links = yield* linksOf([task.id])
      const comments = yield* sql<{ commentId: string; authorId: string; authorName: string; content: string; createdAt: Date }>`
        SELECT * FROM (
          SELECT c.id AS "commentId", c.author_id AS "authorId", u.name AS "authorName", c.content, c.created_at AS "createdAt"
          FROM task_comments c JOIN users u ON u.id = c.author_id
          WHERE c.task_id = ${task.id} ORDER BY c.created_at DESC, c.id DESC LIMIT ${MAX_COMMENTS_ON_GET}
        ) latest ORDER BY "createdAt", "commentId"`.pipe(Effect.orDie)
      const subtasks = yield* findRows(sql`t.parent_id = ${task.id}`)
      return { task, access, links, comments, subtasks, ...paths(access, task.ref) }
    })

    const addComment = Effect.fn("Tasks.addComment")(function* (principal: Principal, resolved: ResolvedTask, content: string) {
      yield* requireWrite(resolved.access)
      const id = TaskCommentId.generate()
      yield* sql`INSERT INTO task_comments (id, task_id, author_id, content)
        VALUES (${id}, ${resolved.task.id}, ${principal.userId}, ${content.trim()})`.pipe(Effect.orDie)
      return { commentId: id, taskId: resolved.task.id }
    })

    /** Adds or replaces (in place, keeping createdAt) the link with this id; deleting is idempotent. */
    const updateLink = Effect.fn("Tasks.updateLink")(function* (
      resolved: ResolvedTask,
      change: { readonly op: "upsert"; readonly id: string; readonly link: Link } | { readonly op: "delete"; readonly id: string }
    ) {
      yield* requireWrite(resolved.access)
      const taskId = resolved.task.id
      yield* sql.withTransaction(Effect.gen(function* () {
        // Serializes link changes per task, so the limit holds under concurrent upserts.
        yield* sql`SELECT 1 FROM tasks WHERE id = ${taskId} FOR UPDATE`
        if (change.op === "delete") {
          yield* sql`DELETE FROM task_links WHERE task_id = ${taskId} AND id = ${change.id}`
          return
        }
        const updated = yield* sql`UPDATE task_links SET link = ${jsonb(change.link)}, updated_at = now()
          WHERE task_id = ${taskId} AND id = ${change.id} RETURNING id`
        if (updated.length > 0) return
        const [count] = yield* sql<{ n: number; next: number }>`SELECT count(*)::int AS n, coalesce(max(position) + 1, 0)::int AS next
          FROM task_links WHERE task_id = ${taskId}`
        if ((count?.n ?? 0) >= MAX_EXTERNAL_LINKS) {
          return yield* new LimitExceeded({ message: `externalLinks: task ${resolved.task.ref} already has ${MAX_EXTERNAL_LINKS} links, the most a task holds` })
        }
        yield* sql`INSERT INTO task_links (task_id, id, position, link) VALUES (${taskId}, ${change.id}, ${count?.next ?? 0}, ${jsonb(change.link)})`
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* sql`UPDATE tasks SET updated_at = now() WHERE id = ${taskId}`.pipe(Effect.orDie)
      return yield* linksOf([taskId])
    })

    /** After the last match's (score, id); a score is finite (JSON's 1e999 would decode to Infinity). */
    const searchCursor = PageCursor.make("search_tasks", Schema.Tuple(Schema.Finite, Schema.String))

    /** Full-text search, best matches first (ties by ID), paged with an opaque (score, id) cursor. */
    const search = Effect.fn("Tasks.search")(function* (access: ProjectAccess, input: TaskSearch) {
      const limit = input.limit ?? 20
      const after = yield* searchCursor.decode(input.cursor)
      const listId = input.listId === undefined ? undefined : (yield* taskLists.resolve(access, input.listId)).id
      const filters = input.filters ?? {}
      // A query that is a task ref finds that task first; refs are not in the text index.
      const refQuery = input.query.trim().toUpperCase()
      const conditions = sql.and([
        sql`t.project_id = ${access.project.id}`,
        sql`(t.search @@ q.query OR t.ref = ${refQuery})`,
        input.archiveMode === "archived" ? sql`t.archived_at IS NOT NULL` : sql`t.archived_at IS NULL`,
        ...(filters.status === undefined ? [] : [sql`t.status = ${filters.status}`]),
        ...(filters.assigneeId === undefined ? [] : [filters.assigneeId === null ? sql`t.assignee_id IS NULL` : sql`t.assignee_id = ${filters.assigneeId}`]),
        ...(filters.delegatedToAgentId === undefined
          ? []
          : [filters.delegatedToAgentId === null ? sql`t.delegated_to_agent_id IS NULL` : sql`t.delegated_to_agent_id = ${filters.delegatedToAgentId}`]),
        ...(listId === undefined ? [] : [sql`t.list_id = ${listId}`])
      ])
      const page = yield* sql<{ id: string; score: number }>`
        SELECT id, score FROM (
          SELECT t.id, CASE WHEN t.ref = ${refQuery} THEN 1e6 ELSE ts_rank(t.search, q.query) END::float8 AS score
          FROM tasks t, websearch_to_tsquery('simple', ${input.query}) AS q(query)
          WHERE t.deleted_at IS NULL AND ${conditions}
        ) matches
        ${after === null ? sql`` : sql`WHERE (score < ${after[0]} OR (score = ${after[0]} AND id > ${after[1]}))`}
        ORDER BY score DESC, id
        LIMIT ${limit + 1}`.pipe(Effect.orDie)
      const shown = page.slice(0, limit)
      const rows = shown.length === 0 ? [] : yield* findRows(sql`t.id IN ${sql.in(shown.map((row) => row.id))}`)
      const byId = new Map(rows.map((row) => [row.id, row]))
      const last = shown.at(-1)
      return {
        tasks: shown.flatMap((row) => byId.get(row.id) ?? []),
        nextCursor: page.length > limit && last !== undefined ? searchCursor.encode([last.score, last.id]) : null
      }
    })

    const descendants = (taskIds: ReadonlyArray<string>) =>
      sql<{ id: string }>`
        WITH RECURSIVE tree AS (
          SELECT id FROM tasks WHERE id IN ${sql.in(taskIds)}
          UNION
          SELECT c.id FROM tasks c JOIN tree ON c.parent_id = tree.id WHERE c.deleted_at IS NULL
        ) SELECT id FROM tree`.pipe(Effect.map((rows) => rows.map((row) => row.id)))

    const nextRank = (projectId: string, parentId: string | null) =>
      Effect.flatMap(
        sql<{ rank: string | null }>`SELECT max(rank) AS rank FROM tasks
          WHERE project_id = ${projectId} AND parent_id IS NOT DISTINCT FROM ${parentId} AND deleted_at IS NULL`,
        (rows) => rankAfter(rows[0]?.rank ?? null)
      )

    /** Moves a task under another task of its project, or to the top level; refuses cycles. */
    const move = Effect.fn("Tasks.move")(function* (resolved: ResolvedTask, parent: ResolvedTask | null) {
      const { access, task } = resolved
      yield* requireWrite(access)
      if (parent !== null && parent.access.project.id !== access.project.id) {
        return yield* new InvalidArgument({ message: `parentId: task ${parent.task.ref} is in another project` })
      }
      yield* sql.withTransaction(Effect.gen(function* () {
        // The project row's lock keeps two concurrent moves from building a cycle together.
        yield* sql`SELECT 1 FROM projects WHERE id = ${access.project.id} FOR NO KEY UPDATE`
        if (parent !== null && (yield* descendants([task.id])).includes(parent.task.id)) {
          return yield* new InvalidArgument({
            message: `parentId: ${parent.task.ref} is ${parent.task.id === task.id ? "the task itself" : `a subtask of ${task.ref}`}; a task cannot move under itself or its own subtasks`
          })
        }
        const rank = yield* nextRank(access.project.id, parent?.task.id ?? null)
        yield* sql`UPDATE tasks SET parent_id = ${parent?.task.id ?? null}, rank = ${rank}, updated_at = now() WHERE id = ${task.id}`
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      return { taskId: task.id, parentId: parent?.task.id ?? null }
    })

    /** Moves tasks, each with its subtree, to an active List of their project, in one transaction. */
    const moveToList = Effect.fn("Tasks.moveToList")(function* (access: ProjectAccess, resolved: ReadonlyArray<ResolvedTask>, listIdOrRef: string) {
      yield* requireWrite(access)
      const foreign = resolved.find((item) => item.access.project.id !== access.project.id)
      if (foreign !== undefined) {
        return yield* new InvalidArgument({ message: `taskIds: ${foreign.task.ref} is in another project than ${resolved[0]?.task.ref}` })
      }
      const list = yield* taskLists.resolve(access, listIdOrRef)
      if (list.archivedAt !== null) return yield* new InvalidArgument({ message: `listId: List ${list.ref} is archived; move tasks to an active List` })
      const ids = resolved.map((item) => item.task.id)
      const moved = yield* sql.withTransaction(Effect.gen(function* () {
        for (const item of resolved) {
          const below = (yield* descendants([item.task.id])).filter((id) => id !== item.task.id)
          const overlap = resolved.find((other) => below.includes(other.task.id))
          if (overlap !== undefined) {
            return yield* new InvalidArgument({
              message: `taskIds: ${overlap.task.ref} is a subtask of ${item.task.ref}, which already moves with its subtasks; name only one of them`
            })
          }
        }
        const all = yield* descendants(ids)
        yield* sql`UPDATE tasks SET list_id = ${list.id}, updated_at = now() WHERE id IN ${sql.in(all)}`
        return all
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      return { listId: list.id, movedTaskIds: moved }
    })

    /** Soft-deletes a task and its subtree, or only the task with its children moved up a level. */
    const remove = Effect.fn("Tasks.remove")(function* (resolved: ResolvedTask, mode: "delete_all" | "keep_children") {
      const { access, task } = resolved
      yield* requireWrite(access)
      return yield* sql.withTransaction(Effect.gen(function* () {
        // Serialized with moves on the project row, and the parent re-read under it, so a move
        // committed since the task was resolved cannot turn the reparenting into a cycle.
        yield* sql`SELECT 1 FROM projects WHERE id = ${access.project.id} FOR NO KEY UPDATE`
        const [current] = yield* sql<{ parentId: string | null }>`SELECT parent_id AS "parentId" FROM tasks WHERE id = ${task.id}`
        const parentId = current?.parentId ?? null
        if (mode === "delete_all") {
          const all = yield* descendants([task.id])
          yield* sql`UPDATE tasks SET deleted_at = now(), updated_at = now() WHERE id IN ${sql.in(all)}`
          return { deletedTaskIds: all }
        }
        const children = yield* sql<{ id: string }>`SELECT id FROM tasks WHERE parent_id = ${task.id} AND deleted_at IS NULL ORDER BY rank, id`
        for (const child of children) {
          const rank = yield* nextRank(access.project.id, parentId)
          yield* sql`UPDATE tasks SET parent_id = ${parentId}, rank = ${rank}, updated_at = now() WHERE id = ${child.id}`
        }
        yield* sql`UPDATE tasks SET deleted_at = now(), updated_at = now() WHERE id = ${task.id}`
        return { deletedTaskIds: [task.id] }
      })).pipe(Effect.orDie)
    })

    /** Removes for good the tasks deleted more than the retention period ago, with their links and comments. */
    const purgeDeleted = Effect.fn("Tasks.purgeDeleted")(function* () {
      return yield* sql.withTransaction(Effect.gen(function* () {
        const expired = sql`SELECT id FROM tasks WHERE deleted_at < now() - make_interval(days => ${SOFT_DELETE_RETENTION_DAYS})`
        yield* sql`DELETE FROM task_links WHERE task_id IN (${expired})`
        yield* sql`DELETE FROM task_comments WHERE task_id IN (${expired})`
        // Their comment threads go with them (ON DELETE CASCADE).
        yield* sql`DELETE FROM task_artifacts WHERE task_id IN (${expired})`
        // Children that stay (not yet expired) cannot point at a purged task: they move to the top level.
        yield* sql`UPDATE tasks SET parent_id = NULL WHERE parent_id IN (${expired}) AND id NOT IN (${expired})`
        const purged = yield* sql<{ id: string }>`DELETE FROM tasks WHERE id IN (${expired}) RETURNING id`
        return purged.length
      })).pipe(Effect.orDie)
    })

    return { resolve, create, update, list, details, linksOf, addComment, updateLink, search, move, moveToList, remove, purgeDeleted } as const
  }),
  dependencies: [Projects.Default, TaskLists.Default, Labels.Default]
}) {}

