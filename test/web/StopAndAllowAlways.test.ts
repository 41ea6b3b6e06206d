/**
 * Stop and Allow always from the browser (issue 28 §3): Chromium against a real `trellis serve`
 * from the built dist/, at 1440×900 and 390×844, with a fake CLI speaking the bridge as
 * `trellis agent` does — it long-polls the turn's stop and ends the turn with the line the real
 * CLI adds, and files permission requests carrying the standing rule the real CLI builds from each
 * runtime's own offer. Screenshots land in test-results/web/.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { CLI_STOPPED_TYPE } from "../../catalog/bridge/AgentApi.js"
import { type AgentSessionId, ProjectId } from "../../catalog/domain/Ids.js"
import type { Interaction } from "../../catalog/domain/Interaction.js"
import { interactionOf } from "../../cli/agent/runtimes/ClaudeCode.js"
import { codexStandingRule } from "../../cli/agent/runtimes/StandingRules.js"
import { STOPPED_MESSAGE } from "../../cli/agent/TurnStop.js"
import { eventually, killEverything, removeTempDirs, repoRoot, tempDir } from "../e2e/support/Processes.js"
import { Mcp, type Serve, startServe, Thread } from "../e2e/support/Trellis.js"
import { type BridgeClient, bridgeClient, claude, numbered, registerCli } from "../support/FakeCli.js"
import { accessibilityProblems, CHROMIUM, DESKTOP, fitsWidth, PHONE, recordErrors, screenshot, SHOTS } from "./support/Browser.js"

const SIZES = [["desktop", DESKTOP], ["phone", PHONE]] as const

interface Running {
  readonly threadId: string
  readonly epoch: number
  readonly messageId: string
}

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("Stop and Allow always in the browser", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let signedIn: BrowserContext | undefined
  let cli:
    | { readonly client: BridgeClient; readonly sessionId: AgentSessionId; readonly profileId: string; readonly pathId: string }
    | undefined
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let signInLink = ""

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
      throw new Error("dist/web/ is not built: run `npm run build` first")
    }
    fs.mkdirSync(SHOTS, { recursive: true })
    serve = await startServe(tempDir("trellis-stop-web-"))
    const printed = /Sign in: +(\S+) \(one use, 10 minutes\)\n/.exec(serve.proc.stdout)?.[1]
    if (printed === undefined) throw new Error(`trellis serve printed no sign-in link\n${serve.proc.describe()}`)
    signInLink = printed
    mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
    const key = serve.credentials.apiKey
    const projectId = Schema.decodeSync(ProjectId)(serve.credentials.projectId)
    const registered = await run(Effect.gen(function*() {
      const client = yield* bridgeClient(key)
      return { client, answer: yield* registerCli(client, projectId, { name: "laptop", path: "/home/dev/project" }) }
    }))
    const pathId = registered.answer.profile.paths[0]?.pathId
    if (pathId === undefined) throw new Error("the fake CLI registered no checkout")
    cli = { client: registered.client, sessionId: registered.answer.sessionId, profileId: registered.answer.profile.profileId, pathId }
    heartbeat = setInterval(() => {
      void run(registered.client.agent.heartbeat({ payload: { sessionId: registered.answer.sessionId } })).catch(() => undefined)
    }, 10_000)
  }, 120_000)

  afterAll(async () => {
    if (heartbeat !== undefined) clearInterval(heartbeat)
    await browser?.close()
    await mcp?.close()
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  const startRun = async (title: string): Promise<Running> => {
    const { cli, mcp } = backend()
    const { threadId } = await mcp.call(Thread, "create_thread", {
      title,
      content: `Work on: ${title}`,
      profileId: cli.profileId,
      pathId: cli.pathId,
      cliType: "claude"
    })
    return run(Effect.gen(function*() {
      const { thread } = yield* cli.client.agent.claim({ payload: { sessionId: cli.sessionId, threadId } })
      if (thread === null) return yield* Effect.dieMessage(`the fake CLI could not claim ${threadId}`)
      const batch = yield* cli.client.agent.startBatch({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch: thread.epoch } })
      if (batch.drained) return yield* Effect.dieMessage(`no batch on ${threadId}`)
      yield* cli.client.agent.uploadChunks({
        path: { threadId },
        payload: {
          sessionId: cli.sessionId,
          epoch: thread.epoch,
          messageId: batch.assistantMessageId,
          chunks: numbered([claude.init(), claude.text("Running the whole test suite, this takes a while.")])
        }
      })
      return { threadId, epoch: thread.epoch, messageId: batch.assistantMessageId }
    }))
  }

  /** What the CLI does once told to stop: the runtime's turn ends, the stopped line follows, the message completes. */
  const stopWhenAsked = (running: Running) => {
    const { cli } = backend()
    return run(Effect.gen(function*() {
      for (;;) {
        const { stopRequested } = yield* cli.client.agent.awaitStop({
          path: { threadId: running.threadId },
          urlParams: { messageId: running.messageId, waitMs: 20_000 }
        })
        if (stopRequested) break
      }
      const payload = { sessionId: cli.sessionId, epoch: running.epoch, messageId: running.messageId }
      yield* cli.client.agent.uploadChunks({
        path: { threadId: running.threadId },
        payload: { ...payload, chunks: numbered([{ type: CLI_STOPPED_TYPE, data: JSON.stringify({ message: STOPPED_MESSAGE }) }], 2) }
      })
      yield* cli.client.agent.complete({ path: { threadId: running.threadId }, payload })
      yield* cli.client.agent.release({ path: { threadId: running.threadId }, payload: { sessionId: cli.sessionId, epoch: running.epoch } })
    }))
  }

  const openPage = async (threadId: string, viewport: { readonly width: number; readonly height: number }) => {
    if (signedIn === undefined) {
      const fresh = await backend().browser.newContext({ viewport: DESKTOP, bypassCSP: true })
      const page = await fresh.newPage()
      await page.goto(signInLink)
      await page.waitForURL(/\/threads$/)
      await page.close()
      signedIn = fresh
    }
    const page = await signedIn.newPage()
    await page.setViewportSize(viewport)
    const errors = recordErrors(page)
    await page.goto(`${backend().serve.baseUrl}/projects/${backend().serve.credentials.projectId}/threads/${threadId}`)
    return { page, errors }
  }

  const withShot = async <A>(page: Page, name: string, body: () => Promise<A>): Promise<A> => {
    try {
      return await body()
    } catch (error) {
      await screenshot(page, `${name}-failed`).catch(() => undefined)
      throw error
    }
  }

  for (const [size, viewport] of SIZES) {
    it(
      `Stop (${size}): the button beside Send stops the running turn, which reads Stopped, and the composer says the agent takes the next message`,
      async () => {
        const running = await startRun(`Stop the suite on the ${size}`)
        const stopped = stopWhenAsked(running)
        const { page, errors } = await openPage(running.threadId, viewport)
        await withShot(page, `stop-${size}`, async () => {
          const composer = page.getByRole("form", { name: "Send a message" })
          const stop = composer.getByRole("button", { name: "Stop" })
          await stop.waitFor()
          await screenshot(page, `stop-running-${size}`)
          expect(await accessibilityProblems(page)).toEqual([])
          const asked = Date.now()
          await stop.click()
          await stopped
          await composer.getByText("Stopped. The agent takes your next message.").waitFor({ timeout: 15_000 })
          console.log(`${size}: Stop clicked → composer says Stopped in ${Date.now() - asked} ms`)
          const conversation = page.getByRole("list", { name: "Conversation" })
          await conversation.getByText("Stopped", { exact: true }).waitFor()
          await conversation.getByText("Stopped by you: the agent takes your next message.").waitFor()
          expect(await composer.getByRole("button", { name: "Stop" }).count()).toBe(0)
          await screenshot(page, `stop-stopped-${size}`)
          expect(await accessibilityProblems(page)).toEqual([])
          expect(await fitsWidth(page)).toBe(true)
        })
        expect(errors).toEqual([])
        await page.close()
      },
      90_000
    )
  }

  /** Codex's approval as the fixture recorded it, filed as the CLI files it (its standing rule in words). */
  const codexParams = {
    threadId: "t",
    turnId: "u",
    itemId: "call_1",
    command: "touch made-by-codex.txt",
    cwd: "/home/dev/project",
    proposedExecpolicyAmendment: ["touch", "made-by-codex.txt"]
  }
  const claudeRequest = {
    subtype: "can_use_tool",
    tool_name: "Bash",
    input: { command: "npm test -- --run", description: "Run the tests" },
    permission_suggestions: [{
      type: "addRules",
      rules: [{ toolName: "Bash", ruleContent: "npm test:*" }],
      behavior: "allow",
      destination: "localSettings"
    }]
  }

  for (const [size, viewport] of SIZES) {
    it(
      `Allow always (${size}): a card whose runtime offers a standing rule offers it as a second choice and says exactly what it allows`,
      async () => {
        const running = await startRun(`Allow always on the ${size}`)
        const { cli } = backend()
        const file = (request: unknown) =>
          run(cli.client.agent.requestInteraction({
            path: { threadId: running.threadId },
            payload: { sessionId: cli.sessionId, epoch: running.epoch, kind: "permission", request }
          }))
        const codexWords = codexStandingRule(codexParams)?.words ?? ""
        const codex = await file({ tool: "command", ...codexParams, standingRule: codexWords })
        const claudeAsk = await file(interactionOf(claudeRequest).request)
        const { page, errors } = await openPage(running.threadId, viewport)
        await withShot(page, `allow-always-${size}`, async () => {
          const codexCard = page.getByRole("region", { name: "Run a command?" })
          await codexCard.getByText(codexWords).waitFor()
          const claudeCard = page.getByRole("region", { name: "Allow Bash?" })
          await claudeCard.getByText(
            "Claude Code will allow Bash(npm test:*): saved in this checkout's .claude/settings.local.json, for every later run here."
          ).waitFor()
          await screenshot(page, `allow-always-offered-${size}`)
          expect(await accessibilityProblems(page)).toEqual([])
          expect(await fitsWidth(page)).toBe(true)

          await codexCard.getByRole("button", { name: "Allow always" }).click()
          await codexCard.getByText("Allowed always").waitFor()
          await claudeCard.getByRole("button", { name: "Allow", exact: true }).click()
          await claudeCard.getByText("Allowed", { exact: true }).waitFor()
          const settled = async (asked: Interaction) =>
            eventually(
              `${asked.interactionId} settled`,
              () => run(cli.client.agent.awaitInteraction({ path: { interactionId: asked.interactionId }, urlParams: { waitMs: 2_000 } })),
              (found) => found.status !== "pending",
              30_000
            )
          expect(await settled(codex)).toMatchObject({ status: "answered", answer: { always: true } })
          expect((await settled(claudeAsk)).answer).toBeNull()
          await screenshot(page, `allow-always-answered-${size}`)
          expect(await accessibilityProblems(page)).toEqual([])
        })
        expect(errors).toEqual([])
        await run(
          cli.client.agent.complete({
            path: { threadId: running.threadId },
            payload: { sessionId: cli.sessionId, epoch: running.epoch, messageId: running.messageId }
          })
        )
        await page.close()
      },
      90_000
    )
  }
})
