/**
 * Steering a thread from the browser: Chromium (playwright-core, /usr/bin/chromium) against a real
 * `trellis serve` from the built dist/, with a fake CLI speaking the bridge API over HTTP as
 * `trellis agent` does (register, claim, start a batch, file permission and question requests,
 * wait for their answers). The person answers in the page; the CLI side asserts what reached it.
 * Screenshots land in test-results/web/.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium, type Locator, type Page, type Route } from "playwright-core"
import type { Interaction } from "../../catalog/domain/Interaction.js"
import { type AgentSessionId, ProjectId } from "../../catalog/domain/Ids.js"
import { eventually, killEverything, removeTempDirs, repoRoot, tempDir } from "../e2e/support/Processes.js"
import { Mcp, messagesOf, type Serve, startServe, Thread } from "../e2e/support/Trellis.js"
import { type BridgeClient, bridgeClient, claude, numbered, registerCli } from "../support/FakeCli.js"
import { accessibilityProblems, CHROMIUM, fitsWidth, PHONE, recordErrors, screenshot, SHOTS } from "./support/Browser.js"

const DESKTOP = { width: 1280, height: 800 }

/** One claimed thread with a batch running: what the CLI holds while its runtime asks for things. */
interface Running {
  readonly threadId: string
  readonly epoch: number
  readonly messageId: string
}

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("steering a thread from the browser", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
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

  /** The bridge client's requests go to the real server with the owner's key. */
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
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
    fs.mkdirSync(SHOTS, { recursive: true })
    serve = await startServe(tempDir("trellis-steer-home-"))
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

  // ---- the fake CLI -------------------------------------------------------------------------

  const createThread = async (title: string, extra: Record<string, unknown> = {}) => {
    const { mcp, cli } = backend()
    const args = "sourceThreadId" in extra
      ? { title, content: `Work on: ${title}`, ...extra }
      : { title, content: `Work on: ${title}`, profileId: cli.profileId, pathId: cli.pathId, cliType: "claude", ...extra }
    return (await mcp.call(Thread, "create_thread", args).catch((error: unknown) => {
      throw new Error(`create_thread failed: ${String(error)}\n${backend().serve.proc.describe()}`)
    })).threadId
  }

  /** Claims the thread and starts its batch, streaming a first line of text, as the CLI does before its runtime asks. */
  const startRun = async (threadId: string): Promise<Running> => {
    const { cli } = backend()
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
          chunks: numbered([claude.init(), claude.text("Let me look.")])
        }
      })
      return { threadId, epoch: thread.epoch, messageId: batch.assistantMessageId }
    })).then((running) => {
      unfinished.add(running)
      return running
    })
  }

  /** Runs a test left open when it failed: their requests expire with the batch, so no later test sees them waiting. */
  const unfinished = new Set<Running>()
  afterEach(async () => {
    for (const running of [...unfinished]) await finishRun(running).catch(() => undefined)
    // A failed test leaves its pages open, each holding two event streams: Chromium opens at most six
    // connections to one host, and the next test's page would wait for one.
    for (const page of signedIn?.pages() ?? []) await page.close()
  })

  const ask = (running: Running, kind: "permission" | "question", request: unknown, expiresInMs?: number) => {
    const { cli } = backend()
    return run(cli.client.agent.requestInteraction({
      path: { threadId: running.threadId },
      payload: { sessionId: cli.sessionId, epoch: running.epoch, kind, request, ...(expiresInMs === undefined ? {} : { expiresInMs }) }
    }))
  }

  /** The CLI's wait for the answer (the bridge's long poll), until it is settled. */
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

  const finishRun = (running: Running, fail?: string) => {
    const { cli } = backend()
    const payload = { sessionId: cli.sessionId, epoch: running.epoch, messageId: running.messageId }
    unfinished.delete(running)
    return run(
      fail === undefined
        ? Effect.gen(function*() {
          yield* cli.client.agent.complete({ path: { threadId: running.threadId }, payload })
          yield* cli.client.agent.release({
            path: { threadId: running.threadId },
            payload: { sessionId: cli.sessionId, epoch: running.epoch }
          })
        })
        : Effect.gen(function*() {
          yield* cli.client.agent.fail({ path: { threadId: running.threadId }, payload: { ...payload, errorMessage: fail } })
          yield* cli.client.agent.release({
            path: { threadId: running.threadId },
            payload: { sessionId: cli.sessionId, epoch: running.epoch }
          })
        })
    )
  }

  // ---- the browser --------------------------------------------------------------------------

  let signedIn: BrowserContext | undefined

  /** One signed-in browser profile (the one-time link works once), shared by the tests' pages. */
  const context = async () => {
    if (signedIn !== undefined) return signedIn
    const fresh = await backend().browser.newContext({ viewport: DESKTOP, bypassCSP: true })
    const page = await fresh.newPage()
    await page.goto(signInLink)
    await page.waitForURL(/\/threads$/)
    await page.close()
    signedIn = fresh
    return fresh
  }

  const openPage = async (pathname: string, viewport = DESKTOP) => {
    const page = await (await context()).newPage()
    await page.setViewportSize(viewport)
    const errors = recordErrors(page)
    await page.goto(`${backend().serve.baseUrl}${pathname}`)
    return { page, errors }
  }

  const threadUrl = (threadId: string) => `/projects/${backend().serve.credentials.projectId}/threads/${threadId}`
  const waitingUrl = () => `/projects/${backend().serve.credentials.projectId}/waiting`

  const card = (page: Page, heading: string): Locator => page.getByRole("region", { name: heading })

  const withShot = async <A>(page: Page, name: string, body: () => Promise<A>): Promise<A> => {
    try {
      return await body()
    } catch (error) {
      await screenshot(page, `${name}-failed`).catch(() => undefined)
      throw error
    }
  }

  // ---- the rules ----------------------------------------------------------------------------

  it(
    "a permission shows its full command; Allow reaches the CLI as answered, Deny with a message as denied with that message",
    async () => {
      const threadId = await createThread("Run the tests")
      const running = await startRun(threadId)
      const bash = await ask(running, "permission", {
        tool: "Bash",
        input: { command: "npm test -- --run --reporter=dot", description: "Run the test suite" }
      })
      const write = await ask(running, "permission", {
        tool: "Write",
        input: { file_path: "/home/dev/project/notes.txt", content: "hello" },
        blockedPath: "/home/dev/project/notes.txt"
      })
      const { page, errors } = await openPage(threadUrl(threadId))
      await withShot(page, "steer-permissions", async () => {
        const allowBash = card(page, "Allow Bash?")
        await allowBash.getByText("npm test -- --run --reporter=dot").waitFor()
        await allowBash.getByText("Run the test suite").waitFor()
        const allowWrite = card(page, "Allow Write?")
        await allowWrite.getByText("/home/dev/project/notes.txt").first().waitFor()
        await screenshot(page, "steer-thread-permissions")
        expect(await accessibilityProblems(page)).toEqual([])

        await allowBash.getByRole("button", { name: "Allow", exact: true }).click()
        await allowBash.getByText("Allowed").waitFor()
        const allowed = await awaitAnswer(bash)
        expect(allowed.status).toBe("answered")

        await allowWrite.getByRole("button", { name: "Deny…" }).click()
        await allowWrite.getByLabel(/Why/).fill("Write it under docs/ instead")
        await allowWrite.getByRole("button", { name: "Deny", exact: true }).click()
        await allowWrite.getByText("Denied").waitFor()
        const denied = await awaitAnswer(write)
        expect(denied.status).toBe("denied")
        expect(denied.answer).toEqual({ message: "Write it under docs/ instead" })
        await screenshot(page, "steer-thread-answered")
      })
      expect(errors).toEqual([])
      await finishRun(running)
      await page.close()
    },
    90_000
  )

  it("a question is answered by choosing one of its options, one list of labels per question; a plan shows its text", async () => {
    const threadId = await createThread("Pick a colour")
    const running = await startRun(threadId)
    const questions = [{
      question: "Which colour should the button be?",
      header: "Colour",
      multiSelect: false,
      options: [{ label: "Blue", description: "Calm" }, { label: "Red", description: "Loud" }]
    }]
    const question = await ask(running, "question", { tool: "AskUserQuestion", input: { questions }, questions })
    const plan = await ask(running, "permission", { tool: "ExitPlanMode", input: { plan: "1. Paint the button blue\n2. Run the tests" } })
    const { page, errors } = await openPage(threadUrl(threadId))
    await withShot(page, "steer-question", async () => {
      const asked = card(page, "A question for you")
      await asked.getByText("Which colour should the button be?").waitFor()
      // Nothing chosen yet: the answer cannot be sent.
      expect(await asked.getByRole("button", { name: "Send answer" }).isDisabled()).toBe(true)
      await asked.getByRole("radio", { name: /Blue/ }).check()
      const planned = card(page, "Approve the plan?")
      await planned.getByText("2. Run the tests").waitFor()
      await screenshot(page, "steer-thread-question")
      await asked.getByRole("button", { name: "Send answer" }).click()
      await asked.getByText("Answered").waitFor()
      const answered = await awaitAnswer(question)
      expect(answered.status).toBe("answered")
      expect(answered.answer).toEqual([["Blue"]])

      await planned.getByRole("button", { name: "Allow", exact: true }).click()
      await planned.getByText("Plan approved").waitFor()
      expect((await awaitAnswer(plan)).status).toBe("answered")
    })
    expect(errors).toEqual([])
    await finishRun(running)
    await page.close()
  }, 90_000)

  it("a request nobody answered in time shows as Expired, never as Denied", async () => {
    const threadId = await createThread("Slow to answer")
    const running = await startRun(threadId)
    const request = await ask(running, "permission", { tool: "Bash", input: { command: "rm -rf build" } }, 4_000)
    const { page, errors } = await openPage(threadUrl(threadId))
    await withShot(page, "steer-expired", async () => {
      const shown = card(page, "Allow Bash?")
      await shown.getByText("rm -rf build").waitFor()
      await shown.getByText("Expired").waitFor({ timeout: 15_000 })
      expect(await shown.innerText()).not.toMatch(/Denied/)
      expect(await shown.getByRole("button", { name: "Allow", exact: true }).count()).toBe(0)
      await screenshot(page, "steer-thread-expired")
    })
    const settled = await awaitAnswer(request)
    expect(settled.status).toBe("expired")
    // A reload reads the thread afresh: the expired request is no longer waiting.
    await page.reload()
    await page.getByRole("list", { name: "Conversation" }).waitFor()
    expect(await card(page, "Allow Bash?").count()).toBe(0)
    expect(errors).toEqual([])
    await finishRun(running)
    await page.close()
  }, 90_000)

  it("answering the same request in two tabs is harmless: the first answer stands and the second tab shows it", async () => {
    const threadId = await createThread("Two tabs")
    const running = await startRun(threadId)
    const request = await ask(running, "permission", { tool: "Bash", input: { command: "git push" } })
    const first = await openPage(threadUrl(threadId))
    const second = await openPage(threadUrl(threadId))
    await withShot(second.page, "steer-two-tabs", async () => {
      await card(first.page, "Allow Bash?").getByText("git push").waitFor()
      await card(second.page, "Allow Bash?").getByText("git push").waitFor()
      // The second tab's reads are held, so it still offers the buttons after the first tab
      // answered (else its next read would show the answer before the click; also harmless).
      const held: Array<Route> = []
      await second.page.route(/\/api\/threads\/[^/]+\/interactions$|\/api\/agent\/interactions\//, (route) => {
        held.push(route)
      })
      await card(first.page, "Allow Bash?").getByRole("button", { name: "Allow", exact: true }).click()
      await card(first.page, "Allow Bash?").getByText("Allowed").waitFor()

      // Denying in the second tab returns the answer that stands, shown as such, not as an error.
      const late = card(second.page, "Allow Bash?")
      await late.getByRole("button", { name: "Deny…" }).click()
      await late.getByRole("button", { name: "Deny", exact: true }).click()
      await late.getByText(/Allowed.*the first answer stands/).waitFor()
      expect(await late.getByRole("alert").count()).toBe(0)
      await screenshot(second.page, "steer-thread-second-tab")
      await second.page.unrouteAll({ behavior: "ignoreErrors" })
      await Promise.all(held.map((route) => route.continue().catch(() => undefined)))
    })
    expect((await awaitAnswer(request)).status).toBe("answered")
    expect([...first.errors, ...second.errors]).toEqual([])
    await finishRun(running)
    await first.page.close()
    await second.page.close()
  }, 90_000)

  it("a follow-up message shows as pending until the CLI takes it; a runtime command must start with /", async () => {
    const threadId = await createThread("Follow up")
    await finishRun(await startRun(threadId))
    const { page, errors } = await openPage(threadUrl(threadId))
    await withShot(page, "steer-send", async () => {
      const field = page.getByLabel("Message", { exact: true })
      await field.waitFor()

      // A runtime command is the whole slash command: refused on the field before any send.
      await page.getByRole("checkbox", { name: "Runtime command" }).check()
      const commandField = page.getByRole("textbox", { name: "Runtime command" })
      await commandField.fill("compact")
      await page.getByRole("button", { name: "Send" }).click()
      await page.getByRole("alert").getByText(/must start with \//).waitFor()
      expect(await commandField.getAttribute("aria-invalid")).toBe("true")
      expect((await messagesOf(backend().mcp, threadId)).filter((m) => m.role === "user")).toHaveLength(1)
      await page.getByRole("checkbox", { name: "Runtime command" }).uncheck()

      await page.getByRole("textbox", { name: "Message" }).fill("Now add a changelog entry")
      await page.getByRole("button", { name: "Send" }).click()
      const sent = page.getByRole("list", { name: "Conversation" }).getByRole("listitem").filter({ hasText: "Now add a changelog entry" })
      await sent.getByText("Waiting for the agent").waitFor()
      await screenshot(page, "steer-thread-pending")

      // The CLI takes it: the next batch carries the message, and the page stops calling it pending.
      const running = await startRun(threadId)
      await sent.getByText("Waiting for the agent").waitFor({ state: "detached", timeout: 15_000 })
      await finishRun(running)
    })
    const users = (await messagesOf(backend().mcp, threadId)).filter((m) => m.role === "user")
    expect(users.map((m) => m.text)).toEqual(["Work on: Follow up", "Now add a changelog entry"])
    expect(errors).toEqual([])
    await page.close()
  }, 90_000)

  it("a failed batch is retried from the page; a second Retry of the same failure shows the server's conflict", async () => {
    const threadId = await createThread("Flaky run")
    await finishRun(await startRun(threadId), "the runtime crashed")
    const first = await openPage(threadUrl(threadId))
    // The other tab, in another browser profile (a tab of the same one hears what the first tab's
    // stream hears, web/src/lib/oneForAllTabs.ts), does not hear of the retry: its live streams
    // never connect (a stalled network). Connected, it would show the thread pending within
    // moments and offer no Retry.
    const elsewhere = await backend().browser.newContext({
      viewport: DESKTOP,
      bypassCSP: true,
      storageState: await (await context()).storageState()
    })
    const stalled = await elsewhere.newPage()
    const second = { page: stalled, errors: recordErrors(stalled) }
    await stalled.route(/\/(changes|events)(\?|$)/, () => undefined)
    await stalled.goto(`${backend().serve.baseUrl}${threadUrl(threadId)}`)
    await withShot(first.page, "steer-retry", async () => {
      await first.page.getByRole("button", { name: "Retry" }).waitFor()
      await second.page.getByRole("button", { name: "Retry" }).waitFor()
      await screenshot(first.page, "steer-thread-failed")
      await first.page.getByRole("button", { name: "Retry" }).click()
      await first.page.getByRole("status").getByText(/Retrying/).waitFor()
      await first.page.getByText("Pending", { exact: true }).first().waitFor()
      // The other tab still shows the failure: its Retry is refused (409) and says why.
      await second.page.getByRole("button", { name: "Retry" }).click()
      await second.page.getByRole("alert").getByText(/did not fail; nothing to retry/).waitFor()
      await screenshot(second.page, "steer-thread-retry-conflict")
    })
    // The retried batch reaches the CLI again.
    await finishRun(await startRun(threadId))
    expect(first.errors).toEqual([])
    // The refused retry logged its 409.
    expect(second.errors.filter((error) => !error.includes("409"))).toEqual([])
    await first.page.close()
    await elsewhere.close()
  }, 90_000)

  it("mark done, pin and share are set from the page; a group has no composer", async () => {
    const threadId = await createThread("Housekeeping")
    await finishRun(await startRun(threadId))
    const { page, errors } = await openPage(threadUrl(threadId))
    await page.getByRole("button", { name: "Mark done" }).click()
    await page.getByRole("button", { name: "Mark not done" }).waitFor()
    await page.locator(".thread-head").getByText("Done", { exact: true }).waitFor()
    await page.getByRole("button", { name: "Pin", exact: true }).click()
    await page.getByRole("status").getByText("Pinned.").waitFor()
    await page.getByRole("button", { name: "Unpin", exact: true }).waitFor()
    await page.getByRole("button", { name: "Share", exact: true }).click()
    await page.getByRole("status").getByText(/Shared/).waitFor()
    // The thread record says so, and a fresh page shows it from there.
    const flags = await backend().mcp.call(Schema.Struct({ isPinned: Schema.Boolean, isShared: Schema.Boolean }), "get_thread", {
      threadId
    })
    expect(flags).toEqual({ isPinned: true, isShared: true })
    await page.reload()
    await page.getByRole("button", { name: "Unshare", exact: true }).waitFor()
    expect(await page.getByRole("button", { name: "Unpin", exact: true }).count()).toBe(1)
    await page.getByRole("button", { name: "Mark not done" }).click()
    await page.getByRole("button", { name: "Mark done" }).waitFor()
    await screenshot(page, "steer-thread-actions")
    expect(await accessibilityProblems(page)).toEqual([])

    const member = await createThread("Second look", { sourceThreadId: threadId })
    await finishRun(await startRun(member))
    const groupId =
      (await backend().mcp.call(Schema.Struct({ parentThreadId: Schema.NullOr(Schema.String) }), "get_thread", { threadId })).parentThreadId
    expect(groupId).not.toBeNull()
    await page.goto(`${backend().serve.baseUrl}${threadUrl(groupId ?? "")}`)
    await page.getByRole("list", { name: "Threads of the group" }).waitFor()
    expect(await page.getByRole("textbox", { name: "Message" }).count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  }, 90_000)

  it(
    "a run that finishes or fails while the person is away from the tab is a browser notification (once allowed) and counts in the tab title until they are back",
    async () => {
      const doneId = await createThread("Finish me")
      const done = await startRun(doneId)
      const failingId = await createThread("Fail me")
      const failing = await startRun(failingId)
      const page = await (await context()).newPage()
      const errors = recordErrors(page)
      // The browser's side, made observable: notifications allowed and recorded, and whether the tab
      // is in front switched by the test (a headless tab is always in front).
      await page.addInitScript(`(() => {
      window.__notes = []
      window.__away = false
      window.Notification = class { static permission = "granted"; constructor(title, options) { window.__notes.push({ title, body: options.body }) } }
      document.hasFocus = () => !window.__away
    })()`)
      await page.goto(`${backend().serve.baseUrl}/projects/${backend().serve.credentials.projectId}/threads`)
      await withShot(page, "steer-outcomes", async () => {
        await page.getByRole("link", { name: "Finish me" }).waitFor()
        // Let the page read both threads running before they end.
        await eventually(
          "both threads to show running",
          () => page.getByText("Running", { exact: true }).count(),
          (count) => count >= 2,
          10_000
        )
        await page.evaluate("window.__away = true")
        await finishRun(done)
        await finishRun(failing, "the runtime crashed")
        const notes = await eventually(
          "two notifications",
          () => page.evaluate("window.__notes"),
          (found) => Array.isArray(found) && found.length === 2,
          15_000
        )
        expect(notes).toEqual(expect.arrayContaining([
          { title: "Finished: Finish me", body: "The agent finished its turn." },
          { title: "Failed: Fail me", body: "The agent's run failed: open the thread to retry it." }
        ]))
        await eventually("the tab title to count both", () => page.title(), (title) => title === "(2) Trellis", 10_000)
        await page.evaluate("window.__away = false; window.dispatchEvent(new Event('focus'))")
        await eventually("the tab title to clear", () => page.title(), (title) => title === "Trellis", 10_000)
      })
      expect(errors).toEqual([])
      await page.close()
    },
    90_000
  )

  it(
    "phone 390×844: Waiting on you lists every pending request, a group member's too, and answers one in place without sideways scrolling",
    async () => {
      const soloId = await createThread("Deploy the docs")
      const solo = await startRun(soloId)
      const deploy = await ask(solo, "permission", { tool: "Bash", input: { command: "npm run docs:deploy -- --production --confirm" } })
      const leadId = await createThread("Lead thread")
      await finishRun(await startRun(leadId))
      const memberId = await createThread("Member thread", { sourceThreadId: leadId })
      const member = await startRun(memberId)
      const colours = [{
        question: "Which palette?",
        header: "Palette",
        multiSelect: false,
        options: [{ label: "Warm", description: "Reds and oranges" }, { label: "Cool", description: "Blues and greens" }]
      }]
      const palette = await ask(member, "question", { tool: "AskUserQuestion", input: { questions: colours }, questions: colours })

      const { page, errors } = await openPage(waitingUrl(), PHONE)
      await withShot(page, "steer-waiting", async () => {
        await page.getByRole("heading", { name: "Waiting on you", level: 1 }).waitFor()
        const requests = page.getByRole("list", { name: "Requests" })
        const deployCard = requests.getByRole("region", { name: "Allow Bash?" })
        await deployCard.getByText("npm run docs:deploy -- --production --confirm").waitFor()
        await deployCard.getByRole("link", { name: "Deploy the docs" }).waitFor()
        const paletteCard = requests.getByRole("region", { name: "A question for you" })
        await paletteCard.getByRole("link", { name: "Member thread" }).waitFor()
        await eventually("the tab title to count both", () => page.title(), (title) => title === "(2) Trellis", 10_000)
        expect(await fitsWidth(page)).toBe(true)
        await screenshot(page, "phone-waiting")
        expect(await accessibilityProblems(page)).toEqual([])

        await paletteCard.getByRole("radio", { name: /Cool/ }).check()
        await paletteCard.getByRole("button", { name: "Send answer" }).click()
        await paletteCard.getByText("Answered").waitFor()
        await eventually("the tab title to count one", () => page.title(), (title) => title === "(1) Trellis", 10_000)
        expect(await fitsWidth(page)).toBe(true)
        await screenshot(page, "phone-waiting-answered")
      })
      const answered = await awaitAnswer(palette)
      expect(answered.answer).toEqual([["Cool"]])
      // The other request still waits: it is answered from its thread's card on the phone too.
      await page.getByRole("link", { name: "Deploy the docs" }).click()
      await page.waitForURL(new RegExp(`/threads/${soloId}$`))
      await card(page, "Allow Bash?").getByRole("button", { name: "Allow", exact: true }).click()
      expect((await awaitAnswer(deploy)).status).toBe("answered")
      expect(await fitsWidth(page)).toBe(true)
      await screenshot(page, "phone-thread-allowed")
      expect(errors).toEqual([])
      await finishRun(solo)
      await finishRun(member)
      await page.close()
    },
    120_000
  )
})
