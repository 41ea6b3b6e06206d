import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import type { CreateTaskArtifact, ReplaceInTaskArtifact, UpdateTaskArtifact } from "../../catalog/Artifacts.js"
import type { InputOf } from "../../catalog/Tool.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import * as Anchor from "../../catalog/domain/Anchor.js"
import { ArtifactContentType, MAX_ARTIFACT_CONTENT_LENGTH } from "../../catalog/domain/Artifact.js"
import { InvalidArgument, LimitExceeded, NotFound } from "../../catalog/domain/Errors.js"
import { ArtifactId, ProjectId } from "../../catalog/domain/Ids.js"
import { Projects } from "../projects/Projects.js"
import { requireWrite, type ResolvedTask } from "../tasks/TaskAccess.js"

/** An artifact without its content: what lists and get_task show. */
export const ArtifactSummaryRow = Schema.Struct({
  id: ArtifactId,
  taskId: Schema.String,
  projectId: ProjectId,
  name: Schema.String,
  contentType: ArtifactContentType,
  runId: Schema.NullOr(Schema.String),
  authorId: Schema.String,
  authorName: Schema.String,
  openCommentCount: Schema.Number,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type ArtifactSummaryRow = typeof ArtifactSummaryRow.Type

export const ArtifactRow = Schema.Struct({ ...ArtifactSummaryRow.fields, content: Schema.String })
export type ArtifactRow = typeof ArtifactRow.Type

const decodeRows = Schema.decodeUnknown(Schema.Array(ArtifactRow))
const decodeSummaries = Schema.decodeUnknown(Schema.Array(ArtifactSummaryRow))
const decodeContent = Schema.decodeUnknown(Schema.Array(ArtifactRow.pick("content")))
const decodeUpdatedAt = Schema.decodeUnknown(Schema.Array(ArtifactRow.pick("updatedAt")))
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Int })))

/** An artifact found for a caller (without its content unless read), with the caller's access to its project. */
export interface ResolvedArtifact<Row extends ArtifactSummaryRow = ArtifactSummaryRow> {
  readonly artifact: Row
  readonly access: ProjectAccess
}

export type NewArtifact = Omit<InputOf<typeof CreateTaskArtifact>, "taskId" | "projectId">
export type ArtifactChanges = Omit<InputOf<typeof UpdateTaskArtifact>, "artifactId">
export type Replacement = Omit<InputOf<typeof ReplaceInTaskArtifact>, "artifactId">

/** An anchor as stored on a root comment. */
const StoredAnchor = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  start: Schema.Number,
  end: Schema.Number,
  prefix: Schema.String,
  suffix: Schema.String,
  lost: Schema.Boolean
})
const decodeAnchors = Schema.decodeUnknown(Schema.Array(StoredAnchor))

const tooLong = (length: number) =>
  new LimitExceeded({ message: `content: ${length} characters; an artifact holds at most ${MAX_ARTIFACT_CONTENT_LENGTH}` })

export class Artifacts extends Effect.Service<Artifacts>()("trellis/Artifacts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const projects = yield* Projects

    /** Artifacts of live tasks matching a condition, oldest first; content only when asked (lists do not show it). */
    const select = (condition: Fragment, content: Fragment) =>
      sql`
        SELECT a.id, a.task_id AS "taskId", t.project_id AS "projectId", a.name, ${content} a.content_type AS "contentType",
          a.run_id AS "runId", a.author_id AS "authorId", u.name AS "authorName",
          (SELECT count(*)::int FROM artifact_comments c WHERE c.artifact_id = a.id AND c.status = 'open') AS "openCommentCount",
          a.created_at AS "createdAt", a.updated_at AS "updatedAt"
        FROM task_artifacts a
        JOIN tasks t ON t.id = a.task_id AND t.deleted_at IS NULL
        JOIN users u ON u.id = a.author_id
        WHERE ${condition}
        ORDER BY a.created_at, a.id`
    const findRows = (condition: Fragment) => select(condition, sql`a.content,`).pipe(Effect.flatMap(decodeRows), Effect.orDie)
    const findSummaries = (condition: Fragment) => select(condition, sql``).pipe(Effect.flatMap(decodeSummaries), Effect.orDie)

    const notFound = (artifactId: string, field: string) => new NotFound({ message: `${field}: artifact ${artifactId} not found` })

    /** An artifact of a live task in a project the caller reaches; any other is not found (no existence leak). */
    const resolveWith =
      <Row extends ArtifactSummaryRow>(find: (condition: Fragment) => Effect.Effect<ReadonlyArray<Row>>) =>
      (principal: Principal, artifactId: ArtifactId, field = "artifactId") =>
        Effect.gen(function*() {
          const [artifact] = yield* find(sql`a.id = ${artifactId}`)
          if (artifact === undefined) return yield* notFound(artifactId, field)
          const access = yield* projects.access(principal, artifact.projectId).pipe(
            Effect.catchTag("NotFound", () => notFound(artifactId, field))
          )
          return { artifact, access } satisfies ResolvedArtifact<Row>
        })

    /** Finds an artifact for a call that does not show its content (which may be a megabyte). */
    const resolve = Effect.fn("Artifacts.resolve")(resolveWith(findSummaries))

    /** Finds an artifact with its content, to show it. */
    const read = Effect.fn("Artifacts.read")(resolveWith(findRows))

    /** The artifacts of a task, oldest first, without content. */
    const listOf = Effect.fn("Artifacts.listOf")(function*(task: ResolvedTask) {
      return yield* findSummaries(sql`a.task_id = ${task.task.id}`)
    })

    /** The artifacts of several tasks in one query (get_tasks asks for up to 25 tasks at once). */
    const summariesOf = Effect.fn("Artifacts.summariesOf")(function*(taskIds: ReadonlyArray<string>) {
      const byTask = new Map<string, ReadonlyArray<ArtifactSummaryRow>>()
      if (taskIds.length === 0) return byTask
      for (const row of yield* findSummaries(sql`a.task_id IN ${sql.in(taskIds)}`)) {
        byTask.set(row.taskId, [...(byTask.get(row.taskId) ?? []), row])
      }
      return byTask
    })

    const create = Effect.fn("Artifacts.create")(function*(principal: Principal, task: ResolvedTask, input: NewArtifact) {
      yield* requireWrite(task.access, "artifacts")
      const content = input.content ?? ""
      if (content.length > MAX_ARTIFACT_CONTENT_LENGTH) return yield* tooLong(content.length)
      const id = ArtifactId.generate()
      yield* sql`INSERT INTO task_artifacts (id, task_id, name, content, content_type, run_id, author_id)
        VALUES (${id}, ${task.task.id}, ${input.name.trim()}, ${content}, ${input.contentType ?? "markdown"},
          ${input.runId ?? null}, ${principal.userId})`.pipe(Effect.orDie)
      return { artifactId: id, taskId: task.task.id }
    })

    /** Locks the artifact's row until the transaction ends, reading nothing. */
    const lock = (artifactId: string) =>
      sql`SELECT 1 FROM task_artifacts WHERE id = ${artifactId} FOR UPDATE`.pipe(
        Effect.flatMap((rows) => rows.length === 0 ? notFound(artifactId, "artifactId") : Effect.void)
      )

    /** The artifact's current content, its row locked until the transaction ends (content writers serialize on it). */
    const lockContent = (artifactId: string) =>
      sql`SELECT content FROM task_artifacts WHERE id = ${artifactId} FOR UPDATE`.pipe(
        Effect.flatMap((rows) => Effect.orDie(decodeContent(rows))),
        Effect.flatMap(([row]) => row === undefined ? notFound(artifactId, "artifactId") : Effect.succeed(row.content))
      )

    const anchorsOf = (artifactId: string, status: "open" | "resolved", ids?: ReadonlyArray<string>) =>
      sql`SELECT id, anchor_text AS text, anchor_start AS start, anchor_end AS "end", anchor_prefix AS prefix,
          anchor_suffix AS suffix, anchor_lost AS lost
        FROM artifact_comments WHERE artifact_id = ${artifactId} AND status = ${status}
        ${ids === undefined ? sql`` : sql`AND id IN ${sql.in(ids)}`}`.pipe(Effect.flatMap(decodeAnchors), Effect.orDie)

    /**
     * Moves anchors to where their snippets are in `content` (see Anchor.relocate), in one
     * statement; call it inside the transaction that holds the artifact's lock. Returns the IDs of
     * the threads whose snippet is gone.
     */
    const reanchor = (
      artifactId: string,
      content: string,
      options: { readonly status: "open" | "resolved"; readonly ids?: ReadonlyArray<string>; readonly change?: Anchor.Change }
    ) =>
      Effect.gen(function*() {
        const stored = yield* anchorsOf(artifactId, options.status, options.ids)
        const moved = stored.map((anchor) => ({ id: anchor.id, ...Anchor.relocate(anchor, content, options.change) }))
        const changed = moved.filter((anchor, i) => {
          const before = stored[i]
          return before === undefined || anchor.start !== before.start || anchor.lost !== before.lost ||
            anchor.prefix !== before.prefix || anchor.suffix !== before.suffix
        })
        if (changed.length > 0) {
          yield* sql`UPDATE artifact_comments c SET anchor_start = v.start, anchor_end = v."end", anchor_prefix = v.prefix,
              anchor_suffix = v.suffix, anchor_lost = v.lost
            FROM jsonb_to_recordset(${JSON.stringify(changed)}::jsonb)
              AS v(id text, start integer, "end" integer, prefix text, suffix text, lost boolean)
            WHERE c.id = v.id`.pipe(Effect.orDie)
        }
        return moved.filter((anchor) => anchor.lost).map((anchor) => anchor.id)
      })

    /** Writes new content and re-anchors the open threads, in the caller's transaction. */
    const writeContent = (artifactId: string, before: string, after: string) =>
      Effect.gen(function*() {
        if (after.length > MAX_ARTIFACT_CONTENT_LENGTH) return yield* tooLong(after.length)
        yield* sql`UPDATE task_artifacts SET content = ${after}, updated_at = now() WHERE id = ${artifactId}`.pipe(Effect.orDie)
        return yield* reanchor(artifactId, after, { status: "open", change: Anchor.changeBetween(before, after) })
      })

    const updatedAt = (artifactId: string) =>
      sql`SELECT updated_at AS "updatedAt" FROM task_artifacts WHERE id = ${artifactId}`.pipe(
        Effect.flatMap(decodeUpdatedAt),
        Effect.orDie,
        Effect.flatMap(([row]) => row === undefined ? notFound(artifactId, "artifactId") : Effect.succeed(row.updatedAt))
      )

    /** Changes the given fields only; new content re-anchors the open threads in the same transaction. */
    const update = Effect.fn("Artifacts.update")(function*(resolved: ResolvedArtifact, changes: ArtifactChanges) {
      yield* requireWrite(resolved.access, "artifacts")
      const id = resolved.artifact.id
      return yield* sql.withTransaction(Effect.gen(function*() {
        const before = yield* lockContent(id)
        const lostCommentIds = changes.content === undefined ? [] : yield* writeContent(id, before, changes.content)
        const sets = [
          ...(changes.name === undefined ? [] : [sql`name = ${changes.name.trim()}`]),
          ...(changes.runId === undefined ? [] : [sql`run_id = ${changes.runId}`])
        ]
        if (sets.length > 0) yield* sql`UPDATE task_artifacts SET ${sql.csv(sets)}, updated_at = now() WHERE id = ${id}`.pipe(Effect.orDie)
        return { artifactId: id, updatedAt: (yield* updatedAt(id)).toISOString(), lostCommentIds }
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /** Swaps an exact string: exactly one match, or every match with `replaceAll`. */
    const replace = Effect.fn("Artifacts.replace")(function*(resolved: ResolvedArtifact, replacement: Replacement) {
      yield* requireWrite(resolved.access, "artifacts")
      const { newString, oldString } = replacement
      const id = resolved.artifact.id
      return yield* sql.withTransaction(Effect.gen(function*() {
        const before = yield* lockContent(id)
        const matches = Anchor.occurrences(before, oldString)
        const first = matches[0]
        if (first === undefined) {
          return yield* new InvalidArgument({
            message: `oldString: found 0 matches in artifact ${id}; it must match exactly, including whitespace, newlines and casing`
          })
        }
        if (matches.length > 1 && replacement.replaceAll !== true) {
          return yield* new InvalidArgument({
            message:
              `oldString: found ${matches.length} matches in artifact ${id}; add surrounding text to make it unique, or pass replaceAll: true`
          })
        }
        // split/join, not String#replace: `$&` and friends in newString are literal text here.
        const after = replacement.replaceAll === true
          ? before.split(oldString).join(newString)
          : before.slice(0, first) + newString + before.slice(first + oldString.length)
        const lostCommentIds = yield* writeContent(id, before, after)
        return { artifactId: id, replacements: matches.length, updatedAt: (yield* updatedAt(id)).toISOString(), lostCommentIds }
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    /** Moves the artifact, with its comment threads, to another task of its project. */
    const move = Effect.fn("Artifacts.move")(function*(resolved: ResolvedArtifact, target: ResolvedTask) {
      yield* requireWrite(resolved.access, "artifacts")
      if (target.access.project.id !== resolved.access.project.id) {
        return yield* new InvalidArgument({
          message:
            `taskId: task ${target.task.ref} is in another project than artifact ${resolved.artifact.id}; artifacts move only between tasks of their project`
        })
      }
      const id = resolved.artifact.id
      // One statement, so that an artifact or a target task deleted since they were resolved is
      // noticed: the task's row lock waits for a deletion in progress and sees its outcome.
      const moved = yield* sql`UPDATE task_artifacts
        SET task_id = ${target.task.id}, updated_at = CASE WHEN task_id = ${target.task.id} THEN updated_at ELSE now() END
        WHERE id = ${id} AND EXISTS (
          SELECT 1 FROM tasks WHERE id = ${target.task.id} AND deleted_at IS NULL FOR SHARE)
        RETURNING id`.pipe(Effect.orDie)
      if (moved.length === 0) {
        return yield* new NotFound({
          message: `artifactId: artifact ${id} or target task ${target.task.ref} was deleted meanwhile; nothing moved`
        })
      }
      return { artifactId: id, taskId: target.task.id }
    })

    /** Deletes the artifact and every comment on it. */
    const remove = Effect.fn("Artifacts.remove")(function*(resolved: ResolvedArtifact) {
      yield* requireWrite(resolved.access, "artifacts")
      const id = resolved.artifact.id
      return yield* sql.withTransaction(Effect.gen(function*() {
        const [counted] = yield* sql`SELECT count(*)::int AS n FROM artifact_comments WHERE artifact_id = ${id}`.pipe(
          Effect.flatMap(decodeCount)
        )
        // Comments go by ON DELETE CASCADE, in this same statement.
        yield* sql`DELETE FROM task_artifacts WHERE id = ${id}`
        return { artifactId: id, deletedCommentCount: counted?.n ?? 0 }
      })).pipe(Effect.orDie)
    })

    return { resolve, read, listOf, summariesOf, create, update, replace, move, remove, lock, lockContent, reanchor } as const
  }),
  dependencies: [Projects.Default]
}) {}
