import { describe, expect, layer } from "@effect/vitest"
import { type Context, Effect, Layer, Option } from "effect"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { AgentSessions } from "../../src/bridge/AgentSessions.js"
import { LiveEvents } from "../../src/bridge/LiveEvents.js"
import { ThreadQueue } from "../../src/bridge/ThreadQueue.js"
import * as Trellis from "../../src/server.js"
import { Memberships } from "../../src/services/Memberships.js"
import { Organizations } from "../../src/services/Organizations.js"
import { Projects } from "../../src/services/Projects.js"
import { Tasks } from "../../src/services/Tasks.js"
import { Users } from "../../src/services/Users.js"
import { ToolRunner } from "../../src/tools/ToolRunner.js"
import { TestDatabase } from "../support/TestDatabase.js"

/** Whether the service is in the context. */
const has = <I, S>(tag: Context.Tag<I, S>) => Effect.map(Effect.serviceOption(tag), Option.isSome)

describe("trellis admin's services", () => {
  layer(Trellis.adminServices().pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("are the ones its commands use: organizations, users, projects, members, keys", () =>
      Effect.gen(function* () {
        const present = yield* Effect.all([
          has(Organizations),
          has(Users),
          has(Projects),
          has(Memberships),
          has(ApiKeys)
        ])
        expect(present).toEqual([true, true, true, true, true])
        const organization = yield* (yield* Organizations).create({ slug: "admin-only", name: "Admin only" })
        expect(organization.slug).toBe("admin-only")
      }))

    it.effect("start nothing else: no tools, no live relays (LISTEN), no bridge (its sweeper), no tasks (their purge)", () =>
      Effect.gen(function* () {
        const absent = yield* Effect.all([
          has(ToolRunner),
          has(LiveEvents),
          has(ThreadQueue),
          has(AgentSessions),
          has(Tasks)
        ])
        expect(absent).toEqual([false, false, false, false, false])
      }))
  })
})
