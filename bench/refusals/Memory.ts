import * as fs from "node:fs"

/** Resident memory of a process and its descendants (`trellis serve` is a launcher and a child), from /proc. */
export const treeRss = (pid: number): number => {
  try {
    const own = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0") * 1024
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim()
    return own + (children === "" ? 0 : children.split(" ").reduce((sum, child) => sum + treeRss(Number(child)), 0))
  } catch {
    return 0
  }
}

/** Samples `pid`'s tree every second; `at(s)` is the sample taken `s` seconds after the start. */
export const sampleRss = (pid: number) => {
  const started = performance.now()
  const samples: Array<{ readonly second: number; readonly bytes: number }> = []
  const take = () => samples.push({ second: (performance.now() - started) / 1000, bytes: treeRss(pid) })
  take()
  const timer = setInterval(take, 1_000)
  return {
    stop: () => clearInterval(timer),
    at: (second: number) =>
      samples.reduce((best, sample) => Math.abs(sample.second - second) < Math.abs(best.second - second) ? sample : best).bytes,
    peak: () => Math.max(...samples.map((sample) => sample.bytes))
  }
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
