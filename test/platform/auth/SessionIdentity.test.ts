import { describe, expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { ApiKeys } from "../../../src/platform/auth/ApiKeys.js"
import { WebSessions } from "../../../src/platform/auth/WebSessions.js"
import { ServiceTest } from "../../support/ServiceTest.js"
import { seedOwner } from "../../support/Seed.js"

/**
 * Issue 28 §1: a browser session needs a rate budget of its own, so its principal says which
 * session signed the request; a request with the key itself names none.
 */
describe("the principal of a browser session", () => {
  layer(ServiceTest(WebSessions.Default))((it) => {
    it.effect("a session's principal carries its session's identity, a different one per session of the same key; the key's own has none", () =>
      Effect.gen(function*() {
        const { key } = yield* seedOwner("session-identity")
        const sessions = yield* WebSessions
        const first = yield* sessions.signIn(Redacted.make(key))
        const second = yield* sessions.signIn(Redacted.make(key))
        const one = yield* sessions.authenticate(first.token)
        const other = yield* sessions.authenticate(second.token)
        expect(one.webSessionId).toMatch(/^[0-9a-f]{64}$/)
        expect(other.webSessionId).toMatch(/^[0-9a-f]{64}$/)
        expect(one.webSessionId).not.toBe(other.webSessionId)
        // The identity is the stored digest, never the token itself.
        expect(one.webSessionId).not.toContain(first.token)
        expect(one.apiKeyId).toBe(other.apiKeyId)
        expect((yield* sessions.authenticate(first.token)).webSessionId).toBe(one.webSessionId)
        const byKey = yield* (yield* ApiKeys).authenticate(key)
        expect(byKey.webSessionId).toBeUndefined()
      }))
  })
})
