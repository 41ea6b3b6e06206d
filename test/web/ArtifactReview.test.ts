/**
 * The artifact page in Chromium against a real `trellis serve` (issue 31 §3): a Markdown artifact
 * with its open threads highlighted where they sit; a selection (made with the mouse) starting a
 * thread on the exact source snippet and match; flat replies; threads resolved and reopened one or
 * many; the source edited, the anchors following it and a thread whose text was edited away shown
 * apart; an agent's reply over MCP showing without a reload; the open threads sent to a thread as
 * one message; an HTML artifact in a frame that runs no script and reaches nothing; a long document
 * with many threads; the page at 1440×900 and 390×844, axe-clean. Screenshots land in test-results/web/.
 */
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type Browser, type Page } from "playwright-core"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { type Mcp, messagesOf, type Serve, Thread } from "../e2e/support/Trellis.js"
import { registerCli, remoteBridgeClient } from "../support/FakeCli.js"
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

const PLAN = [
  "# Sign-in plan",
  "",
  "Ship the **login** page first, then the login API.",
  "",
  "- Keep sessions for `30 days`",
  "- Rotate keys monthly",
  "",
  "```ts",
  "const ttl = days(30)",
  "```",
  "",
  "Last, the billing page."
].join("\n")

const Created = Schema.Struct({ taskId: Schema.String })
const CreatedArtifact = Schema.Struct({ artifactId: Schema.String })
const Reply = Schema.Struct({ authorName: Schema.String, content: Schema.String })
const CommentThread = Schema.Struct({
  commentId: Schema.String,
  status: Schema.String,
  anchorText: Schema.String,
  anchorStart: Schema.NullOr(Schema.Number),
  anchorLost: Schema.Boolean,
  content: Schema.String,
  replies: Schema.Array(Reply)
})
const Threads = Schema.Struct({ threads: Schema.Array(CommentThread) })

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.orDie(effect))

/** A server that counts what reaches it: an HTML artifact must send it nothing. */
const startBeacon = async () => {
  const hits: Array<string> = []
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? "")
    response.end("")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the beacon has no port")
  return { hits, url: `http://127.0.0.1:${address.port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("artifact review in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []
  let taskId = ""
  let artifactId = ""
  let threadId = ""
  let beacon: Awaited<ReturnType<typeof startBeacon>> | undefined

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page }
  }
  const projectId = () => backend().serve.credentials.projectId
  const artifactPage = (id: string) => `/projects/${encodeURIComponent(projectId())}/artifacts/${encodeURIComponent(id)}`
  const threadsOf = async (id = artifactId) => (await backend().mcp.call(Threads, "list_artifact_comments", { artifactId: id })).threads
  const commentOn = (anchorText: string, content: string, occurrence = 1) =>
    mcp?.call(CommentThread, "create_artifact_comment", { artifactId, anchorText, content, occurrence })
  const side = () => backend().page.getByRole("complementary", { name: "Comments and review" })
  const card = (anchorStart: string) => side().getByRole("listitem", { name: new RegExp(`on “${anchorStart}`) })
  const mark = (text: string) => backend().page.locator("mark.anchor", { hasText: text })

  /** Double-clicks the `nth` (0-based) whole-word match of `word` in the document: the browser selects the word. */
  const doubleClickWord = async (word: string, nth: number) => {
    const { page } = backend()
    const box = await page.evaluate(`(() => {
      const root = document.querySelector(".artifact-document")
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
      let seen = 0
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const re = new RegExp("\\\\b${word}\\\\b", "g")
        for (let m = re.exec(node.data); m !== null; m = re.exec(node.data)) {
          if (seen++ !== ${nth}) continue
          const range = document.createRange()
          range.setStart(node, m.index)
          range.setEnd(node, m.index + ${word.length})
          const r = range.getBoundingClientRect()
          return { x: r.x + r.width / 2, y: r.y + r.height / 2 }
        }
      }
      return null
    })()`)
    const point = Schema.decodeUnknownSync(Schema.Struct({ x: Schema.Number, y: Schema.Number }))(box)
    await page.mouse.dblclick(point.x, point.y)
  }

  /** Drags the mouse from the start of `from` to the end of `to` (first matches in the document's text). */
  const dragOver = async (from: string, to: string) => {
    const { page } = backend()
    const ends = await page.evaluate(`(() => {
      const root = document.querySelector(".artifact-document")
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
      const point = (node, i, end) => {
        const range = document.createRange()
        range.setStart(node, end ? i - 1 : i)
        range.setEnd(node, end ? i : i + 1)
        const r = range.getBoundingClientRect()
        return { x: end ? r.right - 1 : r.left + 1, y: r.y + r.height / 2 }
      }
      let from = null
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        if (from === null) {
          const i = node.data.indexOf(${JSON.stringify(from)})
          if (i !== -1) from = point(node, i, false)
        }
        if (from !== null) {
          const j = node.data.indexOf(${JSON.stringify(to)})
          if (j !== -1) return { from, to: point(node, j + ${to.length}, true) }
        }
      }
      return null
    })()`)
    const Point = Schema.Struct({ x: Schema.Number, y: Schema.Number })
    const { from: start, to: end } = Schema.decodeUnknownSync(Schema.Struct({ from: Point, to: Point }))(ends)
    await page.mouse.move(start.x, start.y)
    await page.mouse.down()
    await page.mouse.move(end.x, end.y, { steps: 8 })
    await page.mouse.up()
  }

  beforeAll(async () => {
    const started = await startBackend("trellis-artifact-review-")
    serve = started.serve
    mcp = started.mcp
    const project = serve.credentials.projectId
    taskId = (await mcp.call(Created, "create_task", { projectId: project, name: "Plan the sign-in" })).taskId
    artifactId = (await mcp.call(CreatedArtifact, "create_task_artifact", { taskId, name: "Sign-in plan", content: PLAN })).artifactId
    await commentOn("Rotate keys monthly", "How often, really?")
    await commentOn("the billing page", "Which provider?")
    const client = await remoteBridgeClient(serve.baseUrl, serve.credentials.apiKey)
    const { profile } = await run(registerCli(client, Schema.decodeUnknownSync(ProjectId)(project), { name: "plan-box" }))
    threadId = (await mcp.call(Thread, "create_thread", {
      profileId: profile.profileId,
      pathId: profile.paths[0]?.pathId ?? "",
      cliType: "claude",
      content: "Write the sign-in plan",
      taskId
    })).threadId
    beacon = await startBeacon()
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    page.setDefaultTimeout(15_000)
    errors = opened.errors
    await page.goto(await signInLink(serve, artifactPage(artifactId)))
    await page.locator("#artifact-name").getByText("Sign-in plan").waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(async () => {
    await beacon?.close()
    await stopBackend(browser, mcp)
  })

  it("renders the Markdown with each open thread's snippet highlighted; clicking one shows its thread", async () => {
    const { page } = backend()
    expect(await page.locator(".artifact-document strong").textContent()).toBe("login")
    expect(await page.locator(".artifact-document pre code").textContent()).toContain("const ttl = days(30)")
    await mark("Rotate keys monthly").waitFor()
    expect(await page.locator("mark.anchor").allTextContents()).toEqual(["Rotate keys monthly", "the billing page"])
    await mark("Rotate keys monthly").click()
    await expect.poll(() => card("Rotate keys monthly").getAttribute("class")).toContain("active")
    expect(await mark("Rotate keys monthly").getAttribute("class")).toContain("active")
    await screenshot(page, "artifact-desktop")
  })

  it("a word selected with the mouse starts a thread on that match of the source", async () => {
    const { page } = backend()
    await doubleClickWord("login", 1)
    const form = page.getByRole("form", { name: "New comment" })
    await expect.poll(() => form.getByLabel("Text to comment on").inputValue()).toBe("login")
    expect(await form.getByLabel("Which match (of 2)").inputValue()).toBe("2")
    await form.getByLabel("Comment", { exact: true }).fill("Versioned, like /v1/login?")
    await form.getByRole("button", { name: "Comment" }).click()
    await card("login").waitFor()
    const created = (await threadsOf()).find((thread) => thread.content === "Versioned, like /v1/login?")
    expect(created).toMatchObject({ anchorText: "login", anchorStart: PLAN.indexOf("login API"), status: "open" })
    expect(await page.locator("mark.anchor").allTextContents()).toEqual(["login", "Rotate keys monthly", "the billing page"])
  })

  it("a selection across formatting anchors to the exact Markdown source it covers", async () => {
    const { page } = backend()
    await dragOver("Ship the", "page first")
    const form = page.getByRole("form", { name: "New comment" })
    await expect.poll(() => form.getByLabel("Text to comment on").inputValue()).toBe("Ship the **login** page first")
    await form.getByLabel("Comment", { exact: true }).fill("Say which page.")
    await form.getByRole("button", { name: "Comment" }).click()
    await card("Ship the \\*\\*login").waitFor()
    expect((await threadsOf()).find((thread) => thread.content === "Say which page.")).toMatchObject({
      anchorText: "Ship the **login** page first",
      anchorStart: PLAN.indexOf("Ship the")
    })
  })

  it("a snippet typed at the keyboard that is not in the document is refused on its field", async () => {
    const { page } = backend()
    const form = page.getByRole("form", { name: "New comment" })
    await form.getByLabel("Text to comment on").fill("Rotate keys weekly")
    await form.getByLabel("Comment", { exact: true }).fill("Typo?")
    await form.getByRole("button", { name: "Comment" }).click()
    const field = form.getByLabel("Text to comment on")
    await expect.poll(() => field.getAttribute("aria-invalid")).toBe("true")
    expect(await form.locator("#new-comment-anchor-error").textContent()).toMatch(/not found|occurs 0 times/)
    expect(await page.evaluate("document.activeElement?.id")).toBe("new-comment-anchor")
  })

  it("a reply is added under its thread, flat", async () => {
    const { page } = backend()
    const thread = card("Rotate keys monthly")
    await thread.getByRole("textbox", { name: "Reply" }).fill("Monthly is the policy.")
    await thread.getByRole("button", { name: "Reply", exact: true }).click()
    await thread.getByRole("list", { name: "Replies" }).getByText("Monthly is the policy.").waitFor()
    const saved = (await threadsOf()).find((t) => t.anchorText === "Rotate keys monthly")
    expect(saved?.replies.map((reply) => reply.content)).toEqual(["Monthly is the policy."])
    expect(await page.locator("mark.anchor", { hasText: "Rotate keys monthly" }).count()).toBe(1)
  })

  it("an agent's reply over MCP shows without a reload", async () => {
    const { mcp } = backend()
    const billing = (await threadsOf()).find((t) => t.anchorText === "the billing page")
    await mcp.call(Schema.Struct({}), "reply_to_artifact_comment", { commentId: billing?.commentId, content: "Stripe, per the contract." })
    await card("the billing page").getByText("Stripe, per the contract.").waitFor()
  })

  it("several threads are resolved at once and reopened at once", async () => {
    const { page } = backend()
    await card("the billing page").getByRole("checkbox", { name: "Choose this thread" }).check()
    await card("login").getByRole("checkbox", { name: "Choose this thread" }).check()
    await side().getByRole("button", { name: "Resolve chosen" }).click()
    await expect.poll(async () => (await threadsOf()).filter((t) => t.status === "resolved").map((t) => t.anchorText).sort())
      .toEqual(["login", "the billing page"])
    await expect.poll(() => page.locator("mark.anchor").allTextContents()).toEqual([
      "Ship the ",
      "login",
      " page first",
      "Rotate keys monthly"
    ])
    await side().getByRole("radio", { name: /^Resolved 2/ }).check()
    await card("the billing page").getByRole("checkbox", { name: "Choose this thread" }).check()
    await card("login").getByRole("checkbox", { name: "Choose this thread" }).check()
    await side().getByRole("button", { name: "Reopen chosen" }).click()
    await expect.poll(async () => (await threadsOf()).filter((t) => t.status === "open").length).toBe(4)
    await side().getByRole("radio", { name: /^Open 4/ }).check()
    await card("the billing page").waitFor()
  })

  it("one thread is resolved from its card, and shows in the resolved list", async () => {
    const { page } = backend()
    await card("Ship the \\*\\*login").getByRole("button", { name: "Resolve" }).click()
    await expect.poll(async () => (await threadsOf()).find((t) => t.content === "Say which page.")?.status).toBe("resolved")
    await side().getByRole("radio", { name: /^Resolved 1/ }).check()
    await card("Ship the \\*\\*login").waitFor()
    await side().getByRole("radio", { name: /^Open 3/ }).check()
    expect(await page.locator("mark.anchor").allTextContents()).toEqual(["login", "Rotate keys monthly", "the billing page"])
  })

  it("an edit moves the anchors with their text, and a thread whose text was edited away is shown apart", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Edit" }).click()
    const editor = page.getByRole("form", { name: "Edit Sign-in plan" })
    const edited = `Context first.\n\n${PLAN.replace("\n\nLast, the billing page.", "")}`
    await editor.getByLabel("Markdown").fill(edited)
    await editor.getByRole("button", { name: "Save" }).click()
    await page.getByRole("status").getByText("Saved. 1 thread lost its text.").waitFor()
    await expect.poll(() => page.locator("mark.anchor").allTextContents()).toEqual(["login", "Rotate keys monthly"])
    const lost = side().getByRole("region", { name: "Text edited away" })
    await lost.getByRole("listitem", { name: /on “the billing page/ }).waitFor()
    const threads = await threadsOf()
    expect(threads.find((t) => t.anchorText === "Rotate keys monthly")?.anchorStart).toBe(edited.indexOf("Rotate keys monthly"))
    expect(threads.find((t) => t.anchorText === "the billing page")).toMatchObject({ anchorLost: true, anchorStart: null })
    // Show in document, from the keyboard: the highlight becomes the one being read.
    await card("Rotate keys monthly").getByRole("button", { name: "Show in document" }).focus()
    await page.keyboard.press("Enter")
    await expect.poll(() => mark("Rotate keys monthly").getAttribute("class")).toContain("active")
    await screenshot(page, "artifact-review")
  })

  it("an edit begun before an agent's change is not saved over it", async () => {
    const { mcp, page } = backend()
    await page.getByRole("button", { name: "Edit" }).click()
    const editor = page.getByRole("form", { name: "Edit Sign-in plan" })
    await editor.getByLabel("Markdown").fill("Rewritten by a person.")
    await mcp.call(Schema.Struct({}), "replace_in_task_artifact", {
      artifactId,
      oldString: "Context first.",
      newString: "Context, by an agent."
    })
    await editor.getByRole("alert").getByText("The document was changed while you edited it.").waitFor()
    expect(await editor.getByRole("button", { name: "Save" }).isDisabled()).toBe(true)
    await editor.getByRole("button", { name: "Start again from the new version" }).click()
    expect(await editor.getByLabel("Markdown").inputValue()).toContain("Context, by an agent.")
    await editor.getByRole("button", { name: "Cancel" }).click()
    const saved = await mcp.call(Schema.Struct({ content: Schema.String }), "get_task_artifact", { artifactId })
    expect(saved.content.startsWith("Context, by an agent.")).toBe(true)
    await mark("Rotate keys monthly").waitFor()
  })

  it("the open threads go to a chosen thread as one message", async () => {
    const { mcp, page } = backend()
    const send = page.getByRole("form", { name: "Send open threads to an agent" })
    expect(await send.getByLabel("Thread").inputValue()).toBe(threadId)
    await send.getByRole("button", { name: "Send 3 open threads" }).click()
    await send.getByRole("status").getByText("Sent 3 to").waitFor()
    const messages = await messagesOf(mcp, threadId)
    const sent = messages.at(-1)?.text ?? ""
    expect(sent).toContain(`Comments on the artifact "Sign-in plan" (artifactId: ${artifactId}): 3 open comment threads.`)
    expect(sent.indexOf("> login")).toBeLessThan(sent.indexOf("> Rotate keys monthly"))
    expect(sent).toContain("Monthly is the policy.")
    expect(sent).toContain("(This text is no longer in the document: it was edited away.)")
  })

  it("is usable at 390×844: the document, then the threads, nothing wider than the screen; axe-clean at both sizes", async () => {
    const { page } = backend()
    expect(await accessibilityProblems(page)).toEqual([])
    await page.setViewportSize(PHONE)
    await mark("Rotate keys monthly").waitFor()
    expect(await fitsWidth(page)).toBe(true)
    const documentBox = await page.locator(".artifact-document").boundingBox()
    const sideBox = await side().boundingBox()
    expect((sideBox?.y ?? 0) >= (documentBox?.y ?? 0) + (documentBox?.height ?? 0)).toBe(true)
    expect(await accessibilityProblems(page)).toEqual([])
    await screenshot(page, "artifact-phone", { fullPage: true })
    await page.setViewportSize(DESKTOP)
    expect(errors).toEqual([])
  })

  it("an HTML artifact shows read-only in a frame that runs no script and reaches nothing", async () => {
    const { mcp, page } = backend()
    const url = beacon?.url ?? ""
    const html = [
      "<h1>Quarterly report</h1>",
      `<img alt="chart" src="${url}/image.png">`,
      "<img alt=\"own origin\" src=\"/api/health?from=artifact\">",
      `<link rel="stylesheet" href="${url}/style.css">`,
      `<script>document.body.dataset.ran = "yes"; fetch("${url}/fetch")</script>`,
      `<img alt="pixel" src="x" onerror="document.body.dataset.ran = 'handler'; new Image().src = '${url}/onerror'">`,
      `<base target="_self" href="${url}/">`,
      `<a id="away" href="${url}/link">Read more</a>`,
      "<a id=\"self\" target=\"_self\" href=\"/api/health\">Status</a>",
      `<form action="${url}/form"><button id="submit">Send</button></form>`
    ].join("\n")
    const { artifactId: htmlId } = await mcp.call(CreatedArtifact, "create_task_artifact", {
      taskId,
      name: "Quarterly report",
      content: html,
      contentType: "html"
    })
    const fromFrames: Array<string> = []
    page.on("request", (request) => {
      if (request.frame() !== page.mainFrame()) fromFrames.push(request.url())
    })
    await page.goto(`${backend().serve.baseUrl}${artifactPage(htmlId)}`)
    const frame = page.frameLocator("iframe[title='Quarterly report']")
    await frame.getByRole("heading", { name: "Quarterly report" }).waitFor()
    const inside = page.frames().find((f) => f !== page.mainFrame())
    if (inside === undefined) throw new Error("no frame")
    // The images settle (refused) before anything is counted.
    await expect.poll(() => inside.evaluate("[...document.images].every((image) => image.complete)")).toBe(true)
    expect(await inside.evaluate("document.body.dataset.ran ?? 'no'")).toBe("no")
    expect(fromFrames).toEqual([])
    // A navigation would start within the moment after each click: none may.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 500))
    for (const target of ["#away", "#self", "#submit"]) {
      await frame.locator(target).click()
      await settle()
      expect(await inside.evaluate("location.href"), target).toBe("about:srcdoc")
    }
    expect(page.context().pages()).toHaveLength(1)
    expect(fromFrames).toEqual([])
    expect(beacon?.hits).toEqual([])
    expect(await page.locator("iframe.artifact-frame").getAttribute("sandbox")).toBe("")
    expect(await page.getByRole("form", { name: "New comment" }).count()).toBe(0)
    await screenshot(page, "artifact-html")
  })

  it("a long document with many open threads shows every highlight, and a selection in it still anchors exactly", async () => {
    const { mcp, page } = backend()
    const paragraphs = Array.from({ length: 1500 }, (_, i) => `Paragraph ${i + 1}: the *item* number ${i + 1} of the plan.`)
    const { artifactId: longId } = await mcp.call(CreatedArtifact, "create_task_artifact", {
      taskId,
      name: "Long plan",
      content: paragraphs.join("\n\n")
    })
    const commented = Array.from({ length: 120 }, (_, i) => i * 12 + 3)
    for (const n of commented) {
      await mcp.call(CommentThread, "create_artifact_comment", {
        artifactId: longId,
        anchorText: `number ${n + 1} of`,
        content: `Check ${n + 1}`
      })
    }
    await page.goto(`${backend().serve.baseUrl}${artifactPage(longId)}`)
    await page.getByRole("heading", { level: 1, name: "Long plan" }).waitFor()
    await expect.poll(() => page.locator("mark.anchor").count(), { timeout: 20_000 }).toBe(120)
    await page.getByText("Paragraph 1400:").first().scrollIntoViewIfNeeded()
    await dragOver("Paragraph 1400", "item")
    const form = page.getByRole("form", { name: "New comment" })
    await expect.poll(() => form.getByLabel("Text to comment on").inputValue()).toBe("Paragraph 1400: the *item")
    expect(await form.getByLabel("Which match (of 1)").count()).toBe(0)
    await screenshot(page, "artifact-long", { fullPage: false })
  })
})
