import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Schema, Stream } from "effect"
import type { Principal } from "../platform/auth/Principal.js"
import { NotFound } from "../../catalog/domain/Errors.js"
import { type AgentSessionId, InteractionId } from "../../catalog/domain/Ids.js"
import { Interaction, InteractionKind, InteractionStatus } from "../../catalog/domain/Interaction.js"
import { ThreadRows } from "../threads/ThreadRows.js"
import { LiveEvents } from "../platform/notifications/LiveEvents.js"
import { ClaimFence } from "./ClaimFence.js"
import type { AgentPayload } from "./AgentPayload.js"

/**
 * Permission and question requests a runtime makes mid-run, routed to a person: the CLI files
 * one under its claim and waits; the thread's owner answers (or denies) from a client. Answers are
 * idempotent: the first one stands, a repeat returns it unchanged. Requests still pending when the
 * batch ends expire with it, and so does a request past the expiry time the CLI gave it: the
 * CLI's wait then returns it as expired (never as denied) and a late answer cannot land.
 */

const Row = Schema.Struct({
  interactionId: Schema.String,
  threadId: Schema.String,
  createdBy: Schema.String,
  kind: InteractionKind,
  request: Schema.Unknown,
  status: InteractionStatus,
  answer: Schema.NullOr(Schema.Unknown),
  createdAt: Schema.DateFromSelf,
  answeredAt: Schema.NullOr(Schema.DateFromSelf),
  expiresAt: Schema.NullOr(Schema.DateFromSelf)
})
type Row = typeof Row.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

const view = ({ createdBy: _, ...row }: Row): Interaction => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  answeredAt: row.answeredAt?.toISOString() ?? null,
  expiresAt: row.expiresAt?.toISOString() ?? null
})

export const MAX_WAIT = Duration.seconds(25)

export class Interactions extends Effect.Service<Interactions>()("trellis/Interactions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fences = yield* ClaimFence
    const threadRows = yield* ThreadRows
    const live = yield* LiveEvents

    const select = (where: ReturnType<typeof sql.and>) =>
      sql`
        SELECT i.id AS "interactionId", i.thread_id AS "threadId", t.created_by AS "createdBy", i.kind, i.request,
          i.status, i.answer, i.created_at AS "createdAt", i.answered_at AS "answeredAt", i.expires_at AS "expiresAt"
        FROM thread_interactions i JOIN threads t ON t.id = i.thread_id
        WHERE ${where} ORDER BY i.created_at, i.id`.pipe(Effect.flatMap(decodeRows), Effect.orDie)

    /** Pending requests of the thread past their expiry become expired (one statement each, idempotent). */
    const expireOverdue = (threadId: string) =>
      sql.withTransaction(Effect.gen(function*() {
        const expired = yield* sql`
          UPDATE thread_interactions SET status = 'expired'
          WHERE thread_id = ${threadId} AND status = 'pending' AND expires_at <= now()
          RETURNING id`
        if (expired.length === 0) return false
        yield* sql`
          UPDATE threads SET has_pending_interaction = EXISTS (
            SELECT 1 FROM thread_interactions WHERE thread_id = ${threadId} AND status = 'pending')
          WHERE id = ${threadId}`
        return true
      })).pipe(
        Effect.orDie,
        Effect.tap((changed) => (changed ? live.threadChanged(threadId, null) : Effect.void))
      )

    const notFound = (id: string) => new NotFound({ message: `interactionId: interaction ${id} not found` })

    /** The CLI files a request under its claim (fenced like every CLI write). */
    const request = Effect.fn("Interactions.request")(function*(
      principal: Principal,
      sessionId: AgentSessionId,
      threadId: string,
      epoch: number,
      input: Omit<AgentPayload<"requestInteraction">, "sessionId" | "epoch">
    ) {
      const id = InteractionId.generate()
      const expiresAt = input.expiresInMs === undefined ? null : new Date(Date.now() + input.expiresInMs)
      yield* fences.underClaim(principal, sessionId, threadId, epoch, (activeMessageId) =>
        Effect.gen(function*() {
          yield* sql`
            INSERT INTO thread_interactions (id, thread_id, message_id, kind, request, expires_at)
            VALUES (${id}, ${threadId}, ${activeMessageId}, ${input.kind}, ${JSON.stringify(input.request ?? null)}::jsonb, ${expiresAt})`
          yield* sql`UPDATE threads SET has_pending_interaction = true, last_activity_at = now() WHERE id = ${threadId}`
        }))
      yield* live.threadChanged(threadId, null)
      const [row] = yield* select(sql.and([sql`i.id = ${id}`]))
      return row === undefined ? yield* notFound(id) : view(row)
    })

    /** The CLI's wait: returns as soon as the request is settled, or still pending after `wait`. */
    const await_ = Effect.fn("Interactions.await")(function*(principal: Principal, id: string, wait: Duration.Duration) {
      const find = Effect.map(
        select(sql.and([sql`i.id = ${id}`, sql`t.created_by = ${principal.userId}`])),
        (rows) => rows[0]
      )
      const found = yield* find
      if (found === undefined) return yield* notFound(id)
      if (found.status === "pending" && found.expiresAt !== null && found.expiresAt.getTime() <= Date.now()) {
        yield* expireOverdue(found.threadId)
      }
      const first = (yield* find) ?? found
      if (first.status !== "pending") return view(first)
      const untilExpiry = first.expiresAt === null ? MAX_WAIT : Duration.millis(Math.max(0, first.expiresAt.getTime() - Date.now()))
      const settled = yield* Effect.scoped(Effect.gen(function*() {
        const signals = yield* live.threadSignals(first.threadId)
        return yield* Stream.concat(Stream.make(undefined), signals).pipe(
          Stream.mapEffect(() => find),
          Stream.filter((row): row is Row => row !== undefined && row.status !== "pending"),
          Stream.runHead,
          Effect.timeoutTo({
            duration: Duration.min(Duration.min(wait, MAX_WAIT), untilExpiry),
            onTimeout: () => Option.none(),
            onSuccess: (row) => row
          })
        )
      }))
      return view(Option.getOrElse(settled, () => first))
    })

    /** The thread's owner answers or denies; the first settlement stands and repeats return it. */
    const answer = Effect.fn("Interactions.answer")(function*(
      principal: Principal,
      id: string,
      input: { readonly deny: boolean; readonly answer?: unknown }
    ) {
      const [row] = yield* select(sql.and([sql`i.id = ${id}`]))
      if (row === undefined) return yield* notFound(id)
      yield* threadRows.findOwn(principal, row.threadId, "interactionId").pipe(Effect.mapError(() => notFound(id)))
      // An answer after the expiry cannot land: the runtime was already told the request expired.
      yield* expireOverdue(row.threadId)
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`
          UPDATE thread_interactions
          SET status = ${input.deny ? "denied" : "answered"}, answer = ${JSON.stringify(input.answer ?? null)}::jsonb,
            answered_by = ${principal.userId}, answered_at = now()
          WHERE id = ${id} AND status = 'pending'`
        yield* sql`
          UPDATE threads SET has_pending_interaction = EXISTS (
            SELECT 1 FROM thread_interactions WHERE thread_id = ${row.threadId} AND status = 'pending')
          WHERE id = ${row.threadId}`
      })).pipe(Effect.orDie)
      yield* live.threadChanged(row.threadId, null)
      const [updated] = yield* select(sql.and([sql`i.id = ${id}`]))
      return view(updated ?? row)
    })

    const listPending = Effect.fn("Interactions.listPending")(function*(principal: Principal, threadId: string) {
      yield* threadRows.get(principal, threadId)
      yield* expireOverdue(threadId)
      const rows = yield* select(sql.and([sql`i.thread_id = ${threadId}`, sql`i.status = 'pending'`]))
      return rows.map(view)
    })

    return { request, await: await_, answer, listPending } as const
  }),
  dependencies: [ClaimFence.Default, ThreadRows.Default, LiveEvents.Default]
}) {}
