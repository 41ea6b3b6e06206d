/**
 * The web app in a real browser: Debian's Chromium driven by playwright-core, against a real
 * `trellis serve` (the built dist/, an embedded database) and a real `trellis agent` running the
 * replay runtime, so the thread's conversation comes through the event stream as in production.
 * Screenshots land in test-results/web/. Playwright never downloads a browser here: it runs
 * /usr/bin/chromium (`apt-get install chromium`; .ci/run does).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { eventually, killEverything, removeTempDirs, repoRoot, tempDir } from "../e2e/support/Processes.js"
import {
  agentEnv,
  gitRepo,
  Mcp,
  messagesOf,
  Profiles,
  replayBin,
  type Serve,
  startAgent,
  startServe,
  Thread,
  trellisOk
} from "../e2e/support/Trellis.js"
import { accessibilityProblems, CHROMIUM, fitsWidth, openPage, PHONE, screenshot, SHOTS } from "./support/Browser.js"

const FIXTURE = path.join(repoRoot, "test", "fixtures", "recorded", "claude", "claude-raw-resume.jsonl")
const TITLE = "Say hi through the shell"
const PROMPT = "Run echo hi and tell me what it printed"
/** What the replayed run answers last, after its `Bash` tool call. */
const ANSWER = "Tool finished. Output was: hi"

const DESKTOP = { width: 1280, height: 800 }

// Like test/e2e/ (vitest.config.ts), it runs on its own embedded database: the PostgreSQL pass would only repeat it.
describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("the web app in Chromium against trellis serve", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let signInLink = ""
  let threadId = ""

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined) throw new Error("the backend or the browser did not start")
    return { serve, mcp, browser }
  }

  beforeAll(async () => {
    if (!fs.existsSync(path.join(repoRoot, "dist", "web", "index.html"))) {
      throw new Error("dist/web/ is not built: run `npm run build` before this test")
    }
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
    fs.mkdirSync(SHOTS, { recursive: true })

    serve = await startServe(tempDir("trellis-web-home-"))
    const printed = /Sign in: +(\S+) \(one use, 10 minutes\)\n/.exec(serve.proc.stdout)?.[1]
    if (printed === undefined) throw new Error(`trellis serve printed no sign-in link\n${serve.proc.describe()}`)
    signInLink = printed
    expect(serve.proc.stdout).toContain(`  Web app:      ${serve.baseUrl}/\n`)

    // A machine whose `claude` replays a recorded run with a tool call.
    const configDir = tempDir("trellis-web-config-")
    const checkout = await gitRepo(path.join(tempDir("trellis-web-machine-"), "checkout"))
    const env = agentEnv(configDir, replayBin(), { REPLAY_FIXTURE: FIXTURE })
    await trellisOk(
      [
        "agent",
        "login",
        "--server",
        serve.baseUrl,
        "--project",
        serve.credentials.projectRef,
        "--name",
        "e2e",
        "--machine-name",
        "web-e2e"
      ],
      repoRoot,
      { ...env, TRELLIS_API_KEY: serve.credentials.apiKey }
    )
    await trellisOk(["agent", "paths", "add"], checkout, env)
    const agent = await startAgent(checkout, env)

    mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
    const client = mcp
    const projectId = serve.credentials.projectId
    const [profile] = await eventually(
      "the machine to be online",
      async () => (await client.call(Profiles, "list_cli_profiles", { projectId })).profiles.filter((p) => p.isOnline),
      (online) => online.length === 1,
      30_000,
      () => agent.proc.describe()
    )
    const pathId = profile?.paths.find((p) => p.kind === "checkout" && p.path === checkout)?.pathId
    if (profile === undefined || pathId === undefined) throw new Error("the machine's checkout is not registered")
    threadId =
      (await mcp.call(Thread, "create_thread", { title: TITLE, content: PROMPT, profileId: profile.profileId, pathId, cliType: "claude" }))
        .threadId
    const finished = (id: string) =>
      eventually(
        `the run of ${id} to finish`,
        () => messagesOf(client, id),
        (messages) => messages.at(-1)?.role === "assistant" && messages.at(-1)?.status === "completed",
        60_000,
        () => agent.proc.describe()
      )
    await finished(threadId)
    // A thread spawned beside it: the two are one group, listed as one row.
    const sibling =
      (await mcp.call(Thread, "create_thread", { title: "A second opinion", content: PROMPT, sourceThreadId: threadId })).threadId
    await finished(sibling)

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await mcp?.close()
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  const threadsPage = new RegExp(`/projects/[^/]+/threads$`)

  /** The Threads page lists the group and, in it, the thread with its status, runtime and machine; then the thread page shows the conversation. */
  const browseThread = (page: Page, prefix: string) =>
    browse(page, prefix).catch(async (error: unknown) => {
      // What the page showed when it failed is the first thing to look at.
      await screenshot(page, `${prefix}-failed`).catch(() => undefined)
      throw error
    })

  const browse = async (page: Page, prefix: string) => {
    await page.getByRole("heading", { name: "Threads", level: 1 }).waitFor()
    expect(await page.getByLabel("Project").inputValue()).toBe(backend().serve.credentials.projectId)
    // The group row: its size and status; it opens to its members.
    const group = page.getByRole("list", { name: "Threads", exact: true }).getByRole("listitem").first()
    const disclosure = group.getByRole("button", { expanded: false })
    await disclosure.waitFor()
    expect(await group.innerText()).toMatch(/Finished[\s\S]*Group · 2 threads/)
    await disclosure.focus()
    await page.keyboard.press("Enter")
    const list = page.getByRole("list", { name: "Threads of the group" })
    const row = list.getByRole("listitem").filter({ has: page.getByRole("link", { name: TITLE }) })
    await row.waitFor()
    const rowText = await row.innerText()
    expect(rowText).toContain("Finished")
    expect(rowText).toContain("claude")
    expect(rowText).toContain("e2e")

    // The include-done toggle is a labelled checkbox; the thread is not done, so it stays listed either way.
    await page.getByLabel("Include done").check()
    await row.waitFor()
    await screenshot(page, `${prefix}-threads`)
    expect(await accessibilityProblems(page)).toEqual([])

    await row.getByRole("link", { name: TITLE }).click()
    await page.waitForURL(new RegExp(`/threads/${threadId}$`))
    await page.getByRole("heading", { name: TITLE, level: 1 }).waitFor()
    const conversation = page.getByRole("list", { name: "Conversation" })
    await conversation.getByText(PROMPT).waitFor()
    await conversation.getByText(ANSWER).waitFor()
    // The agent's text is Markdown: its `echo hi` is code.
    await conversation.locator("p", { hasText: "I will run" }).locator("code", { hasText: "echo hi" }).waitFor()

    // The tool call is collapsed to its name and state, and opens from the keyboard.
    const tool = conversation.locator("details.tool").first()
    expect(await tool.locator("summary").innerText()).toMatch(/Bash\s*Done/)
    expect(await tool.getAttribute("open")).toBeNull()
    await tool.locator("summary").focus()
    await page.keyboard.press("Enter")
    await tool.getByText("echo hi").first().waitFor()
    await screenshot(page, `${prefix}-thread`)
    expect(await accessibilityProblems(page)).toEqual([])
  }

  it("desktop: the printed one-time link signs in, lists the thread created over MCP and opens its conversation", async () => {
    const { page, context, errors } = await openPage(backend().browser, DESKTOP)
    await page.goto(signInLink)
    await page.waitForURL(threadsPage)
    await browseThread(page, "desktop")

    // Signing out ends the session: a reload asks for a key again.
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("API key").waitFor()
    await page.reload()
    await page.getByLabel("API key").waitFor()
    // The reload's list_projects was refused (401) once the cookie was gone, which the console reports.
    expect(errors.filter((error) => !error.includes("401"))).toEqual([])

    // The link was for one use: a second browser lands on the sign-in page saying so, without a session.
    const again = await backend().browser.newPage()
    await again.goto(signInLink)
    await again.waitForURL(/\/sign-in\?reason=used$/)
    await again.getByRole("heading", { name: "This sign-in link was already used" }).waitFor()
    await again.close()
    await context.close()
  }, 120_000)

  it("phone 390×844: a wrong key is refused on the field, the right key signs in, and the pages fit the screen", async () => {
    const { page, context, errors } = await openPage(backend().browser, PHONE)
    await page.goto(`${backend().serve.baseUrl}/`)
    const field = page.getByLabel("API key")
    await field.fill("trellis_not_a_real_key")
    await field.press("Enter")
    await page.getByRole("alert").getByText(/not valid/).waitFor()
    expect(await field.getAttribute("aria-invalid")).toBe("true")
    await screenshot(page, "phone-signin")
    expect(await accessibilityProblems(page)).toEqual([])

    await field.fill(backend().serve.credentials.apiKey)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(threadsPage)
    expect(await fitsWidth(page)).toBe(true)
    await browseThread(page, "phone")
    expect(await fitsWidth(page)).toBe(true)
    // The refused key logged the 401 of its POST; nothing else may have failed.
    expect(errors.filter((error) => !error.includes("401"))).toEqual([])
    await context.close()
  }, 120_000)
})
