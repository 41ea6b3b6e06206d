/** What a process holds, read from outside: resident set (and its anonymous part) from /proc, heap from HeapProbe.mjs. */
import { readFileSync } from "node:fs"
import { join } from "node:path"

export interface Sample {
  readonly rss: number
  /** Anonymous resident memory: the heaps and PGlite's WebAssembly memory, not the mapped binary and files. */
  readonly anon: number
  /** V8 heap used and reserved, and memory outside it (buffers); undefined without the probe. */
  readonly heapUsed: number | undefined
  readonly heapTotal: number | undefined
  readonly external: number | undefined
}

const kb = (status: string, field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? "0") * 1024

const probe = (probeDir: string | undefined, pid: number): Record<string, unknown> | undefined => {
  if (probeDir === undefined) return undefined
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(probeDir, `${pid}.json`), "utf8"))
    return typeof parsed === "object" && parsed !== null ? { ...parsed } : undefined
  } catch {
    return undefined
  }
}

const numberIn = (record: Record<string, unknown> | undefined, field: string): number | undefined => {
  const value = record?.[field]
  return typeof value === "number" ? value : undefined
}

export const sample = (pid: number, probeDir?: string): Sample => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const heap = probe(probeDir, pid)
  return {
    rss: kb(status, "VmRSS"),
    anon: kb(status, "RssAnon"),
    heapUsed: numberIn(heap, "heapUsed"),
    heapTotal: numberIn(heap, "heapTotal"),
    external: numberIn(heap, "external")
  }
}

/** The process `pid` started (the launcher's one child: `trellis serve` itself), once it exists. */
export const childOf = (pid: number): number | undefined => {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter((c) => c !== "")
    return children.length === 1 ? Number(children[0]) : undefined
  } catch {
    return undefined
  }
}

/** Samples `pid` every `everyMs` until stopped; the peak resident set seen. */
export const watchPeak = (pid: () => number | undefined, everyMs: number) => {
  let peak = 0
  const take = () => {
    const current = pid()
    if (current === undefined) return
    try {
      peak = Math.max(peak, sample(current).rss)
    } catch {
      // The process ended between two samples.
    }
  }
  const timer = setInterval(take, everyMs)
  return {
    stop: (): number => {
      clearInterval(timer)
      take()
      return peak
    }
  }
}

export const mb = (bytes: number | undefined): string => bytes === undefined ? "n/a" : `${(bytes / 1024 / 1024).toFixed(0)} MB`
