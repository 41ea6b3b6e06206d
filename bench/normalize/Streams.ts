import type { ChunkSource } from "../../src/threads/normalizers/normalize.js"
import { transcript } from "../../test/support/Transcripts.js"

/** One chunk as the CLI uploads it, with the source the server normalizes it for. */
export interface Line {
  readonly source: ChunkSource
  readonly type: string
  readonly data: string
}

/** What one measurement runs over: `lines` is the fixtures' chunks repeated to the line count. */
export interface Workload {
  readonly name: string
  readonly fixtures: ReadonlyArray<string>
  /** Chunks in one pass over the fixtures, before repetition. */
  readonly passLines: number
  readonly lines: ReadonlyArray<Line>
}

/**
 * Each runtime stream's largest fixtures by bytes (test/fixtures/). Claude: the largest stdio capture
 * plus the partial-messages one, so `stream_event` deltas are in the mix; Gemini has a single fixture.
 */
export const STREAMS: ReadonlyArray<{ readonly name: string; readonly fixtures: ReadonlyArray<string> }> = [
  { name: "claude stream-json", fixtures: ["claude-raw-stdio-deny", "claude-raw-tool-error-partial"] },
  { name: "codex app-server", fixtures: ["codex-appserver-raw-plan-askuser", "codex-appserver-raw-approval"] },
  { name: "codex exec", fixtures: ["codex-exec-raw-tool-error", "codex-exec-raw-slash-compact"] },
  { name: "opencode server", fixtures: ["opencode-serve-raw-compact", "opencode-serve-raw-command"] },
  { name: "opencode run", fixtures: ["opencode-run-raw-tool-error-auto", "opencode-run-raw-tool-ask"] },
  { name: "gemini", fixtures: ["gemini-RECONSTRUCTED-stream-json"] }
]

const fixtureLines = (name: string): ReadonlyArray<Line> => {
  const { source, chunks } = transcript(name)
  return chunks.map((chunk) => ({ source, type: chunk.type, data: chunk.data }))
}

/** `pass` repeated, in order, until there are `count` lines. */
const repeatTo = (pass: ReadonlyArray<Line>, count: number): ReadonlyArray<Line> => {
  if (pass.length === 0) throw new Error("no chunks to repeat")
  return Array.from({ length: count }, (_, i) => pass[i % pass.length] as Line)
}

export const streamWorkload = (stream: (typeof STREAMS)[number], count: number): Workload => {
  const pass = stream.fixtures.flatMap(fixtureLines)
  return { name: stream.name, fixtures: stream.fixtures, passLines: pass.length, lines: repeatTo(pass, count) }
}

/** Every stream at once, line by line in turn (equal shares), as a server taking all runtimes sees them. */
export const mixedWorkload = (streams: ReadonlyArray<Workload>, count: number): Workload => ({
  name: "overall (mixed)",
  fixtures: streams.flatMap((stream) => stream.fixtures),
  passLines: streams.reduce((total, stream) => total + stream.passLines, 0),
  lines: Array.from({ length: count }, (_, i) => {
    const stream = streams[i % streams.length] as Workload
    return stream.lines[Math.floor(i / streams.length) % stream.lines.length] as Line
  })
})

export const averageBytes = (workload: Workload): number =>
  workload.lines.reduce((total, line) => total + Buffer.byteLength(line.data), 0) / workload.lines.length
