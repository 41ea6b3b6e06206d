import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { ChunkSource } from "../../src/threads/normalizers/normalize.js"

/**
 * Recorded runtime transcripts turned into the chunks the CLI uploads: `type` and `data` exactly
 * as the runner will send them. `test/fixtures/<runtime>/` holds the research captures of
 * RUNTIMES.md; `test/fixtures/recorded/<runtime>/` what `npm run record-fixtures` captures from
 * the pinned binaries against the project's mock, named `recorded/<name>`.
 */

export interface Chunk {
  readonly type: string
  readonly data: string
}

export interface Transcript {
  readonly source: ChunkSource
  readonly chunks: ReadonlyArray<Chunk>
}

const fixturesDir = fileURLToPath(new URL("../fixtures/", import.meta.url))
const RECORDED = "recorded/"

type Line = Record<string, unknown>

const readLines = (path: string): ReadonlyArray<Line> =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line): Line => JSON.parse(line))

const typeOf = (line: Line): string => (typeof line["type"] === "string" ? line["type"] : "")

/** One JSON object per line, chunk type = the line's `type` (Claude, Codex exec, OpenCode run, Gemini). */
const typedLines = (path: string): ReadonlyArray<Chunk> =>
  readLines(path).map((line) => ({ type: typeOf(line), data: JSON.stringify(line) }))

/**
 * App-server captures are `{dir, msg}`. The runner uploads what the server sends: notifications
 * and server requests typed by `method`, responses typed by the method of the request they answer.
 */
const appServerMessages = (path: string): ReadonlyArray<Chunk> => {
  const requests = new Map<unknown, string>()
  const chunks: Array<Chunk> = []
  for (const { dir, msg } of readLines(path)) {
    if (typeof msg !== "object" || msg === null) continue
    const message: Line = { ...msg }
    const method = typeof message["method"] === "string" ? message["method"] : undefined
    if (dir === "client->server") {
      if (method !== undefined && message["id"] !== undefined) requests.set(message["id"], method)
      continue
    }
    chunks.push({ type: method ?? requests.get(message["id"]) ?? "response", data: JSON.stringify(message) })
  }
  return chunks
}

/** OpenCode serve captures interleave the probe's own `__client.*` notes, which are not runtime output. */
const openCodeEvents = (path: string): ReadonlyArray<Chunk> => typedLines(path).filter((chunk) => !chunk.type.startsWith("__client."))

/**
 * `name` is the fixture file name without `.jsonl`, e.g. `claude-raw-hello`,
 * `codex-appserver-raw-retry`, or `recorded/claude-raw-hello` for a capture of `record-fixtures`.
 */
export const transcript = (name: string): Transcript => {
  const recorded = name.startsWith(RECORDED)
  const file = recorded ? name.slice(RECORDED.length) : name
  const [runtime] = file.split("-")
  const path = `${fixturesDir}${recorded ? RECORDED : ""}${runtime}/${file}.jsonl`
  if (file.startsWith("claude-")) return { source: { cliType: "claude" }, chunks: typedLines(path) }
  if (file.startsWith("codex-exec-")) return { source: { cliType: "codex", transport: "exec" }, chunks: typedLines(path) }
  if (file.startsWith("codex-appserver-")) {
    return { source: { cliType: "codex", transport: "app-server" }, chunks: appServerMessages(path) }
  }
  if (file.startsWith("opencode-run-")) return { source: { cliType: "opencode", transport: "run" }, chunks: typedLines(path) }
  if (file.startsWith("opencode-serve-")) {
    return { source: { cliType: "opencode", transport: "server" }, chunks: openCodeEvents(path) }
  }
  if (file.startsWith("gemini-")) return { source: { cliType: "gemini" }, chunks: typedLines(path) }
  throw new Error(`No transcript reader for ${name}`)
}

/** Every recorded transcript, by name: the research captures, then those of `record-fixtures`. */
export const transcriptNames: ReadonlyArray<string> = [
  ...["claude", "codex", "opencode", "gemini"].flatMap((runtime) => readdirNames(`${fixturesDir}${runtime}`)),
  ...recordedNames()
]

/** The captures of `npm run record-fixtures`, by name (`recorded/<name>`). */
export function recordedNames(): ReadonlyArray<string> {
  return ["claude", "codex", "opencode"].flatMap((runtime) =>
    readdirNames(`${fixturesDir}${RECORDED}${runtime}`).map((name) => `${RECORDED}${name}`)
  )
}

function readdirNames(dir: string): ReadonlyArray<string> {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".jsonl"))
    .map((file) => file.slice(0, -".jsonl".length))
    .sort()
}
