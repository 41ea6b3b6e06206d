/**
 * Changes benchmark (issue 31's quality bar): a working copy with 2,000 changed files and ~5 MB of
 * diff. (a) The CLI's report of it (cli/agent/ChangeReporter.ts's collectChanges, in process)
 * against the bare `git diff` it cannot do without, and whether the caps hold; (b) the report sent
 * through the bridge to a real `trellis serve` (embedded); (c) in Chromium, the thread page's
 * Changes summary and the panel's opening against the same page with a one-file report. Progress
 * goes to stderr, the report to stdout; a MISS is reported, not an error.
 */
import { FetchHttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Option, Schema } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { type ChangedFile, ChangeReportBody, MAX_FILE_PATCH, MAX_TOTAL_PATCH, totalPatchLength } from "../../catalog/domain/ChangeReport.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { BODY_BUDGET, collectChanges } from "../../cli/agent/ChangeReporter.js"
import { Git } from "../../cli/agent/Git.js"
import { makeCleanups, progress, runBenchmark } from "../BenchmarkRun.js"
import { bridgeClient, type BridgeClient, type Cli, createThreads, registerCli } from "../bridge/Bridge.js"
import { percentile } from "../bridge/Workload.js"
import { intEnv } from "../mcp-overhead/ChildProcess.js"
import { readCredentials, startServer, targetOf } from "../task-tools/Server.js"
import { launch, signedInPage, threadUrl } from "../web/Browser.js"
import { openChanges } from "./ChangesPage.js"
import { bareGitDiff, makeRepository } from "./Repository.js"

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url))
const settings = {
  files: intEnv("CHANGES_FILES", 2_000, 10),
  patchBytes: intEnv("CHANGES_PATCH_BYTES", 5 * 1024 * 1024, 1_000),
  rounds: intEnv("CHANGES_ROUNDS", 3, 1)
}
const TARGET_OPEN_MS = 1_000
const TIMEOUT_MS = 60_000

const cleanups = makeCleanups()
const median = (values: ReadonlyArray<number>) => percentile(values, 0.5)
const ms = (value: number) => `${value.toFixed(0)} ms`
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`
const mb = (chars: number) => `${(chars / 1024 / 1024).toFixed(2)} M`
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.orDie(effect))

const timed = async <A>(work: () => Promise<A> | A): Promise<{ readonly value: A; readonly ms: number }> => {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

const report = (dir: string) =>
  run(collectChanges(dir, "HEAD").pipe(Effect.provide(Git.Default), Effect.provide(NodeContext.layer))).then((body) =>
    Option.getOrThrowWith(body, () => new Error(`${dir} is not a git working tree`))
  )

/** Claims the thread for the CLI and sends `body` as its change report; the milliseconds the send took. */
const sendReport = async (client: BridgeClient, cli: Cli, threadId: string, body: ChangeReportBody) => {
  const { thread } = await run(client.agent.claim({ payload: { sessionId: cli.sessionId, threadId } }))
  const epoch = thread?.epoch ?? 0
  return (await timed(() => run(client.agent.reportChanges({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch, ...body } }))))
    .ms
}

const bySummary = (files: ReadonlyArray<ChangedFile>) => {
  const counts = new Map<string, number>()
  for (const file of files) counts.set(file.summarized ?? "inlined", (counts.get(file.summarized ?? "inlined") ?? 0) + 1)
  return [...counts].map(([why, count]) => `${count} ${why}`).join(", ")
}

const main = async (): Promise<void> => {
  const work = await mkdtemp(join(tmpdir(), "trellis-bench-changes-"))
  cleanups.push(() => rm(work, { recursive: true, force: true }))
  progress(`making a working copy with ${settings.files} changed files…`)
  const repository = makeRepository(join(work, "checkout"), settings.files, settings.patchBytes)

  // (a) Rounds alternate the two, so that a slow moment of the machine does not land on one only.
  const reads = { report: [] as Array<number>, git: [] as Array<number> }
  let body: ChangeReportBody | undefined
  for (let round = 1; round <= settings.rounds; round++) {
    const made = await timed(() => report(repository.dir))
    body = made.value
    reads.report.push(made.ms)
    reads.git.push((await timed(() => bareGitDiff(repository.dir))).ms)
    progress(`report round ${round}: ${ms(made.ms)} (bare git diff ${ms(reads.git.at(-1) ?? 0)})`)
  }
  if (body === undefined) throw new Error("no report was made")
  const patches = totalPatchLength(body.files)
  const encoded = Buffer.byteLength(JSON.stringify(body), "utf8")
  const largestPatch = Math.max(0, ...body.files.map((file) => file.patch?.length ?? 0))
  const valid = Schema.decodeUnknownEither(ChangeReportBody)(body)

  // (b) and (c) against a real server.
  const home = join(work, "home")
  progress("starting trellis serve…")
  const server = await startServer(REPO_ROOT, home, undefined)
  cleanups.push(server.stop)
  const credentials = await readCredentials(home)
  const baseUrl = new URL(server.url).origin
  const client = await run(bridgeClient(baseUrl, credentials.apiKey).pipe(Effect.provide(FetchHttpClient.layer)))
  const cli = await run(registerCli(client, Schema.decodeUnknownSync(ProjectId)(credentials.projectId), "changes-bench"))
  const [large, small] = await run(createThreads(targetOf(server, credentials), cli, 2, "claude", 1))
  if (large === undefined || small === undefined) throw new Error("the threads were not created")
  const sentMs = await sendReport(client, cli, large, body)
  const [first] = body.files.filter((file) => file.patch !== null)
  if (first === undefined) throw new Error("the report inlined no patch")
  await sendReport(client, cli, small, { ...body, files: [first], truncated: false })

  const browser = await launch()
  cleanups.push(() => browser.close())
  const page = await signedInPage(browser, baseUrl, credentials.apiKey)
  const largeLabel = `${body.files.length} files`
  const pages = { large: [] as Array<{ summaryMs: number; openMs: number }>, small: [] as Array<{ summaryMs: number; openMs: number }> }
  await openChanges(page, threadUrl(baseUrl, credentials.projectId, small), "1 file", TIMEOUT_MS) // warm-up
  for (let round = 1; round <= settings.rounds; round++) {
    pages.large.push(await openChanges(page, threadUrl(baseUrl, credentials.projectId, large), largeLabel, TIMEOUT_MS))
    pages.small.push(await openChanges(page, threadUrl(baseUrl, credentials.projectId, small), "1 file", TIMEOUT_MS))
    progress(`page round ${round}: ${JSON.stringify(pages.large.at(-1))} (${largeLabel}), ${JSON.stringify(pages.small.at(-1))} (1 file)`)
  }

  const reportMs = median(reads.report)
  const gitMs = median(reads.git)
  const summary = { large: median(pages.large.map((p) => p.summaryMs)), small: median(pages.small.map((p) => p.summaryMs)) }
  const open = { large: median(pages.large.map((p) => p.openMs)), small: median(pages.small.map((p) => p.openMs)) }
  const check = (holds: boolean) => (holds ? "holds" : "BROKEN")
  const lines = [
    `# Changes benchmark (${cpus().length} cores, embedded database, Chromium)`,
    "",
    `Working copy: ${settings.files} changed files, \`git diff HEAD\` ${mb(repository.diffChars)} characters ` +
    `(2 files over the per-file cap, a lock file). Report: ${body.files.length} files (${
      bySummary(body.files)
    }), truncated ${body.truncated}.`,
    "",
    "| measure | value | baseline (same run) | ratio | target |",
    "| --- | --- | --- | --- | --- |",
    `| the CLI's report of the working copy (median of ${settings.rounds}) | ${ms(reportMs)} | ${ms(gitMs)} (bare git diff + numstat) | ${
      ratio(reportMs, gitMs)
    } | — |`,
    `| report sent through the bridge (${mb(encoded)} B of JSON) | ${ms(sentMs)} | — | — | — |`,
    `| thread page: navigation → Changes summary | ${ms(summary.large)} | ${ms(summary.small)} (1 file) | ${
      ratio(summary.large, summary.small)
    } | — |`,
    `| Changes panel: click → first file row | ${ms(open.large)} | ${ms(open.small)} (1 file) | ${
      ratio(open.large, open.small)
    } | < ${TARGET_OPEN_MS} ms: ${open.large < TARGET_OPEN_MS ? "met" : "MISS"} |`,
    "",
    "| cap | value | limit | |",
    "| --- | --- | --- | --- |",
    `| patches in the report, total | ${mb(patches)} characters | ${mb(MAX_TOTAL_PATCH)} | ${check(patches <= MAX_TOTAL_PATCH)} |`,
    `| largest patch | ${(largestPatch / 1024).toFixed(0)} K characters | ${MAX_FILE_PATCH / 1024} K | ${
      check(largestPatch <= MAX_FILE_PATCH)
    } |`,
    `| report as JSON | ${mb(encoded)} B | ${mb(BODY_BUDGET)} (request body 4 M) | ${check(encoded <= BODY_BUDGET)} |`,
    `| the contract's Schema (ChangeReportBody) | ${valid._tag === "Right" ? "accepts it" : "refuses it"} | — | ${
      check(valid._tag === "Right")
    } |`,
    `| every changed file listed with its counts | ${body.files.length} of ${settings.files} | — | ${
      check(body.files.length === settings.files)
    } |`
  ]
  process.stdout.write(`${lines.join("\n")}\n`)
}

void runBenchmark(main, cleanups)
