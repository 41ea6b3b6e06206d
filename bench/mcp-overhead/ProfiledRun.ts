/**
 * The per-stage breakdown: Trellis and the floor started again under `--cpu-prof`, loaded the same
 * way, stopped, and their profiles read by `Stages.ts`. A separate pass, so that the sampler's own
 * cost (a few per cent) is not in the measured rounds.
 */
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { answered, type LoadSettings } from "./Load.js"
import type { Target } from "./Request.js"
import { decodeCpuProfile, type Stage, stageTimes, type StageTimes } from "./Stages.js"

export interface ProfiledServer {
  readonly target: Target
  readonly stop: () => Promise<void>
}

/** One server's profiled run: its stage times and how many calls they were spent on. */
export interface ProfiledLoad {
  readonly times: StageTimes
  readonly requests: number
}

export interface StageBreakdown {
  readonly seconds: number
  readonly trellis: ProfiledLoad
  readonly floor: ProfiledLoad
}

/** `--cpu-prof` into a new directory; `start` gets the node arguments and starts the server. */
const profiled = async (
  start: (nodeArgs: ReadonlyArray<string>) => Promise<ProfiledServer>,
  settings: LoadSettings,
  seconds: number
): Promise<ProfiledLoad> => {
  const dir = await mkdtemp(join(tmpdir(), "trellis-bench-prof-"))
  try {
    const server = await start(["--cpu-prof", `--cpu-prof-dir=${dir}`])
    let requests = 0
    try {
      if (settings.warmupSeconds > 0) requests += await answered(server.target, settings, settings.warmupSeconds)
      requests += await answered(server.target, settings, seconds)
    } finally {
      // The profile is written when the process exits.
      await server.stop()
    }
    // `cli/bin.js` starts the server as its child with the same flags: the launcher's profile is the small one.
    const files = await Promise.all((await readdir(dir)).map(async (name) => ({ name, size: (await stat(join(dir, name))).size })))
    const largest = files.sort((a, b) => b.size - a.size)[0]
    if (largest === undefined) throw new Error(`no CPU profile was written to ${dir}`)
    return { times: stageTimes(decodeCpuProfile(await readFile(join(dir, largest.name), "utf8"))), requests }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

export const stageBreakdown = async (
  trellis: (nodeArgs: ReadonlyArray<string>) => Promise<ProfiledServer>,
  floor: (nodeArgs: ReadonlyArray<string>) => Promise<ProfiledServer>,
  settings: LoadSettings,
  seconds: number
): Promise<StageBreakdown> => ({
  seconds,
  trellis: await profiled(trellis, settings, seconds),
  floor: await profiled(floor, settings, seconds)
})

/** The order a request meets the stages (`STAGES` is in the order their patterns must be tried). */
const ORDER: ReadonlyArray<Stage> = [
  "node:http (parse, socket write)",
  "guards (Host/Origin, body limit, rate)",
  "key lookup",
  "JSON-RPC framing",
  "MCP dispatch",
  "Schema decode and encode",
  "tool wrapper",
  "handler",
  "database",
  "Effect runtime (fibers, context, scopes)",
  "the floor's handler",
  "garbage collection",
  "other"
]

const perCall = (run: ProfiledLoad, stage: Stage): number => (run.times.micros.get(stage) ?? 0) / run.requests

const cell = (micros: number): string => (micros === 0 ? "—" : micros.toFixed(1)).padStart(9)

export const stageReport = (b: StageBreakdown): string => {
  const measured = new Set([...b.trellis.times.micros.keys(), ...b.floor.times.micros.keys()])
  // A stage missing from ORDER is still shown, last.
  const rows = [...new Set([...ORDER, ...measured])]
    .filter((stage) => measured.has(stage))
    .map((stage) => `${stage.padEnd(42)}${cell(perCall(b.trellis, stage))}${cell(perCall(b.floor, stage))}`)
  const total = (run: ProfiledLoad) => run.times.totalMicros / run.requests
  return [
    `Where one call's time goes: main-thread µs per answered call, sampled by a --cpu-prof run of each (${b.seconds} s;`,
    `${b.trellis.requests} calls to trellis, ${b.floor.requests} to the floor; the sampler adds a few per cent):`,
    "",
    `${"stage".padEnd(42)}${"trellis".padStart(9)}${"floor".padStart(9)}`,
    ...rows,
    `${"total".padEnd(42)}${cell(total(b.trellis))}${cell(total(b.floor))}`,
    `${"trellis / floor".padEnd(42)}${(total(b.trellis) / total(b.floor)).toFixed(2).padStart(9)}`
  ].join("\n")
}
