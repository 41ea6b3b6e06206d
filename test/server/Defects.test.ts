import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { callTool, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

describe("defects", () => {
  layer(TestServer())((it) => {
    it.effect("an unexpected failure is -32603 with a trace id and no internals", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("broken")
        const sql = yield* SqlClient.SqlClient
        yield* sql`ALTER TABLE projects RENAME COLUMN name TO title`
        const res = yield* callTool(key, "list_projects")
        expect(res.status).toBe(500)
        expect(res.json).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32603, data: { traceId: expect.any(String) } } })
        const { error } = res.json as { error: { message: string; data: { traceId: string } } }
        expect(error.message).toBe(`Internal error (trace ${error.data.traceId})`)
        expect(res.text).not.toMatch(/column|projects|SqlError|at /)
      }))
  })
})
