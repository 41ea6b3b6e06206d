/**
 * A thread's Changes panel in Chromium against a real `trellis serve`: a fake CLI reports the
 * thread's working copy as `trellis agent` does after a turn, and the page shows the files under
 * their folders with their counts, opens a diff in the unified and split views, keeps "viewed"
 * until that file's diff changes in a newer report, pages past 100 files, and fits a phone.
 * Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type Browser, type Page } from "playwright-core"
import type { ChangedFile } from "../../catalog/domain/ChangeReport.js"
import { type AgentSessionId, ProjectId } from "../../catalog/domain/Ids.js"
import { Mcp, type Serve, Thread } from "../e2e/support/Trellis.js"
import { type BridgeClient, registerCli, remoteBridgeClient } from "../support/FakeCli.js"
import {
  accessibilityProblems,
  DESKTOP,
  fitsWidth,
  launchChromium,
  openPage,
  PHONE,
  screenshot,
  signInLink,
  startBackend,
  stopBackend
} from "./support/Browser.js"

const BASE = "a".repeat(40)
const HEAD = "b".repeat(40)

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.orDie(effect))

/** A file's git patch with `removed` lines replaced by `added` ones. */
const modified = (file: string, removed: ReadonlyArray<string>, added: ReadonlyArray<string>): ChangedFile => ({
  path: file,
  status: "modified",
  additions: added.length,
  deletions: removed.length,
  binary: false,
  patch: [
    `diff --git a/${file} b/${file}`,
    "index 1111111..2222222 100644",
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,${removed.length + 1} +1,${added.length + 1} @@`,
    " export const unchanged = 1",
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
    ""
  ].join("\n")
})

const FIRST_REPORT: ReadonlyArray<ChangedFile> = [
  modified("src/export/csv.ts", ["const sep = \";\""], ["const sep = \",\"", "const quote = '\"'"]),
  modified("README.md", ["Old usage"], ["New usage"]),
  { path: "package-lock.json", status: "modified", additions: 120, deletions: 80, binary: false, patch: null, summarized: "lockfile" },
  { path: "assets/logo.png", status: "added", additions: 0, deletions: 0, binary: true, patch: null, summarized: "binary" }
]

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("a thread's Changes panel in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []
  let client: BridgeClient | undefined
  let claim: { readonly threadId: string; readonly sessionId: AgentSessionId; readonly epoch: number } | undefined

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined || client === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page, client }
  }
  const report = (files: ReadonlyArray<ChangedFile>) => {
    if (claim === undefined || client === undefined) throw new Error("the thread was not claimed")
    return run(
      client.agent.reportChanges({
        path: { threadId: claim.threadId },
        payload: {
          sessionId: claim.sessionId,
          epoch: claim.epoch,
          baseCommit: BASE,
          headCommit: HEAD,
          branch: "export-csv",
          files,
          truncated: false
        }
      })
    )
  }
  const panel = () => backend().page.locator("details.changes")
  const fileRow = (file: string) => panel().locator(`li.change-file[data-path="${file}"]`)

  beforeAll(async () => {
    const started = await startBackend("trellis-changes-home-")
    serve = started.serve
    mcp = started.mcp
    client = await remoteBridgeClient(serve.baseUrl, serve.credentials.apiKey)
    const projectId = Schema.decodeUnknownSync(ProjectId)(serve.credentials.projectId)
    const { profile, sessionId } = await run(registerCli(client, projectId, { name: "changes-box" }))
    const { threadId } = await mcp.call(Thread, "create_thread", {
      profileId: profile.profileId,
      pathId: profile.paths[0]?.pathId ?? "",
      cliType: "claude",
      content: "Export the rows as CSV"
    })
    const { thread } = await run(client.agent.claim({ payload: { sessionId, threadId } }))
    claim = { threadId, sessionId, epoch: thread?.epoch ?? 0 }
    await run(client.agent.startBatch({ path: { threadId }, payload: { sessionId, epoch: claim.epoch } }))
    await report(FIRST_REPORT)
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    errors = opened.errors
    await page.goto(await signInLink(serve, `/projects/${encodeURIComponent(projectId)}/threads/${threadId}`))
    await page.getByRole("heading", { level: 1, name: "Export the rows as CSV" }).waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("the panel sums the report and lists each file under its folder with its counts", async () => {
    const summary = panel().locator("summary")
    await expect.poll(() => summary.textContent(), { timeout: 10_000 }).toBe("Changes 4 files +123 −82")
    await summary.click()
    expect(await panel().locator(".change-folder h3").allTextContents()).toEqual(["/", "assets/", "src/export/"])
    expect(await fileRow("src/export/csv.ts").locator(".change-counts").textContent()).toBe("+2 −1")
    expect(await fileRow("package-lock.json").locator(".change-counts").textContent()).toBe("+120 −80")
    expect(await panel().locator(".changes-head").textContent()).toContain("export-csv · aaaaaaaa..bbbbbbbb")
  })

  it("a file's diff opens highlighted in the split view, then in the unified one; a lock file says why it is not shown", async () => {
    const { page } = backend()
    await fileRow("src/export/csv.ts").getByRole("button", { expanded: false }).click()
    const diff = fileRow("src/export/csv.ts").locator(".change-diff")
    // The diff is drawn in a shadow root: Playwright's text locators see into it, textContent does not.
    await diff.getByText("const quote").first().waitFor({ timeout: 15_000 })
    await screenshot(page, "changes-split-1440", { fullPage: false })
    await panel().getByRole("button", { name: "Unified" }).click()
    await diff.getByText("const sep").first().waitFor({ timeout: 15_000 })
    await screenshot(page, "changes-unified-1440", { fullPage: false })
    await fileRow("package-lock.json").getByRole("button", { expanded: false }).click()
    expect(await fileRow("package-lock.json").textContent()).toContain("A lock file: counted, not shown.")
  })

  it("viewed stays through a report that leaves the file alone and goes when its diff changes", async () => {
    const viewed = (file: string) => fileRow(file).getByRole("checkbox", { name: "Viewed" })
    await viewed("src/export/csv.ts").check()
    await viewed("README.md").check()
    await report([
      FIRST_REPORT[0] ?? modified("x", [], []),
      modified("README.md", ["Old usage"], ["New usage", "And an example"]),
      ...FIRST_REPORT.slice(2)
    ])
    await expect.poll(() => panel().locator("summary").textContent(), { timeout: 10_000 }).toBe("Changes 4 files +124 −82")
    expect(await viewed("README.md").isChecked()).toBe(false)
    expect(await viewed("src/export/csv.ts").isChecked()).toBe(true)
  })

  it("a report of 150 files shows its first 100 and the rest on request", async () => {
    const many = Array.from({ length: 150 }, (_, i) => modified(`pkg/file-${String(i).padStart(3, "0")}.ts`, ["a"], ["b"]))
    await report(many)
    await expect.poll(() => panel().locator("summary").textContent(), { timeout: 10_000 }).toBe("Changes 150 files +150 −150")
    expect(await panel().locator("li.change-file").count()).toBe(100)
    await panel().getByRole("button", { name: "More files (100 of 150 shown)" }).click()
    await expect.poll(() => panel().locator("li.change-file").count()).toBe(150)
    expect(await accessibilityProblems(backend().page, "details.changes")).toEqual([])
    expect(errors).toEqual([])
  })

  it("Refresh asks the machine for a fresh report, and the next report ends the wait", async () => {
    const { mcp } = backend()
    await panel().getByRole("button", { name: "Refresh" }).click()
    const status = panel().locator(".changes-head [role=status]")
    await expect.poll(() => status.textContent()).toBe("Asking the machine for its working copy…")
    expect(await panel().getByRole("button", { name: "Refresh" }).isDisabled()).toBe(true)
    // The thread is mid-turn: the turn's report is the answer.
    await report(FIRST_REPORT)
    await expect.poll(() => panel().locator("summary").textContent(), { timeout: 10_000 }).toBe("Changes 4 files +123 −82")
    await expect.poll(() => status.textContent()).toBe("")
    expect(await panel().getByRole("button", { name: "Refresh" }).isDisabled()).toBe(false)
    const changes = await mcp.call(
      Schema.Struct({ report: Schema.Struct({ totals: Schema.Struct({ files: Schema.Number }) }) }),
      "get_thread_changes",
      {
        threadId: claim?.threadId ?? ""
      }
    )
    expect(changes.report.totals.files).toBe(4)
  })

  it("on a phone the panel fits the screen and opens in the unified view", async () => {
    const { browser, page } = backend()
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await report(FIRST_REPORT)
    await phone.page.goto(page.url())
    const summary = phone.page.locator("details.changes summary")
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toBe("Changes 4 files +123 −82")
    await summary.click()
    await phone.page.getByRole("button", { name: "Unified" }).waitFor()
    expect(await phone.page.getByRole("button", { name: "Unified" }).getAttribute("aria-pressed")).toBe("true")
    await phone.page.locator(`li.change-file[data-path="src/export/csv.ts"] button[aria-expanded]`).click()
    await phone.page.locator("li.change-file .change-diff").getByText("const quote").first().waitFor({ timeout: 15_000 })
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "changes-390")
    expect(phone.errors).toEqual([])
    await phone.page.close()
  })
})
