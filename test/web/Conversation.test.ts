/**
 * A long conversation in Chromium against a real `trellis serve` (issue 28 §1): a Claude thread of 60
 * turns made through the bridge (a fake CLI answers each follow-up), read through the paged client
 * route. Every turn shows in order with its own user message and final state; opening it costs a
 * bounded number of requests, an idle tab reads nothing but its event stream, a 429 is waited out
 * (`Retry-After`), and a user message over the cap says "Truncated" and shows all on demand.
 * Screenshots `test-results/web/conversation-*.png`.
 */
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, chromium, type Page, type Request } from "playwright-core"
import { TrellisApi } from "../../catalog/bridge/TrellisApi.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { eventually, killEverything, removeTempDirs, repoRoot, tempDir } from "../e2e/support/Processes.js"
import { Mcp, type Serve, Sent, startServe, Thread } from "../e2e/support/Trellis.js"
import { type BridgeClient, registerCli } from "../support/FakeCli.js"
import { accessibilityProblems, CHROMIUM, DESKTOP, fitsWidth, openPage, PHONE, screenshot, SHOTS } from "./support/Browser.js"

const TURNS = 60
/** 22,000 characters, as the message that ended at "Line 75: the" with no sign. */
const LONG = Array.from({ length: 400 }, (_, i) => `Line ${i + 1}: the quick brown fox jumps over the lazy dog`).join("\n").slice(0, 22_000)

const line = (value: { readonly type: string } & Record<string, unknown>) => ({ type: value.type, data: JSON.stringify(value) })
const answerLines = (turn: number) => [
  line({ type: "system", subtype: "init", session_id: "s-1", model: "claude-sonnet-4-5" }),
  line({ type: "assistant", message: { content: [{ type: "text", text: `Answer ${turn}.` }] } }),
  line({
    type: "result",
    subtype: "success",
    is_error: false,
    result: "done",
    duration_ms: 1_000 + turn,
    num_turns: 1,
    total_cost_usd: 0.01
  })
]
const question = (turn: number) => (turn === TURNS ? LONG : `Question ${turn}?`)

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(Effect.orDie(effect))

/** What a request of the page is: the messages route, one MCP tool, the event stream, or something else. */
const kindOf = (request: Request): string => {
  const url = new URL(request.url())
  if (url.pathname === "/api/mcp") {
    const body: unknown = JSON.parse(request.postData() ?? "{}")
    const name = typeof body === "object" && body !== null && "params" in body && typeof body.params === "object" && body.params !== null &&
        "name" in body.params
      ? String(body.params.name)
      : "mcp"
    return `mcp:${name}`
  }
  if (/^\/api\/threads\/[^/]+\/messages$/.test(url.pathname)) return "messages"
  if (/^\/api\/threads\/[^/]+\/messages\/[^/]+$/.test(url.pathname)) return "message"
  if (/^\/api\/threads\/[^/]+\/events$/.test(url.pathname)) return "events"
  if (/^\/api\/projects\/[^/]+\/changes$/.test(url.pathname)) return "changes"
  return url.pathname.startsWith("/api/") ? url.pathname.replace(/thread_[0-9a-f]+/, ":id") : "asset"
}

/** Counts the page's requests by kind from now on. */
const countRequests = (page: Page) => {
  let counts = new Map<string, number>()
  page.on("request", (request) => {
    const kind = kindOf(request)
    counts.set(kind, (counts.get(kind) ?? 0) + 1)
  })
  return {
    take: () => {
      const taken = Object.fromEntries([...counts].sort())
      counts = new Map()
      return taken
    }
  }
}

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("a 60-turn conversation in Chromium against trellis serve", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let threadId = ""
  let bridge: BridgeClient | undefined

  const backend = () => {
    if (serve === undefined || browser === undefined || mcp === undefined) throw new Error("the backend or the browser did not start")
    return { serve, browser, mcp }
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, "dist", "web", "index.html"))) {
      throw new Error("dist/web/ is not built: run `npm run build` before this test")
    }
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
    fs.mkdirSync(SHOTS, { recursive: true })
    // The real budget (20/s, burst 100), not the e2e default of none: a page must live within it.
    serve = await startServe(tempDir("trellis-conversation-home-"), { TRELLIS_RATE_LIMIT: "20/100" })
    mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })

    // The thread: 60 turns, each follow-up sent after the last answer completed, as a person does.
    const key = serve.credentials.apiKey
    const client = bridge = await run(
      Effect.flatMap(HttpClient.HttpClient, (http) =>
        HttpApiClient.makeWith(TrellisApi, {
          httpClient: http.pipe(HttpClient.mapRequest(HttpClientRequest.bearerToken(key))),
          baseUrl: serve?.baseUrl ?? ""
        })).pipe(
          Effect.provide(FetchHttpClient.layer)
        )
    )
    const registered = await run(
      registerCli(client, Schema.decodeUnknownSync(ProjectId)(serve.credentials.projectId), { name: "conversation-box" })
    )
    const sessionId = registered.sessionId
    const created = await mcp.call(Thread, "create_thread", {
      title: "Sixty turns",
      content: question(1),
      profileId: registered.profile.profileId,
      pathId: registered.profile.paths[0]?.pathId ?? "",
      cliType: "claude"
    })
    threadId = created.threadId
    const { thread } = await run(client.agent.claim({ payload: { sessionId, threadId } }))
    if (thread === null) throw new Error("the thread could not be claimed")
    const epoch = thread.epoch
    for (let turn = 1; turn <= TURNS; turn++) {
      if (turn > 1) await mcp.call(Sent, "send_thread_message", { threadId, content: question(turn) })
      const batch = await run(client.agent.startBatch({ path: { threadId }, payload: { sessionId, epoch } }))
      if (batch.drained) throw new Error(`turn ${turn}: no batch`)
      const chunks = answerLines(turn).map((chunk, seq) => ({ seq, ...chunk }))
      await run(
        client.agent.uploadChunks({ path: { threadId }, payload: { sessionId, epoch, messageId: batch.assistantMessageId, chunks } })
      )
      await run(client.agent.complete({ path: { threadId }, payload: { sessionId, epoch, messageId: batch.assistantMessageId } }))
    }
    const drained = await run(client.agent.startBatch({ path: { threadId }, payload: { sessionId, epoch } }))
    expect(drained.drained).toBe(true)
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await mcp?.close()
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  const signedIn = async (viewport: { readonly width: number; readonly height: number }) => {
    const { context, page, errors } = await openPage(backend().browser, viewport)
    await page.goto(`${backend().serve.baseUrl}/`)
    await page.getByLabel("API key").fill(backend().serve.credentials.apiKey)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(/\/threads$/)
    errors.length = 0
    return { context, page, errors }
  }

  const threadUrl = () => `${backend().serve.baseUrl}/projects/${backend().serve.credentials.projectId}/threads/${threadId}`
  const settle = (page: Page, ms: number) => page.evaluate(`new Promise((resolve) => setTimeout(resolve, ${ms}))`)

  /**
   * The rows of the whole conversation, read by scrolling from the top to the bottom (only the rows
   * on screen are in the document): each row's position and text.
   */
  const readAllRows = async (page: Page) => {
    const rows = new Map<number, string>()
    await page.evaluate("window.scrollTo(0, 0)")
    for (let step = 0; step < 400; step++) {
      await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
      const seen: unknown = await page.evaluate(
        `[...document.querySelectorAll("ol.conversation > li")].map((li) => [Number(li.dataset.index), li.innerText])`
      )
      for (const [index, text] of Schema.decodeUnknownSync(Schema.Array(Schema.Tuple(Schema.Number, Schema.String)))(seen)) {
        rows.set(index, text)
      }
      const atEnd = await page.evaluate("window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2")
      if (atEnd === true) break
      await page.evaluate("window.scrollBy(0, window.innerHeight * 0.7)")
    }
    return [...rows].sort(([a], [b]) => a - b).map(([, text]) => text)
  }

  it(
    "every turn of a 60-turn thread shows in order with its own user message and final state; opening costs one page, an idle tab reads only its stream",
    async () => {
      const { page, context, errors } = await signedIn(DESKTOP)
      // The Threads page signing in lands on is left first: on a loaded machine its own reads and
      // streams were still starting, and counted as the thread page's.
      await page.goto("about:blank")
      const requests = countRequests(page)
      await page.goto(threadUrl())
      const conversation = page.getByRole("list", { name: "Conversation" })
      await conversation.getByText(`Answer ${TURNS}.`).waitFor()
      // The page opens at the newest turn.
      await eventually(
        "the last answer on screen",
        async () => {
          const box = await conversation.getByText(`Answer ${TURNS}.`).boundingBox()
          return box !== null && box.y < DESKTOP.height && box.y + box.height > 0
        },
        (visible) => visible,
        10_000
      )
      await settle(page, 3_000)
      const opening = requests.take()
      console.log("requests to open the 60-turn thread:", JSON.stringify(opening))
      expect(opening["messages"]).toBe(1)
      expect(opening["mcp:list_thread_messages"]).toBeUndefined()
      expect(opening["events"]).toBe(1)
      expect(opening["changes"]).toBe(1)
      await screenshot(page, "conversation-open", { fullPage: false })

      // Scrolling up reads the earlier pages, until the first message. While a page is read the button
      // says "Loading earlier messages…": that is waited out, or a slow read would end the scrolling early.
      const loadingEarlier = page.getByRole("button", { name: /Loading earlier/ })
      for (let i = 0; i < 20; i++) {
        await loadingEarlier.waitFor({ state: "detached" })
        if ((await page.getByRole("button", { name: /Load earlier/ }).count()) === 0) break
        await page.evaluate("window.scrollTo(0, 0)")
        await page.mouse.wheel(0, -400)
        await settle(page, 500)
      }
      // The reader's place was kept as each page went in above: the first turn is at the very top.
      await page.evaluate("window.scrollTo(0, 0)")
      await conversation.getByText("Question 1?", { exact: true }).waitFor()
      expect(await page.getByRole("button", { name: /Load earlier/ }).count()).toBe(0)
      const earlier = requests.take()
      console.log("requests to scroll back to the first turn:", JSON.stringify(earlier))
      expect(earlier["messages"]).toBe(2)
      await screenshot(page, "conversation-top", { fullPage: false })

      const rows = await readAllRows(page)
      const users = rows.filter((text) => /^(Question \d+\?|Line 1: )/.test(text))
      expect(users).toHaveLength(TURNS)
      // Each turn: its question, then its agent heading in its final state, then its answer, before the
      // next question; never one still streaming or waiting.
      expect(rows.join("\n")).not.toMatch(/Streaming|Running|Working…|Pending|Waiting for the agent/)
      const isQuestion = (
        text: string,
        turn: number
      ) => (turn === TURNS ? text.startsWith("Line 1: the quick") : text.startsWith(`Question ${turn}?`))
      let at = 0
      for (let turn = 1; turn <= TURNS; turn++) {
        const asked = rows.findIndex((text, index) => index >= at && isQuestion(text, turn))
        expect(asked, `turn ${turn}'s question after turn ${turn - 1}'s answer`).toBeGreaterThanOrEqual(at)
        expect(rows[asked + 1], `turn ${turn}'s heading`).toMatch(/^Agent\s*(Completed|Finished)/)
        expect(rows[asked + 2]?.trim(), `turn ${turn}'s answer`).toBe(`Answer ${turn}.`)
        at = asked + 3
      }
      expect(rows.filter((text) => /^Agent\s/.test(text))).toHaveLength(TURNS)

      // The 22,000-character message says it is cut, and shows all of it on demand.
      await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
      const truncated = conversation.locator(".hint.truncated")
      await truncated.waitFor()
      expect(await truncated.innerText()).toMatch(/Truncated: the first 4,000 characters/)
      await truncated.getByRole("button", { name: "Show all" }).click()
      await conversation.getByText(/Line 380: the quick/).waitFor()
      expect(await conversation.locator(".hint.truncated").count()).toBe(0)
      expect(requests.take()["message"]).toBe(1)
      await screenshot(page, "conversation-show-all", { fullPage: false })
      expect(await accessibilityProblems(page, "main")).toEqual([])

      // Idle: a minute with the tab open on a thread where nothing happens.
      requests.take()
      await settle(page, 60_000)
      const idle = requests.take()
      console.log("requests per minute of an idle tab:", JSON.stringify(idle))
      // Not one: the thread's event stream and the project's changes stream stay open, and nothing is polled.
      expect(idle).toEqual({})

      // A change made elsewhere reaches the idle tab through its changes stream, and costs one read of the thread.
      const done = (value: boolean) =>
        run(Effect.suspend(() =>
          bridge === undefined
            ? Effect.dieMessage("no bridge client")
            : bridge.threads.setDone({ path: { threadId }, payload: { done: value } })
        ))
      await done(true)
      await page.locator(".thread-head .badge.done").waitFor({ timeout: 5_000 })
      await settle(page, 1_500)
      const told = requests.take()
      console.log("requests after the thread was marked done elsewhere:", JSON.stringify(told))
      expect(told["mcp:get_thread"]).toBe(1)
      expect(told["messages"] ?? 0).toBeLessThanOrEqual(1)
      await done(false)

      // Another client with the same key meanwhile: none of its calls is refused.
      const refused = await Promise.all(
        Array.from(
          { length: 20 },
          () =>
            backend().mcp.call(Thread, "get_thread", { threadId }).then(
              () => false,
              (error: unknown) => /429|Too many|rate/i.test(String(error))
            )
        )
      )
      expect(refused.filter(Boolean)).toHaveLength(0)
      expect(errors).toEqual([])
      await context.close()
    },
    240_000
  )

  it("a 429 is waited out for its Retry-After, then the conversation loads; on a phone it fits the screen", async () => {
    const { page, context, errors } = await signedIn(PHONE)
    const answered: Array<{ readonly status: number; readonly at: number }> = []
    let refusals = 0
    await page.route(/\/api\/threads\/[^/]+\/messages(\?|$)/, async (route) => {
      if (refusals < 1) {
        refusals++
        answered.push({ status: 429, at: Date.now() })
        await route.fulfill({
          status: 429,
          headers: { "retry-after": "2", "content-type": "application/json" },
          body: JSON.stringify({ _tag: "TooManyRequests", message: "slow down", retryAfterSeconds: 2 })
        })
        return
      }
      answered.push({ status: 200, at: Date.now() })
      await route.continue()
    })
    await page.goto(threadUrl())
    const conversation = page.getByRole("list", { name: "Conversation" })
    await conversation.getByText(`Answer ${TURNS}.`).waitFor({ timeout: 20_000 })
    const [refused, retried] = answered
    expect(refused?.status).toBe(429)
    expect(retried?.status).toBe(200)
    expect((retried?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(1_900)
    expect(await fitsWidth(page)).toBe(true)
    await screenshot(page, "conversation-phone", { fullPage: false })
    expect(await accessibilityProblems(page, "main")).toEqual([])
    // The refused request is the only console error.
    expect(errors.filter((error) => !/429/.test(error))).toEqual([])
    await context.close()
  }, 120_000)
})
