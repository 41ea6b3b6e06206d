/**
 * The thread page's timeline in a real browser (Debian's Chromium, playwright-core) against a real
 * `trellis serve`: a fake CLI speaks the bridge API (register, claim, batch, upload, complete, fail),
 * so each test decides exactly which runtime lines a turn streams and when. Screenshots land in
 * test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { eventually, killEverything, removeTempDirs, repoRoot, tempDir } from "../e2e/support/Processes.js"
import { Mcp, type Serve, startServe, Thread } from "../e2e/support/Trellis.js"
import { registerCli, remoteBridgeClient } from "../support/FakeCli.js"
import { accessibilityProblems, CHROMIUM, openPage, PHONE, screenshot, SHOTS } from "./support/Browser.js"

const DESKTOP = { width: 1280, height: 800 }

// ---- Claude Code stream-json lines, as the CLI uploads them -------------------------------------

interface Line {
  readonly type: string
  readonly data: string
}
const line = (value: { readonly type: string } & Record<string, unknown>): Line => ({ type: value.type, data: JSON.stringify(value) })
/** Text with no uuid or message id: each is a part of its own, so a repeated event would show twice. */
const text = (value: string) => line({ type: "assistant", message: { content: [{ type: "text", text: value }] } })
const toolUse = (id: string, command: string) =>
  line({ type: "assistant", message: { content: [{ type: "tool_use", id, name: "Bash", input: { command } }] } })
const toolResult = (id: string, output: string) =>
  line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] } })
const init = line({ type: "system", subtype: "init", session_id: "s-1", model: "claude-sonnet-4-5" })
const apiRetry = line({
  type: "system",
  subtype: "api_retry",
  error: "overloaded_error",
  error_status: 529,
  attempt: 2,
  max_retries: 10,
  retry_delay_ms: 1200
})
const compaction = line({ type: "system", subtype: "compact_boundary", compact_metadata: { trigger: "auto", pre_tokens: 154_000 } })
const result = (isError: boolean) =>
  line({
    type: "result",
    subtype: "success",
    is_error: isError,
    result: isError ? "The model refused the request" : "done",
    duration_ms: 83_400,
    num_turns: 3,
    total_cost_usd: 0.4231,
    usage: { input_tokens: 1_200, output_tokens: 800, cache_read_input_tokens: 40_000, cache_creation_input_tokens: 2_000 },
    modelUsage: { "claude-sonnet-4-5": { contextWindow: 200_000 } }
  })

/** `count` steps of a long run: a sentence, a shell call, its output. */
const steps = (from: number, count: number): ReadonlyArray<Line> =>
  Array.from({ length: count }, (_, i) => from + i).flatMap((n) => [
    text(`Step ${n}: looking at the next file.`),
    toolUse(`call-${n}`, `cat file-${n}.ts`),
    toolResult(`call-${n}`, `contents of file ${n}`)
  ])

// ---- a fake CLI over the bridge API of the real server -------------------------------------------

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(Effect.orDie(effect))

/** A machine whose runtime is this test: each turn's lines are uploaded when the test says. */
const fakeMachine = async (serve: Serve, mcp: Mcp) => {
  const client = await remoteBridgeClient(serve.baseUrl, serve.credentials.apiKey)
  const projectId = Schema.decodeUnknownSync(ProjectId)(serve.credentials.projectId)
  const registered = await run(registerCli(client, projectId, { name: "timeline-box" }))
  const sessionId = registered.sessionId
  const pathId = registered.profile.paths[0]?.pathId ?? ""
  const claims: Array<{ readonly threadId: string; readonly epoch: number }> = []
  // Sessions and claims lapse after a minute of silence: heartbeat and renew as the CLI does.
  const keepAlive = setInterval(() => {
    void run(client.agent.heartbeat({ payload: { sessionId } })).catch(() => undefined)
    for (const claim of claims) {
      void run(client.agent.renew({ path: { threadId: claim.threadId }, payload: { sessionId, epoch: claim.epoch } })).catch(() =>
        undefined
      )
    }
  }, 15_000)

  /** A new thread, claimed, its first turn streaming. */
  const startTurn = async (title: string) => {
    const { threadId } = await mcp.call(Thread, "create_thread", {
      title,
      content: title,
      profileId: registered.profile.profileId,
      pathId,
      cliType: "claude"
    })
      .catch((error: unknown) => Promise.reject(new Error(`create_thread failed: ${String(error)}\n${serve.proc.describe()}`)))
    const { thread } = await run(client.agent.claim({ payload: { sessionId, threadId } }))
    if (thread === null) throw new Error(`could not claim ${threadId}`)
    claims.push({ threadId, epoch: thread.epoch })
    const batch = await run(client.agent.startBatch({ path: { threadId }, payload: { sessionId, epoch: thread.epoch } }))
    if (batch.drained) throw new Error(`${threadId}: no batch`)
    const turn = { threadId, epoch: thread.epoch, messageId: batch.assistantMessageId }
    let seq = 0
    return {
      threadId,
      /** Uploads lines in requests of at most 500 chunks, numbered on from the last upload. */
      upload: async (lines: ReadonlyArray<Line>) => {
        for (let start = 0; start < lines.length; start += 500) {
          const chunks = lines.slice(start, start + 500).map((l) => ({ seq: seq++, ...l }))
          await run(
            client.agent.uploadChunks({ path: { threadId }, payload: { sessionId, epoch: turn.epoch, messageId: turn.messageId, chunks } })
          )
        }
      },
      complete: () =>
        run(client.agent.complete({ path: { threadId }, payload: { sessionId, epoch: turn.epoch, messageId: turn.messageId } })),
      fail: (errorMessage: string) =>
        run(client.agent.fail({ path: { threadId }, payload: { sessionId, epoch: turn.epoch, messageId: turn.messageId, errorMessage } }))
    }
  }
  return { startTurn, stop: () => clearInterval(keepAlive) }
}

/**
 * A TCP proxy in front of the server that can cut the page's event streams while everything else
 * (the server, the page's other requests, the CLI's uploads) carries on: the connection drops as a
 * flaky network drops it. While `refusing`, a new event-stream connection is closed at once.
 * `withEventId` counts the streams down which the server sent an event id: a stream cut before its
 * first one has nothing to resume from, and EventSource rightly reconnects from the start.
 */
const streamCutter = async (target: URL) => {
  const streams = new Set<net.Socket>()
  const sockets = new Set<net.Socket>()
  /** Where each stream request (refused ones included) asked to resume from: its `Last-Event-ID` or `?after=`. */
  const resumedFrom: Array<string | undefined> = []
  let refusing = false
  let withEventId = 0
  const isStream = (chunk: Buffer) => /^GET \/api\/threads\/[^ /]+\/events[ ?]/.test(chunk.toString("latin1", 0, 120))
  const server = net.createServer((client) => {
    client.pause()
    const upstream = net.connect(Number(target.port), target.hostname, () => {
      client.pipe(upstream)
      upstream.pipe(client)
    })
    let relayed: string | undefined = ""
    upstream.on("data", (chunk: Buffer) => {
      if (relayed === undefined || !streams.has(client)) return
      relayed += chunk.toString("latin1")
      if (/(^|\n)id: \d/.test(relayed)) {
        withEventId += 1
        relayed = undefined
      }
    })
    const end = () => {
      client.destroy()
      upstream.destroy()
      streams.delete(client)
      sockets.delete(client)
    }
    sockets.add(client)
    client.on("data", (chunk: Buffer) => {
      if (!isStream(chunk)) return
      const head = chunk.toString("latin1")
      resumedFrom.push(/^last-event-id: *(\S+)/im.exec(head)?.[1] ?? /^GET \S+[?&]after=(\d+)/.exec(head)?.[1])
      if (refusing) end()
      else streams.add(client)
    })
    for (const socket of [client, upstream]) {
      socket.on("error", end)
      socket.on("close", end)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    resumedFrom,
    withEventId: () => withEventId,
    /** Cuts every open event stream, and refuses new ones until `restore`. */
    cut: () => {
      refusing = true
      for (const socket of [...streams]) socket.destroy()
    },
    restore: () => {
      refusing = false
    },
    close: () => {
      for (const socket of [...sockets]) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

// Like test/e2e/ (vitest.config.ts), it runs on its own embedded database: the PostgreSQL pass would only repeat it.
describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("the thread timeline in Chromium against trellis serve", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let machine: Awaited<ReturnType<typeof fakeMachine>> | undefined

  const backend = () => {
    if (serve === undefined || browser === undefined || machine === undefined) throw new Error("the backend or the browser did not start")
    return { serve, browser, machine }
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, "dist", "web", "index.html"))) {
      throw new Error("dist/web/ is not built: run `npm run build` before this test")
    }
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
    fs.mkdirSync(SHOTS, { recursive: true })
    serve = await startServe(tempDir("trellis-timeline-home-"))
    mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
    machine = await fakeMachine(serve, mcp)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
  }, 120_000)

  afterAll(async () => {
    machine?.stop()
    await browser?.close()
    await mcp?.close()
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  /** A signed-in browser profile (through the sign-in form) whose page fails the test on any script error. */
  const signedIn = async (viewport: { readonly width: number; readonly height: number }, baseUrl = backend().serve.baseUrl) => {
    const { context, page, errors } = await openPage(backend().browser, viewport, { deviceScaleFactor: 1 })
    await page.goto(`${baseUrl}/`)
    await page.getByLabel("API key").fill(backend().serve.credentials.apiKey)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(/\/threads$/)
    // Before signing in, the page's first call was refused (401), which the console reports.
    errors.length = 0
    return { context, page, errors, baseUrl }
  }

  const openThread = async (page: Page, threadId: string) => {
    await page.goto(`${new URL(page.url()).origin}/projects/${backend().serve.credentials.projectId}/threads/${threadId}`)
    const conversation = page.getByRole("list", { name: "Conversation" })
    await conversation.waitFor()
    return conversation
  }

  /** Whether a row with this text is inside the viewport now (not merely in the document). */
  const onScreen = async (page: Page, selector: string, name: string) => {
    const row = page.getByRole("list", { name: "Conversation" }).locator(selector).filter({ hasText: name }).first()
    const box = (await row.count()) === 0 ? null : await row.boundingBox()
    const height = page.viewportSize()?.height ?? 0
    return box !== null && box.y + box.height > 0 && box.y < height
  }

  const scrollY = async (page: Page) => Number(await page.evaluate("window.scrollY"))

  // The wheel and Home scroll smoothly: the position once two reads 100 ms apart agree.
  const restingScrollY = async (page: Page) => {
    let previous = await scrollY(page)
    for (let read = 0; read < 50; read++) {
      await page.evaluate("new Promise((resolve) => setTimeout(resolve, 100))")
      const now = await scrollY(page)
      if (now === previous) return now
      previous = now
    }
    throw new Error(`the page still scrolls after 5 s, at ${previous}`)
  }

  it("each assistant message shows its state, and its end shows the duration, cost and context window from the metadata", async () => {
    const { machine } = backend()
    const done = await machine.startTurn("A finished run")
    await done.upload([
      init,
      text("Looking around."),
      apiRetry,
      toolUse("c-1", "ls"),
      toolResult("c-1", "README.md"),
      compaction,
      text("All done."),
      result(false)
    ])
    await done.complete()
    const failed = await machine.startTurn("A failed run")
    await failed.upload([init, text("Trying."), result(true)])
    await failed.fail("claude exited with code 1")
    const streaming = await machine.startTurn("A running run")
    await streaming.upload([init, text("Still thinking about it.")])

    const { page, context, errors } = await signedIn(DESKTOP)
    const conversation = await openThread(page, done.threadId)
    // The list's text stands in until the events arrive; the metadata comes with the events.
    const end = conversation.locator(".turn-end")
    await end.getByText("83 s").waitFor()
    expect(await conversation.locator(".turn-head").innerText()).toMatch(/Agent\s*Finished\s*claude-sonnet-4-5/)
    expect(await end.innerText()).toMatch(/83 s\s*\$0\.42\s*3 turns\s*44\.0k \/ 200k tokens \(22%\)/)
    const meter = conversation.getByRole("meter", { name: "Context window used" })
    expect(await meter.getAttribute("value")).toBe("44000")
    expect(await meter.getAttribute("max")).toBe("200000")
    // The API retry, and the compaction as a marker between the parts before and after it.
    expect(await conversation.locator(".runtime-notice").innerText()).toMatch(
      /API overloaded_error \(529\), retry 2 of 10\s*· next try in 1\.2 s/
    )
    expect(await conversation.locator(".compaction").innerText()).toBe("Context compacted (auto) · 154k tokens before")
    await screenshot(page, "timeline-completed", { fullPage: false })
    expect(await accessibilityProblems(page, "ol.conversation")).toEqual([])

    const failedView = await openThread(page, failed.threadId)
    await failedView.getByText("This run failed: claude exited with code 1").waitFor()
    await failedView.getByText("The model refused the request").waitFor()
    expect(await failedView.locator(".turn-head").innerText()).toMatch(/Agent\s*Failed/)
    // The runtime's own error (is_error) is a warning part of the turn.
    expect(await failedView.locator(".warning").first().innerText()).toMatch(/The model refused the request/)

    const streamingView = await openThread(page, streaming.threadId)
    await streamingView.getByText("Still thinking about it.").waitFor()
    expect(await streamingView.locator(".turn-head").innerText()).toMatch(/Agent\s*Running/)
    await streamingView.getByText("Working…").waitFor()
    await streaming.upload([text("Now it is done."), result(false)])
    await streaming.complete()
    // The turn's state comes from the message list, which the page reads again while a turn streams.
    await eventually(
      "the turn to show as completed",
      () => streamingView.locator(".turn-head").innerText(),
      (head) => head.includes("Finished"),
      20_000
    )
    expect(errors).toEqual([])
    await context.close()
  }, 120_000)

  it("an agent's text is Markdown, and HTML or a script link in it stays inert", async () => {
    const { machine } = backend()
    const turn = await machine.startTurn("A formatted answer")
    await turn.upload([
      init,
      text(
        "**Done**: see [the docs](https://example.com/docs) and `npm test`.\n\n<img src=x onerror=\"window.pwned=1\"> [bad](javascript:window.pwned=2)"
      ),
      result(false)
    ])
    await turn.complete()
    const { page, context, errors } = await signedIn(DESKTOP)
    const conversation = await openThread(page, turn.threadId)
    await conversation.locator("strong", { hasText: "Done" }).waitFor()
    const link = conversation.getByRole("link", { name: "the docs" })
    expect(await link.getAttribute("href")).toBe("https://example.com/docs")
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer")
    expect(await conversation.locator("code", { hasText: "npm test" }).count()).toBe(1)
    // Raw HTML is shown as text, and a javascript: target is not made a link.
    await conversation.getByText("<img src=x onerror=\"window.pwned=1\">").waitFor()
    expect(await conversation.locator("img").count()).toBe(0)
    expect(await conversation.getByRole("link", { name: "bad" }).count()).toBe(0)
    expect(await page.evaluate("window.pwned === undefined")).toBe(true)
    expect(errors).toEqual([])
    await context.close()
  }, 60_000)

  it("a long run renders only the rows on screen, follows new output at the bottom, and stays put once the reader scrolls up", async () => {
    const { machine } = backend()
    const long = await machine.startTurn("A long run")
    await long.upload([init, ...steps(1, 1_000)])

    const { page, context, errors } = await signedIn(DESKTOP)
    const conversation = await openThread(page, long.threadId)
    // The page opens at the latest output.
    await conversation.getByText("Step 1000:").waitFor()
    expect(await onScreen(page, "li", "Step 1000:")).toBe(true)
    const rendered = await conversation.locator("li").count()
    const total = Number(await conversation.locator("li").first().getAttribute("aria-setsize"))
    expect(total).toBeGreaterThanOrEqual(2_000)
    expect(rendered).toBeLessThan(100)

    // New output while at the bottom scrolls into view.
    await long.upload(steps(1_001, 3))
    await eventually("step 1003 on screen", () => onScreen(page, "li", "Step 1003:"), (visible) => visible, 10_000)

    // Scrolled up, the page stays where the reader is while output keeps coming.
    const bottom = await scrollY(page)
    await page.mouse.wheel(0, -3_000)
    const readingAt = await restingScrollY(page)
    expect(readingAt).toBeLessThan(bottom)
    await long.upload(steps(1_004, 3))
    await conversation.locator("li").first().evaluate(() => new Promise((resolve) => setTimeout(resolve, 1_000)))
    expect(await scrollY(page)).toBe(readingAt)
    expect(await onScreen(page, "li", "Step 1006:")).toBe(false)

    // The top of the run is reachable; a tool call there opens from the keyboard and stays open when scrolled away and back.
    // Home scrolls smoothly; rows measured on the way up correct the scroll position (the virtualizer
    // keeps what is on screen in place), which ends the animation short of the top. A reader presses
    // Home again, and so does this test, until the page rests at the top.
    await eventually(
      "the page at the top after Home",
      async () => {
        await page.keyboard.press("Home")
        return restingScrollY(page)
      },
      (y) => y === 0,
      10_000
    )
    await conversation.getByText("Step 1:").waitFor()
    const firstCall = conversation.locator("details.tool").first()
    expect(await firstCall.locator("summary").innerText()).toMatch(/Bash\s*Done/)
    await firstCall.locator("summary").focus()
    await page.keyboard.press("Enter")
    await firstCall.getByText("cat file-1.ts").waitFor()
    await screenshot(page, "timeline-long-top", { fullPage: false })
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
    await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
    await page.evaluate("window.scrollTo(0, 0)")
    await conversation.getByText("cat file-1.ts").waitFor()
    expect(await conversation.locator("details.tool").first().getAttribute("open")).not.toBeNull()

    // Back at the bottom, it follows again.
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    await eventually("the bottom rows", () => onScreen(page, "li", "Step 1006:"), (visible) => visible, 10_000)
    await long.upload(steps(1_007, 2))
    await eventually("step 1008 on screen", () => onScreen(page, "li", "Step 1008:"), (visible) => visible, 10_000)
    expect(await accessibilityProblems(page, "ol.conversation")).toEqual([])
    expect(errors).toEqual([])
    await context.close()

    // A phone shows the same rows without sideways scrolling.
    const phone = await signedIn(PHONE)
    const phoneView = await openThread(phone.page, long.threadId)
    await phoneView.getByText("Step 1008:").waitFor()
    expect(await phone.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true)
    await screenshot(phone.page, "timeline-long-phone", { fullPage: false })
    expect(phone.errors).toEqual([])
    await phone.context.close()
  }, 120_000)

  it("a dropped event stream resumes with Last-Event-ID: every event the CLI uploaded meanwhile shows exactly once, in order", async () => {
    const { machine } = backend()
    const turn = await machine.startTurn("A run with a flaky connection")
    const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => text(`Line ${from + i}`))
    await turn.upload([init, ...lines(1, 40)])

    const cutter = await streamCutter(new URL(backend().serve.baseUrl))
    const { page, context, errors } = await signedIn(DESKTOP, cutter.baseUrl)
    const conversation = await openThread(page, turn.threadId)
    await conversation.getByText("Line 40", { exact: false }).waitFor()
    // The lines above may come from the conversation's first read: the stream must have told an event too.
    await eventually("an event id on the stream", async () => cutter.withEventId(), (streams) => streams > 0, 10_000)

    // The connection drops and stays down while the CLI keeps uploading; then it comes back, and the CLI goes on.
    cutter.cut()
    await page.getByText("Reconnecting…").waitFor({ timeout: 20_000 })
    for (let from = 41; from <= 120; from += 20) await turn.upload(lines(from, from + 19))
    cutter.restore()
    await page.getByText("Live", { exact: true }).waitFor({ timeout: 20_000 })
    await turn.upload(lines(121, 160))

    const expected = Array.from({ length: 160 }, (_, i) => `Line ${i + 1}`).join("\n\n")
    // Consecutive text parts are one run, joined with a blank line: a gap or a repeat changes it.
    const shown = await eventually(
      "every line",
      () => conversation.locator(".row-agent > .text").last().innerText(),
      (t) => t.endsWith("Line 160"),
      30_000
    )
    expect(shown).toBe(expected)
    // The first request read from the start; the one that resumed (the browser's `Last-Event-ID`, or
    // the `?after=` of a stream the page opened again after an HTTP error) named the last event it had.
    const lastEventIds = cutter.resumedFrom
    expect(lastEventIds.length, JSON.stringify(lastEventIds)).toBeGreaterThanOrEqual(2)
    expect(lastEventIds[0]).toBeUndefined()
    expect(lastEventIds.at(-1), JSON.stringify(lastEventIds)).toMatch(/^\d+$/)
    // The stream's failed attempts are the only errors.
    expect(errors.filter((error) => !/net::ERR_|\/events/.test(error))).toEqual([])
    await context.close()
    await cutter.close()
  }, 120_000)
})
