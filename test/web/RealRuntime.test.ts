/**
 * The web app steering a real runtime: Chromium (playwright-core, /usr/bin/chromium) against a real
 * `trellis serve` from the built dist/ and a real `trellis agent start` whose `claude` is the pinned
 * Claude Code binary, talking to the mock model server (test/support/mock-model/). The person
 * starts the thread from the New thread page and answers Claude Code's own permission requests on
 * the thread page; the checkout and the requests the mock model received show what happened.
 * Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core"
import { type Backend, type Machine, onlineTarget, realMachine, startBackend, startRealAgent } from "../e2e/support/RealRuntimes.js"
import { eventually, killEverything, removeTempDirs, repoRoot } from "../e2e/support/Processes.js"
import type { Agent } from "../e2e/support/Trellis.js"
import { type MockModel, startMockModel } from "../support/mock-model/MockModel.js"
import { claudeCannotRunHere } from "../support/runtimes/RuntimeBinaries.js"
import { accessibilityProblems, CHROMIUM, fitsWidth, openPage, PHONE, screenshot, SHOTS } from "./support/Browser.js"

const DESKTOP = { width: 1280, height: 800 }
/** `realMachine` logs the machine in as `rt-<name>`. */
const MACHINE = "rt-web"
const TITLE = "Real Claude asks first"

/** Writes a file in the checkout and prints what it wrote: the mock model asks Claude's Bash tool to run it. */
const ALLOWED = "echo ran-in-the-checkout | tee allowed.txt"
const DENIED = "touch denied.txt"
const DENIAL = "Not in this repository, please."

// Like test/e2e/ (vitest.config.ts), it runs on its own embedded database: the PostgreSQL pass would only repeat it.
const postgresPass = process.env["DATABASE_URL"] !== undefined

describe.skipIf(postgresPass || claudeCannotRunHere()).sequential(
  "the web app steering the real Claude Code against the mock model",
  () => {
    let mock: MockModel | undefined
    let backend: Backend | undefined
    let machine: Machine | undefined
    let agent: Agent | undefined
    /** The checkout's path ID on the machine, as the New thread form offers it. */
    let pathId = ""
    let browser: Browser | undefined
    let desktop: { readonly context: BrowserContext; readonly page: Page; readonly errors: Array<string> } | undefined
    let threadId = ""

    const started = () => {
      if (mock === undefined || backend === undefined || machine === undefined || agent === undefined || browser === undefined) {
        throw new Error("the backend, the machine or the browser did not start")
      }
      return { mock, backend, machine, agent, browser }
    }
    const signedIn = () => {
      if (desktop === undefined) throw new Error("the first test did not sign in")
      return desktop
    }

    beforeAll(async () => {
      if (!fs.existsSync(path.join(repoRoot, "dist", "web", "index.html"))) {
        throw new Error("dist/web/ is not built: run `npm run build` before this test")
      }
      if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
      fs.mkdirSync(SHOTS, { recursive: true })
      mock = await startMockModel()
      backend = await startBackend()
      machine = await realMachine(backend, mock, "web")
      agent = await startRealAgent(machine)
      pathId = (await onlineTarget(backend, machine, agent)).pathId
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
    }, 120_000)

    afterAll(async () => {
      await desktop?.context.close()
      await browser?.close()
      await backend?.mcp.close()
      await killEverything()
      await mock?.close()
      await removeTempDirs()
    }, 30_000)

    /** Keeps the screenshot (and the agent's log) of what the page showed when a step failed. */
    const step = async <A>(page: Page, name: string, run: () => Promise<A>): Promise<A> => {
      try {
        return await run()
      } catch (error) {
        await screenshot(page, `${name}-failed`).catch(() => undefined)
        throw new Error(`${String(error)}\n${started().agent.proc.describe()}`)
      }
    }

    /** The permission card for `command`: the page keeps an answered card beside a new one. */
    const requestFor = (page: Page, command: string): Locator =>
      page.getByRole("region", { name: "Allow Bash?" }).filter({ has: page.locator("pre.command", { hasText: command }) })

    const conversation = (page: Page) => page.getByRole("list", { name: "Conversation" })
    /**
     * The newest assistant turn reads Finished, and the thread's head Finished with nothing waiting
     * (both follow the polled records).
     */
    const settled = async (page: Page) => {
      await eventually(
        "the last turn to show Finished",
        () => conversation(page).locator("li.row-turn").last().locator(".badge").innerText({ timeout: 2_000 }),
        (state) => state === "Finished",
        30_000
      )
      await page.locator(".thread-head").getByText("Finished", { exact: true }).waitFor({ timeout: 15_000 })
      expect(await page.locator(".thread-head").getByText("Waiting for you").count()).toBe(0)
    }
    const checkoutHas = (file: string) => fs.existsSync(path.join(started().machine.checkout, file))

    it(
      "a thread started from the New thread page asks before Claude's Bash runs; allowed, the command runs in the checkout and the model's answer completes the turn",
      async () => {
        const { backend, machine } = started()
        desktop = await openPage(started().browser, DESKTOP)
        const { page } = desktop
        const link = /Sign in: +(\S+) \(one use, 10 minutes\)\n/.exec(backend.serve.proc.stdout)?.[1]
        if (link === undefined) {
          throw new Error("trellis serve printed no sign-in link")
        }
        await page.goto(link)
        await page.getByRole("heading", { name: "Threads", level: 1 }).waitFor()

        await page.getByRole("link", { name: "New thread" }).first().click()
        await step(page, "real-new-thread", async () => {
          await page.getByRole("heading", { name: "New thread", level: 1 }).waitFor()
          await page.getByLabel("Machine", { exact: true }).selectOption({ label: `${MACHINE} (online)` })
          await page.getByLabel("Checkout").selectOption(pathId)
          expect(await page.getByLabel("Checkout").locator("option:checked").innerText()).toContain(machine.checkout)
          // The machine reports every runtime on its PATH (claude, codex, opencode); the person picks Claude Code.
          const claudeOption = await page.getByLabel("Runtime").locator("option[value=claude]").innerText()
          expect(claudeOption).toMatch(/^claude \d+\.\d+/)
          await page.getByLabel("Runtime").selectOption("claude")
        })
        await page.getByLabel("First message").fill(`Please RUN_TOOL[${ALLOWED}] and tell me what it printed.`)
        await page.getByLabel("Title (optional)").fill(TITLE)
        await page.getByRole("button", { name: "Start thread" }).click()

        const asked = requestFor(page, ALLOWED)
        await step(page, "real-permission", async () => {
          await page.waitForURL(/\/threads\/[^/]+$/)
          await page.getByRole("heading", { name: TITLE, level: 1 }).waitFor()
          // Claude Code itself asks (can_use_tool), and the card shows the tool and its whole command.
          await asked.waitFor({ timeout: 60_000 })
          expect(await asked.locator("pre.command").innerText()).toBe(ALLOWED)
          await asked.getByText("Run the requested command").waitFor()
          expect(checkoutHas("allowed.txt")).toBe(false)
        })
        threadId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1) ?? "")
        await screenshot(page, "real-permission")
        expect(await accessibilityProblems(page)).toEqual([])

        await asked.getByRole("button", { name: "Allow", exact: true }).click()
        await step(page, "real-allowed", async () => {
          await asked.getByText("Allowed", { exact: true }).waitFor()
          await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
          await conversation(page).getByText("Tool finished. Output was: ran-in-the-checkout").waitFor({ timeout: 60_000 })
          await settled(page)
        })
        expect(fs.readFileSync(path.join(machine.checkout, "allowed.txt"), "utf8")).toBe("ran-in-the-checkout\n")
        await screenshot(page, "real-allowed")
        expect(signedIn().errors).toEqual([])
      },
      120_000
    )

    it("a follow-up from the composer asks again; denied with a message, the message reaches the model and nothing runs", async () => {
      const { mock } = started()
      expect(threadId).not.toBe("")
      const { page, errors } = signedIn()
      await page.getByRole("textbox", { name: "Message" }).fill(`Now RUN_TOOL[${DENIED}] as well.`)
      await page.getByRole("button", { name: "Send" }).click()

      const asked = requestFor(page, DENIED)
      await step(page, "real-second-permission", async () => {
        await asked.waitFor({ timeout: 60_000 })
        await asked.getByRole("button", { name: "Deny…" }).click()
        await asked.getByLabel(/Why/).fill(DENIAL)
        await screenshot(page, "real-denying")
        await asked.getByRole("button", { name: "Deny", exact: true }).click()
        await asked.getByText("Denied", { exact: true }).waitFor()
      })
      await step(page, "real-denied", async () => {
        // Answering scrolled the page up to the request; the timeline renders only the rows on screen,
        // so the reader goes back down to the conversation's end to follow the turn (as a person does).
        await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        await conversation(page).getByText(`Tool finished. Output was: ${DENIAL}`).waitFor({ timeout: 60_000 })
        await settled(page)
      })
      // Claude Code sent the person's words back to the model as the tool's result.
      expect(mock.requests.some((request) => request.conversation?.toolResult?.includes(DENIAL) === true)).toBe(true)
      expect(checkoutHas("denied.txt")).toBe(false)
      await screenshot(page, "real-denied")
      expect(await accessibilityProblems(page)).toEqual([])
      expect(errors).toEqual([])
    }, 90_000)

    it("phone 390×844: the thread with both answered requests fits the screen", async () => {
      expect(threadId).not.toBe("")
      const { page } = signedIn()
      await page.setViewportSize(PHONE)
      await page.reload()
      await conversation(page).getByText(`Tool finished. Output was: ${DENIAL}`).waitFor()
      expect(await fitsWidth(page)).toBe(true)
      await screenshot(page, "real-phone")
      expect(signedIn().errors).toEqual([])
    }, 30_000)
  }
)
