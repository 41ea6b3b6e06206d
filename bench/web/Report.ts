/** The printed report: each figure beside its same-run baselines, the ratios, and the targets (PASS/MISS). */
import type { FrameGaps } from "./Browser.js"

/** The budget (#18). */
export const TARGETS = { bundleKb: 250, firstRenderMs: 1_000, uploadP99Ms: 100 } as const

export interface Results {
  readonly bundle: { readonly files: ReadonlyArray<string>; readonly gzippedBytes: number }
  readonly events: number
  readonly smallEvents: number
  readonly firstRender: {
    readonly large: ReadonlyArray<number>
    readonly small: ReadonlyArray<number>
    readonly raw: ReadonlyArray<number>
  }
  readonly scroll: { readonly moving: FrameGaps; readonly idle: FrameGaps; readonly rows: number }
  readonly latency: {
    readonly samples: number
    readonly painted: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number }
    readonly shown: { readonly p50Ms: number; readonly p99Ms: number }
    readonly arrived: { readonly p50Ms: number; readonly p99Ms: number }
    readonly missing: number
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
const verdict = (pass: boolean) => (pass ? "PASS" : "MISS")
const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? Number.NaN : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2
}
const list = (values: ReadonlyArray<number>) => values.map((v) => v.toFixed(0)).join(", ")

export const report = (results: Results, cores: number): string => {
  const kb = results.bundle.gzippedBytes / 1024
  const large = median(results.firstRender.large)
  const small = median(results.firstRender.small)
  const raw = median(results.firstRender.raw)
  const { moving, idle } = results.scroll
  const { latency } = results
  return [
    `Web app benchmark: Chromium (headless) against trellis serve (embedded database), ${cores} cores`,
    "",
    `(a) initial JavaScript, gzipped: ${kb.toFixed(1)} KB of ${TARGETS.bundleKb} KB (${results.bundle.files.join(", ")})  ${
      verdict(kb <= TARGETS.bundleKb)
    }`,
    "",
    `(b) first render, navigation → last event on screen (median of ${results.firstRender.large.length}):`,
    `    ${results.events.toLocaleString("en-US")} events   ${ms(large)}   [${
      list(results.firstRender.large)
    }]  target < ${TARGETS.firstRenderMs} ms  ${verdict(large < TARGETS.firstRenderMs)}`,
    `    ${results.smallEvents.toLocaleString("en-US")} events       ${ms(small)}   [${list(results.firstRender.small)}]  ratio ${
      ratio(large, small)
    }`,
    `    bare EventSource reading the ${results.events.toLocaleString("en-US")} events as the page does (batched, JSON.parse, no app): ${
      ms(raw)
    }   [${list(results.firstRender.raw)}]  ratio ${ratio(large, raw)}`,
    "",
    `(c) scrolling the ${results.events.toLocaleString("en-US")}-event thread (${
      results.scroll.rows.toLocaleString("en-US")
    } rows) top to bottom, ¾ screen per frame:`,
    `    ${moving.frames} frames over ${(moving.scrolledPx / 1000).toFixed(0)}k px: frame gap p50 ${ms(moving.p50Ms)}, p99 ${
      ms(moving.p99Ms)
    }, max ${ms(moving.maxMs)}`,
    `    the page standing still (${idle.frames} frames): p50 ${ms(idle.p50Ms)}, p99 ${ms(idle.p99Ms)}, max ${ms(idle.maxMs)}   ratio p50 ${
      ratio(moving.p50Ms, idle.p50Ms)
    }, p99 ${ratio(moving.p99Ms, idle.p99Ms)}`,
    "",
    `(d) upload → in the open page (${latency.samples} single-chunk uploads, from the upload request's start; ${latency.missing} never shown):`,
    `    painted (frame after the DOM change) p50 ${ms(latency.painted.p50Ms)}, p99 ${ms(latency.painted.p99Ms)}, max ${
      ms(latency.painted.maxMs)
    }  target p99 ≤ ${TARGETS.uploadP99Ms} ms  ${verdict(latency.painted.p99Ms <= TARGETS.uploadP99Ms)}`,
    `    in the DOM                          p50 ${ms(latency.shown.p50Ms)}, p99 ${ms(latency.shown.p99Ms)}`,
    `    baseline: frame arrival on a bare EventSource in the same page  p50 ${ms(latency.arrived.p50Ms)}, p99 ${
      ms(latency.arrived.p99Ms)
    }   ratio p99 ${ratio(latency.painted.p99Ms, latency.arrived.p99Ms)}`
  ].join("\n")
}
