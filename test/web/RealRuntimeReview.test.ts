/**
 * Reviewing what a real agent changed (issue 31 §1–§2): Chromium against a real `trellis serve` and a
 * real `trellis agent start` whose Claude Code talks to the mock model. A turn edits two files and
 * the Changes panel shows both with their counts; a comment on a range of lines is a draft that a
 * reload keeps; Send review reaches Claude Code in its next turn; the turn that rewrites those lines
 * makes the comment "maybe addressed"; and Claude Code itself lists the comments and resolves this
 * one with Trellis's MCP tools, which the page shows. Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import {
  answerTo,
  type Backend,
  createThread,
  type Machine,
  onlineTarget,
  realMachine,
  send,
  startRealAgent
} from "../e2e/support/RealRuntimes.js"
import type { Agent } from "../e2e/support/Trellis.js"
import { type MockModel, startMockModel } from "../support/mock-model/MockModel.js"
import { claudeCannotRunHere } from "../support/runtimes/RuntimeBinaries.js"
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

const NOTES = "notes.txt"
/** The first turn: a new file of three lines, and two lines added to the checkout's README.md. */
const EDIT_TWO_FILES = `printf 'alpha\\nbeta\\ngamma\\n' > ${NOTES} && printf 'more\\nlines\\n' >> README.md`
/** The turn that addresses the comment: the commented lines rewritten. */
const ADDRESS = `printf 'ALPHA\\nBETA\\ngamma\\n' > ${NOTES}`
const BODY = "Capitalize these two names"

const Comment = Schema.Struct({
  commentId: Schema.String,
  status: Schema.String,
  maybeAddressed: Schema.Boolean,
  resolution: Schema.optional(Schema.NullOr(Schema.String))
})
const Comments = Schema.Struct({ comments: Schema.Array(Comment) })

describe.skipIf(process.env["DATABASE_URL"] !== undefined || claudeCannotRunHere()).sequential(
  "reviewing a real Claude Code's changes in Chromium",
  () => {
    let mock: MockModel | undefined
    let backend: Backend | undefined
    let machine: Machine | undefined
    let agent: Agent | undefined
    let browser: Browser | undefined
    let page: Page | undefined
    let errors: Array<string> = []
    let threadId = ""

    const started = () => {
      if (mock === undefined || backend === undefined || machine === undefined || agent === undefined || page === undefined) {
        throw new Error("the backend, the machine or the browser did not start")
      }
      return { mock, backend, machine, agent, page }
    }

    /** Sends `content` to the thread over MCP and waits for Claude Code's answer to it. */
    const turn = async (content: string) => {
      const { agent, backend } = started()
      const { messageId } = await send(backend, threadId, content)
      return answerTo(backend, threadId, messageId, agent)
    }

    const panel = (on: Page) => on.locator("details.changes")
    const review = (on: Page) => panel(on).getByRole("region", { name: "Review" })
    const fileRow = (on: Page, file: string) => panel(on).locator(`li.change-file[data-path="${file}"]`)
    const openPanel = async (on: Page, summary: string) => {
      await expect.poll(() => panel(on).locator("summary").textContent(), { timeout: 30_000 }).toBe(summary)
      await panel(on).locator("summary").click()
    }

    beforeAll(async () => {
      mock = await startMockModel()
      backend = await startBackend("trellis-rt-review-home-")
      machine = await realMachine(backend, mock, "review", ["claude"])
      // The machine answers Claude Code's permission requests itself: this file is about the review.
      agent = await startRealAgent(machine, ["--approve", "all"])
      const target = await onlineTarget(backend, machine, agent)
      threadId = await createThread(backend, target, "claude", `Please RUN_TOOL[${EDIT_TWO_FILES}]`)
      browser = await launchChromium()
      const opened = await openPage(browser, DESKTOP)
      page = opened.page
      errors = opened.errors
      const projectId = backend.serve.credentials.projectId
      await page.goto(await signInLink(backend.serve, `/projects/${encodeURIComponent(projectId)}/threads/${threadId}`))
    }, 180_000)

    afterAll(async () => {
      await stopBackend(browser, backend?.mcp)
      await mock?.close()
    }, 30_000)

    it("a turn that edits two files shows both in the Changes panel with their counts", async () => {
      const { machine, page } = started()
      await openPanel(page, "Changes 2 files +5 −0")
      expect(fs.readFileSync(path.join(machine.checkout, NOTES), "utf8")).toBe("alpha\nbeta\ngamma\n")
      expect(await fileRow(page, NOTES).locator(".change-counts").textContent()).toBe("+3 −0")
      expect(await fileRow(page, "README.md").locator(".change-counts").textContent()).toBe("+2 −0")
      await screenshot(page, "real-review-changes-1440", { fullPage: false })
      expect(await accessibilityProblems(page, "details.changes")).toEqual([])
    }, 120_000)

    it("a comment on a range of lines is a draft a reload keeps; Send review reaches Claude Code in its next turn", async () => {
      const { backend, mock, page } = started()
      await fileRow(page, NOTES).getByRole("button", { name: `Comment on lines of ${NOTES}` }).click()
      const composer = panel(page).getByRole("form", { name: `Comment on ${NOTES}` })
      await composer.getByLabel("From").fill("1")
      await composer.getByLabel("To").fill("2")
      await composer.getByLabel("Comment").fill(BODY)
      await expect.poll(() => composer.getByRole("status").textContent(), { timeout: 10_000 }).toBe("Draft saved")
      await composer.getByRole("button", { name: "Done" }).click()

      await page.reload()
      await openPanel(page, "Changes 2 files +5 −0")
      const draft = review(page).getByRole("textbox", { name: `Comment on ${NOTES}:1–2` })
      expect(await draft.inputValue()).toBe(BODY)

      const asked = mock.requests.length
      await review(page).getByRole("button", { name: "Send review (1 comment)" }).click()
      await expect.poll(() => review(page).getByRole("status").first().textContent(), { timeout: 10_000 }).toBe(
        "Review sent to the thread: 1 comment."
      )
      // The review is the thread's next user message: Claude Code runs it as its next turn.
      await expect.poll(
        () => mock.requests.slice(asked).some((request) => request.conversation?.lastUserText.includes(BODY) === true),
        { timeout: 90_000 }
      ).toBe(true)
      const reviewed = mock.requests.slice(asked).find((request) => request.conversation?.lastUserText.includes(BODY) === true)
      expect(reviewed?.conversation?.lastUserText).toContain(`${NOTES}:1-2\n\`\`\`diff\n+alpha\n+beta\n\`\`\`\n${BODY}`)
      const { comments } = await backend.mcp.call(Comments, "list_review_comments", { threadId })
      expect(comments.map((comment) => comment.status)).toEqual(["open"])
    }, 120_000)

    it("the turn that rewrites those lines makes the comment maybe addressed; Claude Code lists it and resolves it over MCP", async () => {
      const { backend, mock, page } = started()
      const addressed = await turn(`Done, RUN_TOOL[${ADDRESS}]`)
      expect(addressed.status).toBe("completed")
      await review(page).getByText("Maybe addressed").waitFor({ timeout: 30_000 })

      const [comment] = (await backend.mcp.call(Comments, "list_review_comments", { threadId })).comments
      if (comment === undefined) throw new Error("the sent comment is not listed")
      // Claude Code reads the review with Trellis's own tool: its result, as the model got it, holds the comment.
      const listed = await turn(`CALL_TOOL[list_review_comments {"threadId":"${threadId}"}]`)
      expect(listed.text).toContain("Tool finished. Output was:")
      expect(mock.requests.some((request) => request.conversation?.toolResult?.includes(comment.commentId) === true)).toBe(true)
      expect(mock.requests.some((request) => request.conversation?.toolResult?.includes(BODY) === true)).toBe(true)

      const resolved = await turn(
        `CALL_TOOL[resolve_review_comment {"commentId":"${comment.commentId}","resolution":"Capitalized alpha and beta"}]`
      )
      expect(resolved.status).toBe("completed")
      await review(page).locator(".review-badge", { hasText: "Resolved" }).waitFor({ timeout: 30_000 })
      const after = (await backend.mcp.call(Comments, "list_review_comments", { threadId })).comments
      expect(after.map(({ maybeAddressed, resolution, status }) => ({ status, maybeAddressed, resolution }))).toEqual([
        { status: "resolved", maybeAddressed: true, resolution: "Capitalized alpha and beta" }
      ])
      await review(page).scrollIntoViewIfNeeded()
      await screenshot(page, "real-review-resolved-1440", { fullPage: false })
      expect(await accessibilityProblems(page, "details.changes")).toEqual([])
      expect(errors).toEqual([])
    }, 240_000)

    it("on a phone the reviewed thread's panel fits the screen", async () => {
      const { page } = started()
      await page.setViewportSize(PHONE)
      await page.reload()
      await openPanel(page, "Changes 2 files +5 −0")
      await review(page).locator(".review-badge", { hasText: "Resolved" }).waitFor({ timeout: 15_000 })
      expect(await fitsWidth(page)).toBe(true)
      await screenshot(page, "real-review-390")
      expect(errors).toEqual([])
    }, 60_000)
  }
)
