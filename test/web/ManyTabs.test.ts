/**
 * Many tabs of one browser profile against a real `trellis serve`: Chromium opens at most six
 * HTTP/1.1 connections to a host and each open event stream holds one. The project's changes
 * stream is opened once for all the profile's tabs (web/src/lib/oneForAllTabs.ts), so four thread
 * pages and the Threads list all load and all follow what changes; when the tab holding the stream
 * closes, another takes it over. Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { ProjectId } from "../../catalog/domain/Ids.js"
import type { Mcp, Serve } from "../e2e/support/Trellis.js"
import { Thread } from "../e2e/support/Trellis.js"
import { registerCli, remoteBridgeClient } from "../support/FakeCli.js"
import { DESKTOP, launchChromium, openPage, screenshot, signInLink, startBackend, stopBackend } from "./support/Browser.js"

const THREAD_TABS = 4

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.orDie(effect))

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("many tabs of one browser profile", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let context: BrowserContext | undefined
  let target: { readonly profileId: string; readonly pathId: string } | undefined
  const threadIds: Array<string> = []
  const tabs: Array<Page> = []
  let list: Page | undefined
  /** The project changes streams the profile opened, each a request to the server. */
  const changesStreams: Array<string> = []

  const started = () => {
    if (serve === undefined || mcp === undefined || context === undefined || target === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, context, target }
  }
  const projectPath = () => `/projects/${encodeURIComponent(started().serve.credentials.projectId)}`
  const createThread = async (content: string) => {
    if (mcp === undefined || target === undefined) throw new Error("the backend did not start")
    return (await mcp.call(Thread, "create_thread", { ...target, cliType: "claude", content })).threadId
  }

  beforeAll(async () => {
    const backend = await startBackend("trellis-tabs-home-")
    serve = backend.serve
    mcp = backend.mcp
    const client = await remoteBridgeClient(serve.baseUrl, serve.credentials.apiKey)
    const { profile } = await run(
      registerCli(client, Schema.decodeUnknownSync(ProjectId)(serve.credentials.projectId), { name: "tabs-box" })
    )
    target = { profileId: profile.profileId, pathId: profile.paths[0]?.pathId ?? "" }
    for (let n = 1; n <= THREAD_TABS; n++) threadIds.push(await createThread(`Tab thread ${n}`))
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    context = opened.context
    context.on("request", (request) => {
      if (new URL(request.url()).pathname.endsWith("/changes")) changesStreams.push(request.url())
    })
    tabs.push(opened.page)
    await opened.page.goto(await signInLink(serve, `${projectPath()}/threads/${threadIds[0]}`))
    await opened.page.getByRole("heading", { level: 1, name: "Tab thread 1" }).waitFor({ timeout: 30_000 })
  }, 120_000)

  afterAll(() => stopBackend(browser, mcp))

  it("four thread tabs and the Threads list all load: the changes stream is opened once for all of them", async () => {
    const { context, serve } = started()
    for (let n = 2; n <= THREAD_TABS; n++) {
      const page = await context.newPage()
      tabs.push(page)
      await page.goto(`${serve.baseUrl}${projectPath()}/threads/${threadIds[n - 1]}`)
      await page.getByRole("heading", { level: 1, name: `Tab thread ${n}` }).waitFor({ timeout: 15_000 })
    }
    list = await context.newPage()
    await list.goto(`${serve.baseUrl}${projectPath()}/threads`)
    await list.getByRole("heading", { level: 1, name: "Threads" }).waitFor({ timeout: 15_000 })
    await list.getByText(`Tab thread ${THREAD_TABS}`).first().waitFor({ timeout: 15_000 })
    expect(changesStreams).toHaveLength(1)
  })

  it("what changes reaches every tab, the ones without the stream too", async () => {
    const { mcp } = started()
    if (list === undefined) throw new Error("the Threads list did not open")
    for (const [n, threadId] of threadIds.entries()) {
      await mcp.call(Schema.Struct({ messageId: Schema.String }), "send_thread_message", { threadId, content: `Live note ${n + 1}` })
    }
    for (const [n, page] of tabs.entries()) {
      await page.getByText(`Live note ${n + 1}`).first().waitFor({ timeout: 15_000 })
    }
    await createThread("Made while every tab was open")
    await list.getByText("Made while every tab was open").first().waitFor({ timeout: 15_000 })
    await screenshot(list, "tabs-list-1440", { fullPage: false })
    expect(changesStreams).toHaveLength(1)
  })

  it("when the tab holding the stream closes, another takes it over and the rest still follow changes", async () => {
    const [first] = tabs.splice(0, 1)
    if (first === undefined || list === undefined) throw new Error("no tab to close")
    await first.close()
    await expect.poll(() => changesStreams.length, { timeout: 15_000 }).toBe(2)
    await createThread("Made after the first tab closed")
    await list.getByText("Made after the first tab closed").first().waitFor({ timeout: 15_000 })
    const [second] = tabs
    if (second === undefined) throw new Error("no tab left")
    await started().mcp.call(Schema.Struct({ messageId: Schema.String }), "send_thread_message", {
      threadId: threadIds[1] ?? "",
      content: "A note after the handover"
    })
    await second.getByText("A note after the handover").first().waitFor({ timeout: 15_000 })
  })
})
