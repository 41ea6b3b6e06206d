import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, Schema } from "effect"
import { bundledEvents, unbundle } from "../../../catalog/events/Bundles.js"
import { normalizeChunk, type ChunkSource } from "../../../src/threads/normalizers/normalize.js"
import { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { normalizeClaudeChunk } from "../../../src/threads/normalizers/ClaudeCode.js"
import { normalizeCodexAppServerChunk } from "../../../src/threads/normalizers/CodexAppServer.js"
import { normalizeCodexExecChunk } from "../../../src/threads/normalizers/CodexExec.js"
import { normalizeGeminiChunk } from "../../../src/threads/normalizers/Gemini.js"
import { normalizeOpenCodeRunChunk, normalizeOpenCodeServerChunk } from "../../../src/threads/normalizers/OpenCode.js"
import { CliType, RuntimeTransport } from "../../../catalog/domain/CliType.js"
import { type Chunk, transcript, transcriptNames } from "../../support/Transcripts.js"

type Event = NormalizedEvent
type Path = ReadonlyArray<string | number>

const isValid = Schema.is(NormalizedEvent)

const supportedCliTypes: ReadonlyArray<CliType> = ["claude", "codex", "opencode", "gemini"]
const unsupportedCliTypes = CliType.literals.filter((t) => !supportedCliTypes.includes(t))

interface Runtime {
  readonly name: string
  readonly source: ChunkSource
  readonly chunks: ReadonlyArray<Chunk>
}

const chunksOf = (prefix: string): ReadonlyArray<Chunk> =>
  transcriptNames.filter((n) => n.startsWith(prefix)).flatMap((n) => transcript(n).chunks)

const runtimes: ReadonlyArray<Runtime> = [
  { name: "claude", source: { cliType: "claude" }, chunks: chunksOf("claude-") },
  { name: "codex exec", source: { cliType: "codex", transport: "exec" }, chunks: chunksOf("codex-exec-") },
  { name: "codex app-server", source: { cliType: "codex", transport: "app-server" }, chunks: chunksOf("codex-appserver-") },
  { name: "opencode server", source: { cliType: "opencode", transport: "server" }, chunks: chunksOf("opencode-serve-") },
  { name: "opencode run", source: { cliType: "opencode", transport: "run" }, chunks: chunksOf("opencode-run-") },
  { name: "gemini", source: { cliType: "gemini" }, chunks: chunksOf("gemini-") },
  // Unsupported: fed every fixture chunk there is.
  { name: "cursor (unsupported)", source: { cliType: "cursor" }, chunks: chunksOf("") }
]
const supported = runtimes.filter((r) => supportedCliTypes.includes(r.source.cliType))

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** What storage and clients get back: no number that JSON cannot carry (Infinity, NaN) may hide in an event. */
const survivesJson = (event: Event): boolean => {
  expect(JSON.parse(JSON.stringify(event))).toEqual(event)
  return true
}

/** A bundle that `unbundle` left whole (its payload did not decode) would hide its events from clients. */
const isUnexpandedBundle = (event: Event): boolean =>
  event.kind === "metadata" && event.otherJson !== undefined && isJson(event.otherJson) &&
  Array.isArray(getEvents(JSON.parse(event.otherJson)))
const getEvents = (value: unknown): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Reflect.get(value, "events") : undefined

// ---- mutated fixture lines -------------------------------------------------------------------

/** Every path to a value inside a JSON value (the root excluded). */
const pathsOf = (value: unknown, prefix: Path = []): ReadonlyArray<Path> => {
  const children: ReadonlyArray<readonly [string | number, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : typeof value === "object" && value !== null
    ? Object.entries(value)
    : []
  return children.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])])
}

/** A copy of `value` with the value at `path` replaced (`undefined` drops an object key). */
const setAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  const [head, ...rest] = path
  if (head === undefined) return replacement
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? setAt(v, rest, replacement) : v))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === head ? setAt(v, rest, replacement) : v]))
  }
  return value
}

const replacement = FastCheck.oneof(
  FastCheck.jsonValue(),
  FastCheck.constant(undefined),
  FastCheck.constantFrom(null, "", 0, -1, [], {}, "error", "failed", "completed", true)
)

/** A real line with one to three nested values replaced by arbitrary JSON. */
const mutatedLine = (chunks: ReadonlyArray<Chunk>): FastCheck.Arbitrary<string> => {
  const parsed = chunks.map((c): unknown => JSON.parse(c.data))
  return FastCheck.nat(Math.max(parsed.length - 1, 0)).chain((index) => {
    const line = parsed[index] ?? {}
    const paths = pathsOf(line)
    if (paths.length === 0) return FastCheck.jsonValue().map((v) => JSON.stringify(v) ?? "null")
    const mutation = FastCheck.tuple(FastCheck.constantFrom(...paths), replacement)
    return FastCheck.array(mutation, { minLength: 1, maxLength: 3 }).map(
      (mutations) => JSON.stringify(mutations.reduce<unknown>((acc, [path, value]) => setAt(acc, path, value), line)) ?? "null"
    )
  })
}

/** Every number in a value replaced, so that sums and differences of figures overflow. */
const withNumbers = (value: unknown, pick: () => number): unknown =>
  typeof value === "number"
    ? pick()
    : Array.isArray(value)
    ? value.map((v) => withNumbers(v, pick))
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withNumbers(v, pick)]))
    : value

const extremeNumbers = FastCheck.array(FastCheck.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, 1e308, 2 ** 53, -0, 0, 0.5, -1), {
  minLength: 1,
  maxLength: 8
})

/** Chunk types: arbitrary strings and the real ones of the runtime's fixtures. */
const typeArb = (runtime: Runtime): FastCheck.Arbitrary<string> =>
  FastCheck.oneof(FastCheck.string(), FastCheck.constantFrom(...new Set(runtime.chunks.map((c) => c.type))))

/** Chunk data: arbitrary strings, arbitrary JSON, mutated real lines. */
const dataArb = (runtime: Runtime): FastCheck.Arbitrary<string> =>
  FastCheck.oneof(FastCheck.string(), FastCheck.json(), mutatedLine(runtime.chunks))

/** Independent type and data, or a mutated real line under its own type (which reaches the deep mappings). */
const chunkArb = (runtime: Runtime): FastCheck.Arbitrary<Chunk> =>
  FastCheck.oneof(
    FastCheck.record({ type: typeArb(runtime), data: dataArb(runtime) }),
    FastCheck.nat(Math.max(runtime.chunks.length - 1, 0)).chain((index) => {
      const chunk = runtime.chunks[index] ?? { type: "", data: "{}" }
      return mutatedLine([chunk]).map((data) => ({ type: chunk.type, data }))
    })
  )

// ---- tests -----------------------------------------------------------------------------------

describe("normalizeChunk: every fixture of every runtime", () => {
  it.effect("normalizing twice gives deep-equal results, chunk by chunk", () =>
    Effect.sync(() => {
      let chunks = 0
      for (const name of transcriptNames) {
        const { source, chunks: all } = transcript(name)
        for (const chunk of all) {
          expect(normalizeChunk(source, chunk.type, chunk.data)).toEqual(normalizeChunk(source, chunk.type, chunk.data))
          chunks++
        }
      }
      expect(chunks).toBeGreaterThan(100)
    }))

  it.effect("every event is valid, bundles expand, and nothing is unknown except ignored lines", () =>
    Effect.sync(() => {
      for (const name of transcriptNames) {
        const { source, chunks } = transcript(name)
        for (const chunk of chunks) {
          const event = normalizeChunk(source, chunk.type, chunk.data)
          expect(isValid(event)).toBe(true)
          const events = unbundle(event)
          for (const e of events) {
            expect(isValid(e)).toBe(true)
            expect(isUnexpandedBundle(e)).toBe(false)
            if (e.kind === "unknown") expect([name, chunk.type, e.reason]).toEqual([name, chunk.type, "ignored"])
          }
          // One event per line: a single event is never wrapped, a bundle holds at least two.
          const inner = bundledEvents(event)
          if (inner !== undefined) expect(inner.length).toBeGreaterThan(1)
        }
      }
    }))

  it.effect("dispatch: cliType and transport pick the runtime module; codex defaults to app-server, opencode to server", () =>
    Effect.sync(() => {
      const modules = [
        [{ cliType: "claude" }, normalizeClaudeChunk],
        [{ cliType: "claude", transport: "stream-json" }, normalizeClaudeChunk],
        [{ cliType: "codex", transport: "exec" }, normalizeCodexExecChunk],
        [{ cliType: "codex", transport: "app-server" }, normalizeCodexAppServerChunk],
        [{ cliType: "codex" }, normalizeCodexAppServerChunk],
        [{ cliType: "opencode", transport: "server" }, normalizeOpenCodeServerChunk],
        [{ cliType: "opencode" }, normalizeOpenCodeServerChunk],
        [{ cliType: "opencode", transport: "run" }, normalizeOpenCodeRunChunk],
        [{ cliType: "gemini" }, normalizeGeminiChunk]
      ] as const
      for (const [source, module] of modules) {
        for (const name of transcriptNames) {
          for (const chunk of transcript(name).chunks) {
            expect(normalizeChunk(source, chunk.type, chunk.data)).toEqual(module(chunk.type, chunk.data))
          }
        }
      }
      for (const name of transcriptNames) {
        const { source, chunks } = transcript(name)
        // Fixtures read with another runtime's normalizer give other events: the dispatch matters.
        const own = chunks.map((c) => normalizeChunk(source, c.type, c.data))
        const other = chunks.map((c) =>
          normalizeChunk(source.cliType === "gemini" ? { cliType: "claude" } : { cliType: "gemini" }, c.type, c.data)
        )
        expect(own).not.toEqual(other)
      }
    }))
})

describe("normalizeChunk: properties", () => {
  for (const runtime of runtimes) {
    it.effect(`${runtime.name}: arbitrary chunks never throw, give a valid event whose unbundled events are valid, deterministically`, () =>
      Effect.sync(() => {
        FastCheck.assert(
          FastCheck.property(chunkArb(runtime), ({ type, data }) => {
            const event = normalizeChunk(runtime.source, type, data)
            expect(isValid(event)).toBe(true)
            const events = unbundle(event)
            expect(events.length).toBeGreaterThan(0)
            for (const e of events) {
              expect(isValid(e)).toBe(true)
              expect(isUnexpandedBundle(e)).toBe(false)
            }
            if (event.kind === "unknown") expect([event.rawType, event.rawData]).toEqual([type, data])
            for (const e of [event, ...events]) survivesJson(e)
            expect(normalizeChunk(runtime.source, type, data)).toEqual(event)
          }),
          { numRuns: 300 }
        )
      }))
  }

  for (const runtime of supported) {
    it.effect(`${runtime.name}: real lines with figures at the limits give events that survive JSON (no Infinity)`, () =>
      Effect.sync(() => {
        const chunk = FastCheck.nat(runtime.chunks.length - 1).map((i) => runtime.chunks[i] ?? { type: "", data: "{}" })
        FastCheck.assert(
          FastCheck.property(chunk, extremeNumbers, ({ type, data }, numbers) => {
            let i = 0
            const mutated = JSON.stringify(withNumbers(JSON.parse(data), () => numbers[i++ % numbers.length] ?? 0))
            const event = normalizeChunk(runtime.source, type, mutated)
            expect(isValid(event)).toBe(true)
            survivesJson(event)
            for (const e of unbundle(event)) {
              expect(isValid(e)).toBe(true)
              expect(isUnexpandedBundle(e)).toBe(false)
              survivesJson(e)
            }
          }),
          { numRuns: 200 }
        )
      }))
  }

  it.effect("token figures that overflow when summed make the chunk unknown instead of carrying Infinity", () =>
    Effect.sync(() => {
      const huge = Number.MAX_VALUE
      const cases: ReadonlyArray<readonly [ChunkSource, string, unknown]> = [
        [{ cliType: "codex", transport: "exec" }, "turn.completed", {
          type: "turn.completed",
          usage: { input_tokens: huge, output_tokens: huge }
        }],
        [
          { cliType: "codex", transport: "app-server" },
          "thread/tokenUsage/updated",
          { method: "thread/tokenUsage/updated", params: { tokenUsage: { last: { inputTokens: huge, outputTokens: huge } } } }
        ],
        [
          { cliType: "opencode", transport: "server" },
          "message.part.updated",
          { type: "message.part.updated", properties: { part: { id: "p", type: "step-finish", tokens: { input: huge, output: huge } } } }
        ],
        [{ cliType: "opencode", transport: "run" }, "step_finish", {
          type: "step_finish",
          part: { type: "step-finish", tokens: { input: huge, output: huge } }
        }],
        [{ cliType: "gemini" }, "result", { type: "result", status: "success", stats: { input_tokens: huge, output_tokens: huge } }]
      ]
      for (const [source, type, line] of cases) {
        const data = JSON.stringify(line)
        expect(normalizeChunk(source, type, data)).toEqual({ kind: "unknown", reason: "unexpected-shape", rawType: type, rawData: data })
      }
      // An attempt number too long for a double is left out rather than sent as Infinity.
      const retry = { method: "error", params: { willRetry: true, error: { message: `Reconnecting... ${"9".repeat(400)}/5` } } }
      const notice = normalizeChunk({ cliType: "codex", transport: "app-server" }, "error", JSON.stringify(retry))
      expect(notice).toEqual({ kind: "runtime-notice", message: retry.params.error.message })
    }))

  it.effect("malformed JSON is unknown/json-parse-error keeping the raw type and data, for every runtime", () =>
    Effect.sync(() => {
      for (const runtime of supported) {
        const truncated = FastCheck.nat(Math.max(runtime.chunks.length - 1, 0)).chain((index) => {
          const data = runtime.chunks[index]?.data ?? "{}"
          return FastCheck.nat(Math.max(data.length - 1, 0)).map((n) => data.slice(0, n))
        })
        const malformed = FastCheck.oneof(
          FastCheck.string(),
          truncated,
          FastCheck.constantFrom("{not json", "", " ", "undefined", "NaN", "{'a':1}", `{"type":"x",}`, "\u0000")
        ).filter((text) => !isJson(text))
        FastCheck.assert(
          FastCheck.property(typeArb(runtime), malformed, (type, data) => {
            expect(normalizeChunk(runtime.source, type, data)).toEqual({
              kind: "unknown",
              reason: "json-parse-error",
              rawType: type,
              rawData: data
            })
          }),
          { numRuns: 100 }
        )
      }
    }))

  it.effect("JSON that is not an object is unknown/unexpected-shape for every runtime", () =>
    Effect.sync(() => {
      for (const runtime of supported) {
        for (const data of ["[]", "[{}]", "1", "null", `"text"`, "true"]) {
          for (const type of new Set(runtime.chunks.map((c) => c.type))) {
            expect(normalizeChunk(runtime.source, type, data)).toEqual({
              kind: "unknown",
              reason: "unexpected-shape",
              rawType: type,
              rawData: data
            })
          }
        }
      }
    }))

  it.effect("unsupported cliTypes give unknown/unsupported-runtime keeping the raw chunk, whatever the transport", () =>
    Effect.sync(() => {
      expect(unsupportedCliTypes).toEqual(expect.arrayContaining(["cursor", "amp", "other"]))
      const transport = FastCheck.oneof(FastCheck.constant(undefined), FastCheck.constantFrom(...RuntimeTransport.literals))
      const all = runtimes.find((r) => r.source.cliType === "cursor")
      const chunks = all === undefined ? FastCheck.record({ type: FastCheck.string(), data: FastCheck.string() }) : chunkArb(all)
      FastCheck.assert(
        FastCheck.property(FastCheck.constantFrom(...unsupportedCliTypes), transport, chunks, (cliType, transport, { type, data }) => {
          expect(normalizeChunk({ cliType, transport }, type, data)).toEqual({
            kind: "unknown",
            reason: "unsupported-runtime",
            rawType: type,
            rawData: data
          })
        }),
        { numRuns: 300 }
      )
      // Real chunks too, including malformed data: the runtime is checked before the JSON.
      for (const name of transcriptNames) {
        for (const chunk of transcript(name).chunks) {
          expect(normalizeChunk({ cliType: "cursor" }, chunk.type, chunk.data)).toEqual({
            kind: "unknown",
            reason: "unsupported-runtime",
            rawType: chunk.type,
            rawData: chunk.data
          })
        }
      }
      expect(normalizeChunk({ cliType: "aider" }, "x", "{not json")).toMatchObject({ reason: "unsupported-runtime" })
    }))
})
