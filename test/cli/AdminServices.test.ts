import { describe, expect, layer } from "@effect/vitest"
import { type Context, Effect, Layer, Option } from "effect"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { AgentSessions } from "../../src/bridge/AgentSessions.js"
import { LiveEvents } from "../../src/platform/notifications/LiveEvents.js"
import { ThreadClaims } from "../../src/bridge/ThreadClaims.js"
import * as Trellis from "../../src/server/Trellis.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Organizations } from "../../src/orgs/Organizations.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { Users } from "../../src/orgs/Users.js"
import { ToolRunner } from "../../src/server/ToolRunner.js"
import { TestDatabase } from "../support/TestDatabase.js"

/** Whether the service is in the context. */
const has = <I, S>(tag: Context.Tag<I, S>) => Effect.map(Effect.serviceOption(tag), Option.isSome)

describe("trellis admin's services", () => {
  layer(Trellis.adminServices().pipe(Layer.provideMerge(TestDatabase)))((it) => {
    it.effect("are the ones its commands use: organizations, users, projects, members, keys", () =>
      Effect.gen(function*() {
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
      Effect.gen(function*() {
        const absent = yield* Effect.all([
          has(ToolRunner),
          has(LiveEvents),
          has(ThreadClaims),
          has(AgentSessions),
          has(TaskReads)
        ])
        expect(absent).toEqual([false, false, false, false, false])
      }))
  })
})
