/**
 * Stop from the browser on every real runtime (issue 28 §3): Chromium against a real `trellis
 * serve` and a real `trellis agent start --approve all` running the pinned Claude Code, Codex
 * (app-server) and OpenCode against the mock model. Each thread's turn runs `sleep`; the person
 * presses Stop on the thread page and the turn reads Stopped, the command gone. 1440×900, and one
 * runtime again at 390×844. Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium } from "playwright-core"
import {
  type Backend,
  createThread,
  type Machine,
  onlineTarget,
  realMachine,
  startBackend,
  startRealAgent
} from "../e2e/support/RealRuntimes.js"
import { processesWith } from "../e2e/support/StopScenario.js"
import { eventually, killEverything, removeTempDirs, repoRoot } from "../e2e/support/Processes.js"
import type { Agent, CliProfile } from "../e2e/support/Trellis.js"
import { type MockModel, startMockModel } from "../support/mock-model/MockModel.js"
import { accessibilityProblems, CHROMIUM, DESKTOP, fitsWidth, PHONE, recordErrors, screenshot, SHOTS } from "./support/Browser.js"

const RUNS = [
  { runtime: "Claude Code", cliType: "claude", seconds: "43.1", viewport: DESKTOP, size: "desktop" },
  { runtime: "Codex", cliType: "codex", seconds: "43.2", viewport: DESKTOP, size: "desktop" },
  { runtime: "OpenCode", cliType: "opencode", seconds: "43.3", viewport: DESKTOP, size: "desktop" },
  { runtime: "Codex", cliType: "codex", seconds: "43.4", viewport: PHONE, size: "phone" }
] as const

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("Stop in the browser on every real runtime", () => {
  let mock: MockModel | undefined
  let backend: Backend | undefined
  let machine: Machine | undefined
  let agent: Agent | undefined
  let target: { readonly profile: CliProfile; readonly pathId: string } | undefined
  let browser: Browser | undefined
  let signedIn: BrowserContext | undefined

  const started = () => {
    if (
      mock === undefined || backend === undefined || machine === undefined || agent === undefined || browser === undefined ||
      target === undefined
    ) {
      throw new Error("the backend, the machine or the browser did not start")
    }
    return { backend, agent, browser, target }
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, "dist", "web", "index.html"))) {
      throw new Error("dist/web/ is not built: run `npm run build` first")
    }
    fs.mkdirSync(SHOTS, { recursive: true })
    mock = await startMockModel()
    backend = await startBackend()
    machine = await realMachine(backend, mock, "web-stop")
    agent = await startRealAgent(machine, ["--approve", "all", "--max-concurrent", "1"])
    target = await onlineTarget(backend, machine, agent)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
  }, 180_000)

  afterAll(async () => {
    await signedIn?.close()
    await browser?.close()
    await backend?.mcp.close()
    await killEverything()
    await mock?.close()
    await removeTempDirs()
  }, 30_000)

  const context = async () => {
    if (signedIn !== undefined) return signedIn
    const { backend, browser } = started()
    const link = /Sign in: +(\S+) \(one use, 10 minutes\)\n/.exec(backend.serve.proc.stdout)?.[1]
    if (link === undefined) throw new Error("trellis serve printed no sign-in link")
    const fresh = await browser.newContext({ viewport: DESKTOP, bypassCSP: true })
    const page = await fresh.newPage()
    await page.goto(link)
    await page.waitForURL(/\/threads$/)
    await page.close()
    signedIn = fresh
    return fresh
  }

  for (const { runtime, cliType, seconds, viewport, size } of RUNS) {
    it(`${runtime} (${size}): Stop on the thread page interrupts the running sleep; the turn reads Stopped`, async () => {
      const { agent, backend, target } = started()
      const command = `sleep ${seconds}`
      const threadId = await createThread(backend, target, cliType, `RUN_TOOL[${command}]`, { title: `Stop ${runtime} on the ${size}` })
      const page = await (await context()).newPage()
      await page.setViewportSize(viewport)
      const errors = recordErrors(page)
      const shot = `real-stop-${cliType}-${size}`
      try {
        await page.goto(`${backend.serve.baseUrl}/projects/${backend.serve.credentials.projectId}/threads/${threadId}`)
        await eventually(
          `${command} to run`,
          async () => processesWith(command),
          (found) => found.length > 0,
          90_000,
          () => agent.proc.describe()
        )
        const composer = page.getByRole("form", { name: "Send a message" })
        const stop = composer.getByRole("button", { name: "Stop" })
        await stop.waitFor({ timeout: 30_000 })
        await screenshot(page, `${shot}-running`)
        const asked = Date.now()
        await stop.click()
        const conversation = page.getByRole("list", { name: "Conversation" })
        await conversation.getByText("Stopped by you: the agent takes your next message.").waitFor({ timeout: 20_000 })
        const shown = Date.now() - asked
        await composer.getByText("Stopped. The agent takes your next message.").waitFor({ timeout: 15_000 })
        console.log(
          `${runtime} (${size}): Stop clicked → the turn reads Stopped in ${shown} ms, the composer says so in ${Date.now() - asked} ms`
        )
        // The call the stop cut short reads Stopped too, never Running.
        expect(await conversation.getByText("Running", { exact: true }).count()).toBe(0)
        await eventually(`${command} to be gone`, async () => processesWith(command), (found) => found.length === 0, 10_000)
        await screenshot(page, `${shot}-stopped`)
        expect(await accessibilityProblems(page)).toEqual([])
        expect(await fitsWidth(page)).toBe(true)
        expect(errors).toEqual([])
      } catch (error) {
        await screenshot(page, `${shot}-failed`).catch(() => undefined)
        throw error
      } finally {
        await page.close()
      }
    }, 150_000)
  }
})
