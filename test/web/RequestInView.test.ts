/**
 * The request the person answers is always in view (issue 28 §2), and what a reader is told
 * (§4): Chromium against a real `trellis serve` from the built dist/, with a fake CLI speaking the
 * bridge API (as in Steering.test.ts). Opening a waiting thread lands on its card below the sticky
 * header with the focus on Allow, at 1440×900 and 390×844; a request raised while the person reads
 * further up raises the review bar; an answer moves the focus on. Screenshots in test-results/web/.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import type { Interaction } from "../../catalog/domain/Interaction.js"
import { type AgentSessionId, ProjectId } from "../../catalog/domain/Ids.js"
import { eventually, killEverything, removeTempDirs, repoRoot, tempDir } from "../e2e/support/Processes.js"
import { Mcp, type Serve, startServe, Thread } from "../e2e/support/Trellis.js"
import { type BridgeClient, bridgeClient, claude, numbered, registerCli, type RuntimeLine } from "../support/FakeCli.js"
import { accessibilityProblems, CHROMIUM, DESKTOP, fitsWidth, PHONE, recordErrors, screenshot, SHOTS } from "./support/Browser.js"

interface Running {
  readonly threadId: string
  readonly epoch: number
  readonly messageId: string
  seq: number
}

/** Enough of a conversation above the card that the page scrolls, at either width. */
const LONG_TURN: ReadonlyArray<RuntimeLine> = Array.from(
  { length: 30 },
  (_, i) => claude.text(`Step ${i + 1}: reading the sources and taking notes on what the tests cover.`)
)

const line = (value: Record<string, unknown>): RuntimeLine => ({ type: String(value["type"]), data: JSON.stringify(value) })

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("the request you answer is always in view", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let cli:
    | { readonly client: BridgeClient; readonly sessionId: AgentSessionId; readonly profileId: string; readonly pathId: string }
    | undefined
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let signInLink = ""
  let signedIn: BrowserContext | undefined

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || cli === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, cli }
  }

  const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>): Promise<A> => {
    if (serve === undefined) return Promise.reject(new Error("trellis serve did not start"))
    const baseUrl = serve.baseUrl
    const layer = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, (client) => client.pipe(HttpClient.mapRequest(HttpClientRequest.prependUrl(baseUrl))))
    ).pipe(Layer.provide(FetchHttpClient.layer))
    return Effect.runPromise(Effect.provide(effect, layer))
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, "dist", "web", "index.html"))) {
      throw new Error("dist/web/ is not built: run `npm run build` before this test")
    }
    fs.mkdirSync(SHOTS, { recursive: true })
    serve = await startServe(tempDir("trellis-inview-home-"))
    const printed = /Sign in: +(\S+) \(one use, 10 minutes\)\n/.exec(serve.proc.stdout)?.[1]
    if (printed === undefined) throw new Error(`trellis serve printed no sign-in link\n${serve.proc.describe()}`)
    signInLink = printed
    mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
    const key = serve.credentials.apiKey
    const projectId = Schema.decodeSync(ProjectId)(serve.credentials.projectId)
    const registered = await run(Effect.gen(function*() {
      const client = yield* bridgeClient(key)
      const answer = yield* registerCli(client, projectId, { name: "laptop", path: "/home/dev/project" })
      return { client, answer }
    }))
    const pathId = registered.answer.profile.paths[0]?.pathId
    if (pathId === undefined) throw new Error("the fake CLI registered no checkout")
    cli = { client: registered.client, sessionId: registered.answer.sessionId, profileId: registered.answer.profile.profileId, pathId }
    const session = registered.answer.sessionId
    heartbeat = setInterval(() => {
      void run(registered.client.agent.heartbeat({ payload: { sessionId: session } })).catch(() => undefined)
    }, 10_000)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
  }, 120_000)

  afterAll(async () => {
    if (heartbeat !== undefined) clearInterval(heartbeat)
    await browser?.close()
    await mcp?.close()
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  const createThread = async (title: string, content = `Work on: ${title}`) => {
    const { mcp, cli } = backend()
    return (await mcp.call(Thread, "create_thread", { title, content, profileId: cli.profileId, pathId: cli.pathId, cliType: "claude" }))
      .threadId
  }

  const upload = (running: Running, lines: ReadonlyArray<RuntimeLine>) => {
    const { cli } = backend()
    const chunks = numbered(lines, running.seq)
    running.seq += lines.length
    return run(cli.client.agent.uploadChunks({
      path: { threadId: running.threadId },
      payload: { sessionId: cli.sessionId, epoch: running.epoch, messageId: running.messageId, chunks }
    }))
  }

  const startRun = async (threadId: string, lines: ReadonlyArray<RuntimeLine> = LONG_TURN): Promise<Running> => {
    const { cli } = backend()
    const running = await run(Effect.gen(function*() {
      const { thread } = yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId, threadId } })
      if (thread === null) return yield* Effect.dieMessage(`the fake CLI could not claim ${threadId}`)
      const batch = yield* cli.client.agent.startBatch({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch: thread.epoch } })
      if (batch.drained) return yield* Effect.dieMessage(`no batch on ${threadId}`)
      return { threadId, epoch: thread.epoch, messageId: batch.assistantMessageId, seq: 0 }
    }))
    await upload(running, [claude.init(), ...lines])
    return running
  }

  const ask = (running: Running, request: unknown) =>
    run(
      backend().cli.client.agent.requestInteraction({
        path: { threadId: running.threadId },
        payload: { sessionId: backend().cli.sessionId, epoch: running.epoch, kind: "permission", request }
      })
    )

  const awaitAnswer = (interaction: Interaction) =>
    eventually(
      `interaction ${interaction.interactionId} to be settled`,
      () =>
        run(
          backend().cli.client.agent.awaitInteraction({ path: { interactionId: interaction.interactionId }, urlParams: { waitMs: 2_000 } })
        ),
      (found) => found.status !== "pending",
      30_000
    )

  const finishRun = (running: Running) => {
    const { cli } = backend()
    return run(Effect.gen(function*() {
      yield* cli.client.agent.complete({
        path: { threadId: running.threadId },
        payload: { sessionId: cli.sessionId, epoch: running.epoch, messageId: running.messageId }
      })
      yield* cli.client.agent.release({ path: { threadId: running.threadId }, payload: { sessionId: cli.sessionId, epoch: running.epoch } })
    }))
  }

  const openPage = async (threadId: string, viewport: { readonly width: number; readonly height: number }) => {
    if (signedIn === undefined) {
      signedIn = await backend().browser.newContext({ viewport: DESKTOP, bypassCSP: true })
      const first = await signedIn.newPage()
      await first.goto(signInLink)
      await first.waitForURL(/\/threads$/)
      await first.close()
    }
    const page = await signedIn.newPage()
    await page.setViewportSize(viewport)
    const errors = recordErrors(page)
    await page.goto(`${backend().serve.baseUrl}/projects/${backend().serve.credentials.projectId}/threads/${threadId}`)
    return { page, errors }
  }

  /** Where a card is against the sticky header's bottom and the window's height. */
  const placement = async (page: Page, heading: string) => {
    const found: unknown = await page.evaluate(`(() => {
      const card = [...document.querySelectorAll("section.interaction")].find((section) => section.querySelector("h2")?.textContent === ${
      JSON.stringify(heading)
    })
      const rect = card.getBoundingClientRect()
      const header = document.querySelector("header.topbar")?.getBoundingClientRect().bottom ?? 0
      return { top: rect.top, bottom: rect.bottom, header, height: window.innerHeight }
    })()`)
    return Schema.decodeUnknownSync(
      Schema.Struct({ top: Schema.Number, bottom: Schema.Number, header: Schema.Number, height: Schema.Number })
    )(found)
  }

  const evaluateString = async (page: Page, expression: string): Promise<string> => String(await page.evaluate(expression))
  const focusedName = (page: Page) => evaluateString(page, `document.activeElement?.textContent ?? ""`)
  const scrollY = async (page: Page) => Number(await page.evaluate("window.scrollY"))

  const wholeCardInView = async (page: Page, heading: string) => {
    const at = await placement(page, heading)
    expect(at.top).toBeGreaterThanOrEqual(at.header)
    expect(at.bottom).toBeLessThanOrEqual(at.height)
  }

  for (const [name, viewport] of [["desktop", DESKTOP], ["phone", PHONE]] as const) {
    it(
      `${name} ${viewport.width}×${viewport.height}: opening a waiting thread brings its card whole below the header, the focus on Allow`,
      async () => {
        const threadId = await createThread(`Open on the card (${name})`)
        const running = await startRun(threadId)
        await upload(running, [
          claude.toolUse("toolu_open", "Bash", { command: "npm run build && npm test -- --reporter=dot", description: "Build and test" })
        ])
        const request = await ask(running, {
          tool: "Bash",
          input: { command: "npm run build && npm test -- --reporter=dot", description: "Build and test" }
        })
        const { page, errors } = await openPage(threadId, viewport)
        const card = page.getByRole("region", { name: "Allow Bash?" })
        await card.getByText("npm run build && npm test -- --reporter=dot").waitFor()
        await eventually("the focus on Allow", () => focusedName(page), (focused) => focused === "Allow", 10_000)
        // The page settles (the events stream in above the card): the card stays in view.
        await page.waitForTimeout(1_500)
        await wholeCardInView(page, "Allow Bash?")
        expect(await focusedName(page)).toBe("Allow")
        // The call that asks says so where it stands, instead of "Working…".
        await page.getByRole("list", { name: "Conversation" }).getByText("Waiting on you", { exact: true }).waitFor()
        expect(await fitsWidth(page)).toBe(true)
        await screenshot(page, `inview-open-${name}`, { fullPage: false })
        expect(await accessibilityProblems(page)).toEqual([])

        await page.keyboard.press("Enter")
        await card.getByText("Allowed").waitFor()
        expect((await awaitAnswer(request)).status).toBe("answered")
        // Nothing else waits: the focus goes to the composer.
        await eventually(
          "the focus on the composer",
          () => evaluateString(page, `document.activeElement?.closest("form")?.getAttribute("aria-label") ?? ""`),
          (form) => form === "Send a message",
          10_000
        )
        expect(errors).toEqual([])
        await finishRun(running)
        await page.close()
      },
      90_000
    )
  }

  it(
    "a request raised while the person reads further up raises the review bar; it brings the card into view, and an answer moves the focus to the next request",
    async () => {
      const threadId = await createThread("Review from the bar")
      const running = await startRun(threadId)
      const { page, errors } = await openPage(threadId, DESKTOP)
      await page.getByRole("list", { name: "Conversation" }).getByText("Step 30:", { exact: false }).waitFor()
      await page.mouse.wheel(0, -20_000)
      await eventually("the page at the top", () => scrollY(page), (y) => y === 0, 5_000)

      const first = await ask(running, { tool: "Bash", input: { command: "git push origin main" } })
      const second = await ask(running, { tool: "Write", input: { file_path: "/home/dev/project/CHANGELOG.md", content: "## 1.2.0" } })
      const bar = page.getByRole("button", { name: /^Waiting on you — review/ })
      await bar.waitFor({ timeout: 15_000 })
      // The page did not move under the reader.
      expect(await scrollY(page)).toBe(0)
      await screenshot(page, "inview-review-bar", { fullPage: false })

      await bar.click()
      await wholeCardInView(page, "Allow Bash?")
      expect(await focusedName(page)).toBe("Allow")
      await bar.waitFor({ state: "detached" })
      await page.keyboard.press("Enter")
      expect((await awaitAnswer(first)).status).toBe("answered")
      // The next request takes the focus, in view.
      await eventually(
        "the focus on the next card",
        () => evaluateString(page, `document.activeElement?.closest("section.interaction")?.querySelector("h2")?.textContent ?? ""`),
        (heading) => heading === "Allow Write?",
        10_000
      )
      await wholeCardInView(page, "Allow Write?")
      await page.getByRole("region", { name: "Allow Write?" }).getByRole("button", { name: "Allow", exact: true }).click()
      expect((await awaitAnswer(second)).status).toBe("answered")
      expect(errors).toEqual([])
      await finishRun(running)
      await page.close()
    },
    90_000
  )

  it(
    "phone 390×844: a denied call reads Denied by you; Codex and OpenCode cards ask like Claude's; a long URL in a warning wraps; a user message is Markdown",
    async () => {
      const threadId = await createThread("What the reader is told", "Please **check** the `build` and:\n\n- run the tests\n- report back")
      const running = await startRun(threadId, [claude.text("Let me look.")])
      const url = `https://example.com/${"a-very-long-path-segment/".repeat(12)}index.html`
      await upload(running, [
        claude.toolUse("toolu_denied", "Bash", { command: "rm -rf build" }),
        line({
          type: "user",
          message: {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_denied", content: "Keep the build folder", is_error: true }]
          },
          session_id: claude.sessionId
        }),
        line({
          type: "result",
          subtype: "success",
          is_error: true,
          result: `Could not reach ${url}`,
          session_id: claude.sessionId,
          permission_denials: [{ tool_name: "Bash", tool_use_id: "toolu_denied", tool_input: { command: "rm -rf build" } }]
        })
      ])
      const codex = await ask(running, {
        tool: "command",
        command: "/bin/bash -lc 'touch made-by-codex.txt'",
        cwd: "/home/dev/project",
        threadId: "t",
        turnId: "u",
        itemId: "call_1",
        availableDecisions: ["accept", "cancel"]
      })
      const opencode = await ask(running, { tool: "bash", patterns: ["echo from-opencode"], metadata: { command: "echo from-opencode" } })
      const { page, errors } = await openPage(threadId, PHONE)
      const conversation = page.getByRole("list", { name: "Conversation" })
      await conversation.getByText("Denied by you").waitFor()
      expect(await conversation.getByText("Failed", { exact: true }).count()).toBe(0)
      await conversation.locator("strong", { hasText: "check" }).waitFor()
      expect(await conversation.locator("li.row-user li").count()).toBe(2)

      const codexCard = page.getByRole("region", { name: "Run a command?" }).filter({ hasText: "made-by-codex" })
      await codexCard.getByText("/bin/bash -lc 'touch made-by-codex.txt'").waitFor()
      // The runtime's own JSON only when opened.
      expect(await codexCard.getByText("availableDecisions").isVisible()).toBe(false)
      const opencodeCard = page.getByRole("region", { name: "Run a command?" }).filter({ hasText: "from-opencode" })
      expect(await opencodeCard.getByText("echo from-opencode").count()).toBe(1)
      await page.getByRole("list", { name: "Conversation" }).getByText(url, { exact: false }).scrollIntoViewIfNeeded()
      expect(await page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")).toBe(true)
      await screenshot(page, "inview-phone-told")
      expect(await accessibilityProblems(page)).toEqual([])

      await codexCard.getByRole("button", { name: "Allow", exact: true }).click()
      expect((await awaitAnswer(codex)).status).toBe("answered")
      await opencodeCard.getByRole("button", { name: "Allow", exact: true }).click()
      expect((await awaitAnswer(opencode)).status).toBe("answered")
      expect(errors).toEqual([])
      await finishRun(running)
      await page.close()
    },
    90_000
  )
})
