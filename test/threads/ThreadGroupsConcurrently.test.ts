import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { MAX_GROUP_SIZE } from "../../catalog/domain/Thread.js"
import { call, getOrdinary, ownerWithCli, softDelete, spawn, storedGroups, threadOn } from "../support/ThreadFixtures.js"
import { concurrently } from "../support/TestDatabase.js"
import { TestServer } from "../support/TestServer.js"

/**
 * Spawns racing each other: an agent that fans out to several helpers at once sends its
 * create_thread calls in parallel. On PostgreSQL (the CI pass) each call runs on its own pooled
 * connection, so these tests play the real race; on PGlite the same calls take turns on its single
 * session and the tests check only the serialised outcome.
 */

const noRateLimit = { rateLimit: Option.none() }
const ROUNDS = 5
const FAN_OUT = 4

describe("create_thread with sourceThreadId, concurrently", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect(
      concurrently("parallel spawns from a thread not yet in a group make one group, holding the source and every spawn"),
      () =>
        Effect.gen(function*() {
          const owner = yield* ownerWithCli("spawn-fan-out")
          const rounds = yield* Effect.forEach(Array.from({ length: ROUNDS }, (_, round) => round), (round) =>
            Effect.gen(function*() {
              const source = yield* threadOn(owner.key, owner.cli, { content: `Lead ${round}` })
              const spawned = yield* Effect.all(
                Array.from({ length: FAN_OUT }, (_, i) => spawn(owner.key, source.threadId, { content: `helper ${round}.${i}` })),
                { concurrency: "unbounded" }
              )
              const groups = yield* storedGroups(source.threadId)
              const sourceGroup = (yield* getOrdinary(owner.key, source.threadId)).parentThreadId
              return {
                groups: groups.map((g) => ({ memberCount: g.memberCount, members: g.members, holdsSource: g.id === sourceGroup })),
                spawnsInSourceGroup: spawned.filter((s) => s.parentThreadId === sourceGroup).length
              }
            }))
          const one = { groups: [{ memberCount: FAN_OUT + 1, members: FAN_OUT + 1, holdsSource: true }], spawnsInSourceGroup: FAN_OUT }
          expect(rounds).toEqual(Array.from({ length: ROUNDS }, () => one))
        }),
      { timeout: 60_000 }
    )

    it.effect(
      concurrently("parallel spawns into a nearly full group fill it to exactly 100 and refuse the rest; the count matches the members"),
      () =>
        Effect.gen(function*() {
          const owner = yield* ownerWithCli("spawn-fill")
          const source = yield* threadOn(owner.key, owner.cli)
          const first = yield* spawn(owner.key, source.threadId)
          const groupId = first.parentThreadId ?? ""
          const free = 8
          // The source, the first spawn and these: 100 - free members.
          const members = yield* Effect.forEach(
            Array.from({ length: MAX_GROUP_SIZE - free - 2 }, (_, i) => i),
            (i) => spawn(owner.key, groupId, { content: `member ${i}` }),
            { concurrency: 4 }
          )
          // A deleted member keeps its place.
          yield* softDelete(members[0]?.threadId ?? "")
          // Twice as many callers as places, naming the group, the source or a member.
          const via = [groupId, source.threadId, first.threadId]
          const results = yield* Effect.all(
            Array.from({ length: 2 * free }, (_, i) =>
              call(owner.key, "create_thread", { content: `late ${i}`, sourceThreadId: via[i % via.length] })),
            { concurrency: "unbounded" }
          )
          const refused = results.filter((r) =>
            r.isError
          )
          expect(results.length - refused.length).toBe(free)
          for (const r of refused) expect(JSON.stringify(r.content)).toContain("limit_exceeded")
          expect(yield* storedGroups(source.threadId)).toEqual([{ id: groupId, memberCount: MAX_GROUP_SIZE, members: MAX_GROUP_SIZE }])
        }),
      { timeout: 60_000 }
    )
  })
})
