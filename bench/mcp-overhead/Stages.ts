/**
 * Where a server's CPU goes per request, read from a V8 CPU profile (`node --cpu-prof`) of a run
 * under load. Each sample is charged to the stage of the innermost frame that has a script (a
 * native such as `writev` or `JSON.parse` goes to its caller); idle samples, and those before the
 * first or after the last request the server handled (its start, its shutdown), are left out.
 */
import { Schema } from "effect"

const CallFrame = Schema.Struct({ functionName: Schema.String, url: Schema.String })
const ProfileNode = Schema.Struct({ id: Schema.Number, callFrame: CallFrame, children: Schema.optional(Schema.Array(Schema.Number)) })
const CpuProfile = Schema.Struct({
  nodes: Schema.Array(ProfileNode),
  samples: Schema.Array(Schema.Number),
  timeDeltas: Schema.Array(Schema.Number)
})
export const decodeCpuProfile = Schema.decodeUnknownSync(Schema.parseJson(CpuProfile))
type CpuProfile = typeof CpuProfile.Type

/** The stages a script's URL is charged to: the first pattern that matches wins. */
export const STAGES = [
  { stage: "key lookup", matches: /^node:internal\/crypto\/|\/src\/platform\/auth\// },
  { stage: "node:http (parse, socket write)", matches: /^node:/ },
  { stage: "guards (Host/Origin, body limit, rate)", matches: /\/src\/platform\/http\/|\/src\/server\/NodeServer\.js$/ },
  { stage: "JSON-RPC framing", matches: /\/src\/server\/(McpHttp|McpRoute)\.js$/ },
  { stage: "MCP dispatch", matches: /\/src\/server\/(McpServer|ToolRunner|McpProjectContent)\.js$/ },
  { stage: "Schema decode and encode", matches: /\/effect\/dist\/esm\/(Schema|ParseResult|SchemaAST|JSONSchema)\.js$|\/catalog\// },
  { stage: "tool wrapper", matches: /\/src\/platform\/mcp\// },
  { stage: "database", matches: /^wasm:|\/@electric-sql\/pglite\/|\/@effect\/sql|\/src\/platform\/sql\// },
  { stage: "handler", matches: /\/src\// },
  { stage: "Effect runtime (fibers, context, scopes)", matches: /\/effect\/dist\/|\/@effect\// },
  { stage: "the floor's handler", matches: /FloorServer\.ts$/ }
] as const

export type Stage = (typeof STAGES)[number]["stage"] | "garbage collection" | "other"

const stageOfUrl = (url: string): Stage => STAGES.find((s) => s.matches.test(url))?.stage ?? "other"

/** A request the server handled is on the stack: node's HTTP server called into the program. */
const HANDLING = /^node:_http_server$/

export interface StageTimes {
  /** Microseconds of main-thread CPU per stage, over the window of requests. */
  readonly micros: ReadonlyMap<Stage, number>
  readonly totalMicros: number
}

export const stageTimes = (profile: CpuProfile): StageTimes => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const stackUrls = (id: number): ReadonlyArray<string> => {
    const urls: Array<string> = []
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) urls.push(byId.get(at)?.callFrame.url ?? "")
    return urls
  }
  const stageOf = new Map<number, Stage | "idle">()
  const handling = new Map<number, boolean>()
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName
    const urls = stackUrls(node.id)
    handling.set(node.id, urls.some((url) => HANDLING.test(url)))
    const stage: Stage | "idle" = name === "(idle)"
      ? "idle"
      : name === "(garbage collector)"
      ? "garbage collection"
      : stageOfUrl(urls.find((url) => url !== "") ?? "")
    stageOf.set(node.id, stage)
  }
  const first = profile.samples.findIndex((id) => handling.get(id) === true)
  let last = profile.samples.length - 1
  while (last >= 0 && handling.get(profile.samples[last] ?? -1) !== true) last--
  const micros = new Map<Stage, number>()
  let totalMicros = 0
  for (let i = Math.max(first, 0); i <= last; i++) {
    const stage = stageOf.get(profile.samples[i] ?? -1)
    // A sample's delta is the time since the one before it: the time it stands for.
    const delta = profile.timeDeltas[i] ?? 0
    if (stage === undefined || stage === "idle") continue
    micros.set(stage, (micros.get(stage) ?? 0) + delta)
    totalMicros += delta
  }
  return { micros, totalMicros }
}
