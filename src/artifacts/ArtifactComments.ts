import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { Effect, Schema } from "effect"
import type { CreateArtifactComment } from "../../catalog/ArtifactComments.js"
import type { InputOf } from "../../catalog/Tool.js"
import type { Principal, ProjectAccess } from "../platform/auth/Principal.js"
import { isForeignKeyViolation } from "../platform/sql/SqlErrors.js"
import * as Anchor from "../../catalog/domain/Anchor.js"
import { CommentStatus, MAX_COMMENT_IDS_PER_STATUS_BATCH } from "../../catalog/domain/Artifact.js"
import { InvalidArgument, NotFound } from "../../catalog/domain/Errors.js"
import { ArtifactCommentId, ArtifactId, ProjectId } from "../../catalog/domain/Ids.js"
import { Artifacts, type ResolvedArtifact } from "./Artifacts.js"
import { Projects } from "../projects/Projects.js"
import { requireWrite } from "../tasks/TaskAccess.js"

export const CommentRow = Schema.Struct({
  commentId: ArtifactCommentId,
  parentId: Schema.NullOr(Schema.String),
  status: Schema.NullOr(CommentStatus),
  anchorText: Schema.NullOr(Schema.String),
  anchorStart: Schema.NullOr(Schema.Number),
  anchorEnd: Schema.NullOr(Schema.Number),
  anchorLost: Schema.Boolean,
  authorId: Schema.String,
  authorName: Schema.String,
  content: Schema.String,
  createdAt: Schema.DateFromSelf,
  isEdited: Schema.Boolean
})
export type CommentRow = typeof CommentRow.Type

/** A thread's root comment: it carries the status and the anchor (the table's check guarantees both). */
export type RootRow = CommentRow & {
  readonly parentId: null
  readonly status: CommentStatus
  readonly anchorText: string
  readonly anchorStart: number
  readonly anchorEnd: number
}

const isRoot = (row: CommentRow): row is RootRow =>
  row.parentId === null && row.status !== null && row.anchorText !== null && row.anchorStart !== null && row.anchorEnd !== null

/** A root comment with its flat replies, oldest first. */
export interface ThreadRows {
  readonly root: RootRow
  readonly replies: ReadonlyArray<CommentRow>
}

const decodeRows = Schema.decodeUnknown(Schema.Array(CommentRow))

const Located = Schema.Struct({
  id: ArtifactCommentId,
  parentId: Schema.NullOr(Schema.String),
  artifactId: ArtifactId,
  projectId: ProjectId
})
const decodeLocated = Schema.decodeUnknown(Schema.Array(Located))

export type NewThread = Omit<InputOf<typeof CreateArtifactComment>, "artifactId">

const WHAT = "artifact comments"

export class ArtifactComments extends Effect.Service<ArtifactComments>()("trellis/ArtifactComments", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const artifacts = yield* Artifacts
    const projects = yield* Projects

    const selectComments = sql`
      SELECT c.id AS "commentId", c.parent_id AS "parentId", c.status, c.anchor_text AS "anchorText",
        c.anchor_start AS "anchorStart", c.anchor_end AS "anchorEnd", c.anchor_lost AS "anchorLost",
        c.author_id AS "authorId", u.name AS "authorName", c.content, c.created_at AS "createdAt",
        c.edited_at IS NOT NULL AS "isEdited"
      FROM artifact_comments c JOIN users u ON u.id = c.author_id`

    /** Threads made of the comments matching a condition, oldest first, replies grouped under their root. */
    const threadsWhere = (condition: Fragment, status?: CommentStatus) =>
      sql`${selectComments} WHERE ${condition} ORDER BY c.created_at, c.id`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie,
        Effect.map((rows) =>
          rows
            .filter(isRoot)
            .filter((root) => status === undefined || root.status === status)
            .map((root): ThreadRows => ({ root, replies: rows.filter((row) => row.parentId === root.commentId) }))
        )
      )

    /** The artifact's threads, oldest first, optionally only those with one status. */
    const threadsOf = Effect.fn("ArtifactComments.threadsOf")(function*(artifactId: string, status?: CommentStatus) {
      return yield* threadsWhere(sql`c.artifact_id = ${artifactId}`, status)
    })

    const threadOf = (commentId: string) =>
      Effect.flatMap(
        threadsWhere(sql`(c.id = ${commentId} OR c.parent_id = ${commentId})`),
        ([thread]) =>
          thread === undefined ? Effect.dieMessage(`thread ${commentId} vanished in its own transaction`) : Effect.succeed(thread)
      )

    /** Opens a thread on the `occurrence`-th match of an exact snippet of a markdown artifact. */
    const create = Effect.fn("ArtifactComments.create")(function*(principal: Principal, resolved: ResolvedArtifact, input: NewThread) {
      yield* requireWrite(resolved.access, WHAT)
      const { artifact } = resolved
      if (artifact.contentType !== "markdown") {
        return yield* new InvalidArgument({
          message: `artifactId: artifact ${artifact.id} is ${artifact.contentType}; comments anchor only to markdown artifacts`
        })
      }
      const occurrence = input.occurrence ?? 1
      const id = ArtifactCommentId.generate()
      return yield* sql.withTransaction(Effect.gen(function*() {
        // Locked so that no edit lands between finding the snippet and storing its offsets.
        const content = yield* artifacts.lockContent(artifact.id)
        const located = Anchor.locate(content, input.anchorText, occurrence)
        if (located._tag === "Missing") {
          return yield* new InvalidArgument({
            message: located.count === 0
              ? `anchorText: not found in artifact ${artifact.id}; it must match the content exactly, including whitespace, newlines and casing`
              : `occurrence: ${occurrence} asked, but anchorText occurs ${located.count} time${
                located.count === 1 ? "" : "s"
              } in artifact ${artifact.id}`
          })
        }
        const { anchor } = located
        yield* sql`INSERT INTO artifact_comments (id, artifact_id, author_id, content, status, anchor_text, anchor_start,
            anchor_end, anchor_prefix, anchor_suffix)
          VALUES (${id}, ${artifact.id}, ${principal.userId}, ${input.content.trim()}, 'open', ${anchor.text}, ${anchor.start},
            ${anchor.end}, ${anchor.prefix}, ${anchor.suffix})`
        return yield* threadOf(id)
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    const notFound = (commentId: string, field: string) => new NotFound({ message: `${field}: comment ${commentId} not found` })

    /** Where comments are: their thread root (if replies), artifact and project; missing ones are left out. */
    const locate = (commentIds: ReadonlyArray<string>) =>
      sql`SELECT c.id, c.parent_id AS "parentId", c.artifact_id AS "artifactId", t.project_id AS "projectId"
        FROM artifact_comments c
        JOIN task_artifacts a ON a.id = c.artifact_id
        JOIN tasks t ON t.id = a.task_id AND t.deleted_at IS NULL
        WHERE c.id IN ${sql.in(commentIds)}`.pipe(Effect.flatMap(decodeLocated), Effect.orDie)

    /** Adds a reply to a thread; replies are flat, so the comment must be a thread's root. */
    const reply = Effect.fn("ArtifactComments.reply")(function*(principal: Principal, commentId: ArtifactCommentId, content: string) {
      const [found] = yield* locate([commentId])
      if (found === undefined) return yield* notFound(commentId, "commentId")
      const resolved = yield* artifacts.resolve(principal, found.artifactId).pipe(
        Effect.catchTag("NotFound", () => notFound(commentId, "commentId"))
      )
      yield* requireWrite(resolved.access, WHAT)
      if (found.parentId !== null) {
        return yield* new InvalidArgument({
          message: `commentId: ${commentId} is a reply; replies are flat, so reply to its thread's root comment ${found.parentId}`
        })
      }
      const id = ArtifactCommentId.generate()
      yield* sql`INSERT INTO artifact_comments (id, artifact_id, parent_id, author_id, content)
        VALUES (${id}, ${found.artifactId}, ${commentId}, ${principal.userId}, ${content.trim()})`.pipe(
        // The artifact or the thread was deleted since the checks above.
        Effect.catchTag("SqlError", (error) => isForeignKeyViolation(error) ? notFound(commentId, "commentId") : Effect.die(error))
      )
      return { commentId: id, threadId: commentId, artifactId: found.artifactId }
    })

    /**
     * Opens or resolves root comments, all or none: one ID that is unknown, a reply, or in a
     * project the caller cannot change fails the whole batch. A reopened thread is re-anchored
     * first, since resolved anchors are not kept up to date.
     */
    const setStatus = Effect.fn("ArtifactComments.setStatus")(function*(
      principal: Principal,
      commentIds: ReadonlyArray<ArtifactCommentId>,
      status: CommentStatus
    ) {
      // The tool's input declares this limit too; callers of the service get a typed error, not a malformed query.
      if (commentIds.length === 0 || commentIds.length > MAX_COMMENT_IDS_PER_STATUS_BATCH) {
        return yield* new InvalidArgument({
          message: `commentIds: ${commentIds.length} given; a batch names 1 to ${MAX_COMMENT_IDS_PER_STATUS_BATCH} comments`
        })
      }
      const ids = [...new Set(commentIds)]
      return yield* sql.withTransaction(Effect.gen(function*() {
        const found = new Map((yield* locate(ids)).map((row) => [row.id, row]))
        const reached = new Map<string, ProjectAccess>()
        for (const id of ids) {
          const row = found.get(id)
          if (row === undefined) return yield* notFound(id, "commentIds")
          const access = reached.get(row.projectId) ?? (yield* projects.access(principal, row.projectId).pipe(
            Effect.catchTag("NotFound", () => notFound(id, "commentIds"))
          ))
          reached.set(row.projectId, access)
          yield* requireWrite(access, WHAT)
          if (row.parentId !== null) {
            return yield* new InvalidArgument({ message: `commentIds: ${id} is a reply; only a thread's root comment has a status` })
          }
        }
        const artifactIds = [...new Set([...found.values()].map((row) => row.artifactId))].sort()
        const lostCommentIds: Array<string> = []
        for (const artifactId of artifactIds) {
          if (status === "resolved") {
            yield* artifacts.lock(artifactId)
            continue
          }
          const content = yield* artifacts.lockContent(artifactId)
          const reopened = ids.filter((id) => found.get(id)?.artifactId === artifactId)
          lostCommentIds.push(...yield* artifacts.reanchor(artifactId, content, { status: "resolved", ids: reopened }))
        }
        yield* sql`UPDATE artifact_comments SET status = ${status} WHERE id IN ${sql.in(ids)}`
        return { commentIds: ids, status, lostCommentIds: ids.filter((id) => lostCommentIds.includes(id)) }
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    return { threadsOf, create, reply, setStatus } as const
  }),
  dependencies: [Artifacts.Default, Projects.Default]
}) {}
