/**
 * Review comments on a thread's changes in Chromium against a real `trellis serve` (issue 31 §2):
 * a comment on a range of a diff's lines is saved as a draft while it is written and is still there
 * after a reload; "Send review" queues it on the busy thread as one message; the next change report
 * that rewrites those lines marks it maybe addressed; it is resolved. Screenshots land in
 * test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type Browser, type Page } from "playwright-core"
import type { ChangedFile } from "../../catalog/domain/ChangeReport.js"
import { type AgentSessionId, ProjectId } from "../../catalog/domain/Ids.js"
import { Mcp, messagesOf, type Serve, Thread } from "../e2e/support/Trellis.js"
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
const FILE = "src/export/csv.ts"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.orDie(effect))

/** The file's patch: one context line, `removed` replaced by `added`, one more context line. */
const modified = (removed: ReadonlyArray<string>, added: ReadonlyArray<string>): ChangedFile => ({
  path: FILE,
  status: "modified",
  additions: added.length,
  deletions: removed.length,
  binary: false,
  patch: [
    `diff --git a/${FILE} b/${FILE}`,
    `--- a/${FILE}`,
    `+++ b/${FILE}`,
    `@@ -1,${removed.length + 2} +1,${added.length + 2} @@`,
    " export const unchanged = 1",
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
    " export const tail = 2",
    ""
  ].join("\n")
})

const FIRST = modified(["const sep = \";\""], ["const sep = \",\"", "const quote = '\"'"])
const SECOND = modified(["const sep = \";\""], ["export const SEPARATOR = \",\"", "export const QUOTE = '\"'"])
const BODY = "Name these as exported constants"

const Comments = Schema.Struct({ comments: Schema.Array(Schema.Struct({ status: Schema.String, maybeAddressed: Schema.Boolean })) })

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("review comments in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []
  let client: BridgeClient | undefined
  let claim: { readonly threadId: string; readonly sessionId: AgentSessionId; readonly epoch: number } | undefined

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined || claim === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page, claim }
  }
  const report = (files: ReadonlyArray<ChangedFile>) => {
    if (claim === undefined || client === undefined) throw new Error("the thread was not claimed")
    return run(client.agent.reportChanges({
      path: { threadId: claim.threadId },
      payload: {
        sessionId: claim.sessionId,
        epoch: claim.epoch,
        baseCommit: BASE,
        headCommit: HEAD,
        branch: "csv",
        files,
        truncated: false
      }
    }))
  }
  const panel = (on: Page = backend().page) => on.locator("details.changes")
  const review = (on: Page = backend().page) => panel(on).getByRole("region", { name: "Review" })
  const openPanel = async (on: Page) => {
    const summary = panel(on).locator("summary")
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toContain("Changes 1 file ")
    await summary.click()
  }

  beforeAll(async () => {
    const started = await startBackend("trellis-review-home-")
    serve = started.serve
    mcp = started.mcp
    client = await remoteBridgeClient(serve.baseUrl, serve.credentials.apiKey)
    const projectId = Schema.decodeUnknownSync(ProjectId)(serve.credentials.projectId)
    const { profile, sessionId } = await run(registerCli(client, projectId, { name: "review-box" }))
    const { threadId } = await mcp.call(Thread, "create_thread", {
      profileId: profile.profileId,
      pathId: profile.paths[0]?.pathId ?? "",
      cliType: "claude",
      content: "Export the rows as CSV"
    })
    const { thread } = await run(client.agent.claim({ payload: { sessionId, threadId } }))
    claim = { threadId, sessionId, epoch: thread?.epoch ?? 0 }
    // The agent is busy with its turn: the review must wait in its queue.
    await run(client.agent.startBatch({ path: { threadId }, payload: { sessionId, epoch: claim.epoch } }))
    await report([FIRST])
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    errors = opened.errors
    await page.goto(await signInLink(serve, `/projects/${encodeURIComponent(projectId)}/threads/${threadId}`))
    await page.getByRole("heading", { level: 1, name: "Export the rows as CSV" }).waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("a comment on a range of lines, started from the keyboard, is saved as a draft as it is written and is still there after a reload", async () => {
    const { page } = backend()
    await openPanel(page)
    const comment = panel().getByRole("button", { name: `Comment on lines of ${FILE}` })
    await comment.focus()
    await page.keyboard.press("Enter")
    const composer = panel().getByRole("form", { name: `Comment on ${FILE}` })
    await composer.waitFor()
    expect(await composer.getByLabel("Side").inputValue()).toBe("additions")
    await composer.getByLabel("To").fill("3")
    await composer.getByLabel("Comment").fill(BODY)
    await expect.poll(() => composer.getByRole("status").textContent(), { timeout: 10_000 }).toBe("Draft saved")
    // Saved, the lines are fixed and the comment shows under them in the diff.
    expect(await composer.getByLabel("To").isDisabled()).toBe(true)
    await panel().locator(".change-diff").getByText(BODY).first().waitFor({ timeout: 15_000 })
    await screenshot(page, "review-draft-1440", { fullPage: false })
    expect(await accessibilityProblems(page, "details.changes")).toEqual([])
    await composer.getByRole("button", { name: "Done" }).click()

    await page.reload()
    await openPanel(page)
    const draft = review().getByRole("textbox", { name: `Comment on ${FILE}:2–3` })
    expect(await draft.inputValue()).toBe(BODY)
    expect(await review().locator(".review-quote").textContent()).toBe("+const sep = \",\"\n+const quote = '\"'\n")
  })

  it("Send review queues the drafts on the busy thread as one message", async () => {
    const { claim, mcp } = backend()
    const before = await messagesOf(mcp, claim.threadId)
    await review().getByRole("button", { name: "Send review (1 comment)" }).click()
    await expect.poll(() => review().getByRole("status").first().textContent(), { timeout: 10_000 }).toBe(
      "Review sent to the thread: 1 comment."
    )
    const after = await messagesOf(mcp, claim.threadId)
    expect(after).toHaveLength(before.length + 1)
    const message = after[after.length - 1]
    expect(message?.role).toBe("user")
    expect(message?.status).toBe("pending")
    expect(message?.text).toContain(`### 1. ${FILE}:2-3\n\`\`\`diff\n+const sep = ","\n+const quote = '"'\n\`\`\`\n${BODY}`)
    await review().locator(".review-badge", { hasText: "Open" }).waitFor()
  })

  it("the next report that rewrites those lines marks the comment maybe addressed, and it is resolved", async () => {
    const { claim, mcp, page } = backend()
    await report([SECOND])
    await review().getByText("Maybe addressed").waitFor({ timeout: 15_000 })
    await review().scrollIntoViewIfNeeded()
    await screenshot(page, "review-maybe-addressed-1440", { fullPage: false })
    const resolve = review().getByRole("button", { name: `Resolve the comment on ${FILE}:2–3` })
    await resolve.focus()
    await page.keyboard.press("Enter")
    await review().locator(".review-badge", { hasText: "Resolved" }).waitFor({ timeout: 10_000 })
    const listed = await mcp.call(Comments, "list_review_comments", { threadId: claim.threadId })
    expect(listed.comments).toEqual([{ status: "resolved", maybeAddressed: true }])
    expect(await accessibilityProblems(page, "details.changes")).toEqual([])
    expect(errors).toEqual([])
  })

  it("dragging over line numbers in the diff starts a comment on those lines", async () => {
    const { page } = backend()
    await panel().getByRole("button", { name: "Unified" }).click()
    const row = panel().locator(`li.change-file[data-path="${FILE}"]`)
    const toggle = row.getByRole("button", { expanded: false })
    if (await toggle.count() > 0) await toggle.first().click()
    const number = (n: string) => row.locator(".change-diff [data-column-number]").filter({ hasText: new RegExp(`^${n}$`) }).last()
    await number("3").waitFor({ timeout: 15_000 })
    await number("4").waitFor({ timeout: 15_000 })
    // The mouse reaches only what is on screen.
    await number("4").scrollIntoViewIfNeeded()
    const from = await number("3").boundingBox()
    const to = await number("4").boundingBox()
    if (from === null || to === null) throw new Error("the diff's line numbers are not on the page")
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
    await page.mouse.down()
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 4 })
    await page.mouse.up()
    const composer = panel().getByRole("form", { name: `Comment on ${FILE}` })
    await composer.waitFor({ timeout: 10_000 })
    expect([
      await composer.getByLabel("Side").inputValue(),
      await composer.getByLabel("From").inputValue(),
      await composer.getByLabel("To").inputValue()
    ])
      .toEqual(["additions", "3", "4"])
    await composer.getByRole("button", { name: "Discard" }).click()
    await composer.waitFor({ state: "detached" })
  })

  it("on a phone a comment is written in the unified view and the page fits the screen", async () => {
    const { browser, page } = backend()
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await phone.page.goto(page.url())
    await openPanel(phone.page)
    expect(await phone.page.getByRole("button", { name: "Unified" }).getAttribute("aria-pressed")).toBe("true")
    await panel(phone.page).getByRole("button", { name: `Comment on lines of ${FILE}` }).click()
    const composer = panel(phone.page).getByRole("form", { name: `Comment on ${FILE}` })
    await composer.getByLabel("Comment").fill("Quote the separator too")
    await expect.poll(() => composer.getByRole("status").textContent(), { timeout: 10_000 }).toBe("Draft saved")
    await panel(phone.page).locator(".change-diff").getByText("export const QUOTE").first().waitFor({ timeout: 15_000 })
    expect(await fitsWidth(phone.page)).toBe(true)
    expect(await accessibilityProblems(phone.page, "details.changes")).toEqual([])
    await screenshot(phone.page, "review-390")
    expect(phone.errors).toEqual([])
    await phone.page.close()
  })
})
