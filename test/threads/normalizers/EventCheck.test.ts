import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck, Schema } from "effect"
import { checkEvent } from "../../../src/threads/normalizers/EventCheck.js"
import { defined } from "../../../src/threads/normalizers/LineNormalizer.js"
import { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"

const decode = Schema.decodeUnknownEither(NormalizedEvent)

const kinds = [
  "text",
  "reasoning",
  "context-window",
  "context-compaction",
  "tool-input",
  "tool-output",
  "tool-error",
  "metadata",
  "runtime-notice",
  "warning",
  "unknown",
  "misread"
] as const
const fieldNames = [
  "text",
  "itemId",
  "delta",
  "usedTokens",
  "limitTokens",
  "inputTokens",
  "outputTokens",
  "reasoningTokens",
  "cacheReadTokens",
  "cacheCreationTokens",
  "trigger",
  "preTokens",
  "toolCallId",
  "toolName",
  "inputJson",
  "outputJson",
  "message",
  "sessionId",
  "model",
  "costUsd",
  "durationMs",
  "numTurns",
  "otherJson",
  "attempt",
  "delayMs",
  "status",
  "reason",
  "rawType",
  "rawData",
  "extra"
] as const

const value = FastCheck.oneof(
  FastCheck.string(),
  FastCheck.double(),
  FastCheck.constantFrom(Infinity, -Infinity, Number.NaN, 0, 1),
  FastCheck.boolean(),
  FastCheck.constant(undefined),
  FastCheck.constant(null),
  FastCheck.constant(true)
)

const candidate = FastCheck.record({
  kind: FastCheck.constantFrom(...kinds),
  fields: FastCheck.dictionary(FastCheck.constantFrom(...fieldNames), value)
}).map(({ fields, kind }): Record<string, unknown> => ({ ...fields, kind }))

describe("event check compiled from the Schema", () => {
  it.effect("accepts exactly what the Schema decodes (an undefined field counting as absent), and returns what it decodes to", () =>
    Effect.sync(() => {
      FastCheck.assert(
        FastCheck.property(candidate, (event) => {
          const decoded = decode(defined(event))
          const checked = checkEvent(event)
          if (Either.isLeft(decoded)) return checked === undefined
          expect(checked).toEqual(decoded.right)
          return true
        }),
        { numRuns: 3000 }
      )
    }))

  it.effect("an infinite or missing required figure does not fit", () =>
    Effect.sync(() => {
      expect(checkEvent({ kind: "context-window", usedTokens: Infinity })).toBeUndefined()
      expect(checkEvent({ kind: "tool-input", toolCallId: "t", toolName: "Bash" })).toBeUndefined()
      expect(checkEvent({ kind: "text", text: "hi", itemId: undefined, extra: 1 })).toEqual({ kind: "text", text: "hi" })
    }))
})
