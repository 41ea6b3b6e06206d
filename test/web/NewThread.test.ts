/**
 * The Machines and New thread pages in a real browser (Debian's Chromium, playwright-core) against
 * a real `trellis serve` and a real `trellis agent` whose `claude` replays a recorded run: a thread
 * started from the form runs on the machine, a refusal of create_thread lands on the field it
 * names, and a thread spawned from the form joins its source's group. Screenshots land in
 * test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { eventually, killEverything, removeTempDirs, repoRoot, tempDir } from "../e2e/support/Processes.js"
import {
  type Agent,
  agentEnv,
  gitRepo,
  Mcp,
  messagesOf,
  Profiles,
  replayBin,
  type Serve,
  startAgent,
  startServe,
  trellisOk
} from "../e2e/support/Trellis.js"
import { accessibilityProblems, CHROMIUM, fitsWidth, openPage, PHONE, screenshot, SHOTS } from "./support/Browser.js"

const FIXTURE = path.join(repoRoot, "test", "fixtures", "recorded", "claude", "claude-raw-resume.jsonl")
const PROMPT = "Run echo hi and tell me what it printed"
/** What the replayed run answers last, after its `Bash` tool call. */
const ANSWER = "Tool finished. Output was: hi"
/** The profile's name is the machine's (`--machine-name`). */
const MACHINE = "web-newthread"

const DESKTOP = { width: 1280, height: 800 }

const ThreadRow = Schema.Struct({
  threadId: Schema.String,
  title: Schema.String,
  kind: Schema.String,
  parentThreadId: Schema.optional(Schema.NullOr(Schema.String)),
  target: Schema.optional(Schema.Struct({ profileName: Schema.String, path: Schema.NullOr(Schema.String), cliType: Schema.String })),
  cliMode: Schema.optional(Schema.NullOr(Schema.String))
})
const ThreadList = Schema.Struct({ threads: Schema.Array(ThreadRow) })

// Like test/e2e/ (vitest.config.ts), it runs on its own embedded database: the PostgreSQL pass would only repeat it.
describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("the New thread and Machines pages in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let desktop: { readonly context: BrowserContext; readonly page: Page; readonly errors: Array<string> } | undefined
  let agent: Agent | undefined
  let checkout = ""
  /** The thread the browser created: the next test spawns beside it. */
  let createdId = ""

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined) throw new Error("the backend or the browser did not start")
    return { serve, mcp, browser, projectId: serve.credentials.projectId }
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
    serve = await startServe(tempDir("trellis-newthread-home-"))
    mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
  }, 120_000)

  afterAll(async () => {
    await desktop?.context.close()
    await browser?.close()
    await mcp?.close()
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  const pageUrl = (suffix: string) => `${backend().serve.baseUrl}/projects/${backend().projectId}/${suffix}`

  /** Keeps the screenshot of what the page showed when a step failed. */
  const step = async <A>(page: Page, name: string, run: () => Promise<A>): Promise<A> => {
    try {
      return await run()
    } catch (error) {
      await screenshot(page, `${name}-failed`).catch(() => undefined)
      throw error
    }
  }

  const threads = async () =>
    (await backend().mcp.call(ThreadList, "list_threads", { projectId: backend().projectId, includeDone: true, limit: 50 })).threads

  it("with no machine yet, the Machines page says how to connect one", async () => {
    desktop = await openPage(backend().browser, DESKTOP)
    const { page } = desktop
    const link = /Sign in: +(\S+) \(one use, 10 minutes\)\n/.exec(backend().serve.proc.stdout)?.[1]
    if (link === undefined) throw new Error("trellis serve printed no sign-in link")
    await page.goto(link)
    await page.getByRole("heading", { name: "Threads", level: 1 }).waitFor()
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Machines" }).click()
    await step(page, "machines-empty", async () => {
      await page.getByRole("heading", { name: "Machines", level: 1 }).waitFor()
      await page.getByText(`trellis agent login --server ${backend().serve.baseUrl} --project ${backend().projectId}`).waitFor()
    })
    await screenshot(page, "machines-empty")
    expect(await accessibilityProblems(page)).toEqual([])

    // The form has nowhere to send a thread yet, and says where to go.
    await page.goto(pageUrl("new-thread"))
    await page.getByRole("link", { name: "Connect a machine" }).waitFor()
  }, 60_000)

  it("the Machines page lists the machine online with its runtime, models and checkout", async () => {
    const { serve } = backend()
    const configDir = tempDir("trellis-newthread-config-")
    checkout = await gitRepo(path.join(tempDir("trellis-newthread-machine-"), "checkout"))
    const env = agentEnv(configDir, replayBin(), { REPLAY_FIXTURE: FIXTURE })
    await trellisOk(
      ["agent", "login", "--server", serve.baseUrl, "--project", serve.credentials.projectRef, "--name", "e2e", "--machine-name", MACHINE],
      repoRoot,
      { ...env, TRELLIS_API_KEY: serve.credentials.apiKey }
    )
    await trellisOk(["agent", "paths", "add", "--label", "website"], checkout, env)
    agent = await startAgent(checkout, env)
    const client = backend().mcp
    await eventually(
      "the machine to be online",
      async () => (await client.call(Profiles, "list_cli_profiles", { projectId: backend().projectId })).profiles.filter((p) => p.isOnline),
      (online) => online.length === 1,
      30_000
    )

    const { page } = signedIn()
    await page.goto(pageUrl("machines"))
    const machine = page.getByRole("article", { name: MACHINE })
    await step(page, "machines", async () => {
      await machine.waitFor()
      await machine.getByText("Online", { exact: true }).waitFor()
      // The replayed `claude` reports its version; Claude Code cannot list models, so the CLI offers its aliases.
      const runtimes = machine.getByRole("list", { name: `Runtimes of ${MACHINE}` })
      expect(await runtimes.innerText()).toMatch(/claude/)
      expect(await runtimes.getByRole("list", { name: "Models of claude" }).innerText()).toMatch(/sonnet[\s\S]*opus[\s\S]*haiku/)
      const paths = machine.getByRole("list", { name: `Paths of ${MACHINE}` })
      expect(await paths.innerText()).toContain(checkout)
      expect(await paths.innerText()).toContain("website")
    })
    await screenshot(page, "machines-desktop")
    expect(await accessibilityProblems(page)).toEqual([])
  }, 90_000)

  it("a thread created from the form runs on the chosen machine: the replayed answer appears in its conversation", async () => {
    const { page } = signedIn()
    await page.goto(pageUrl("machines"))
    await page.getByRole("link", { name: "New thread" }).first().click()
    await page.getByRole("heading", { name: "New thread", level: 1 }).waitFor()
    // The machine, its checkout and its runtime are chosen from what it reports.
    const machine = page.getByLabel("Machine", { exact: true })
    expect(await machine.locator("option:checked").innerText()).toBe(`${MACHINE} (online)`)
    expect(await page.getByLabel("Checkout").locator("option:checked").innerText()).toBe(`website: ${checkout}`)
    // Only what the machine reports (the replayed claude, and whichever other runtimes this machine has installed).
    const runtimes = await page.getByLabel("Runtime").locator("option").allInnerTexts()
    expect(runtimes).toContainEqual(expect.stringMatching(/^claude \d/))
    expect(runtimes.every((runtime) => /^(claude|codex|opencode) /.test(runtime))).toBe(true)
    await page.getByLabel("Runtime").selectOption("claude")
    expect(await page.getByLabel("Model", { exact: true }).locator("option").allInnerTexts()).toEqual([
      "The runtime's default",
      "sonnet",
      "opus",
      "haiku"
    ])

    await page.getByLabel("First message").fill(PROMPT)
    await page.getByLabel("Title (optional)").fill("Started from the browser")
    await page.getByLabel("Model", { exact: true }).selectOption("haiku")
    await page.getByLabel("Mode", { exact: true }).selectOption("plan")
    await screenshot(page, "new-thread-desktop")
    expect(await accessibilityProblems(page)).toEqual([])
    await page.getByRole("button", { name: "Start thread" }).click()

    await step(page, "new-thread-created", async () => {
      await page.waitForURL(/\/threads\/[^/]+$/)
      await page.getByRole("heading", { name: "Started from the browser", level: 1 }).waitFor()
      await page.getByText(ANSWER).first().waitFor({ timeout: 60_000 })
    })
    createdId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1) ?? "")
    const created = (await threads()).find((thread) => thread.threadId === createdId)
    expect(created?.target).toEqual({ profileName: MACHINE, path: checkout, cliType: "claude" })
    expect(created?.cliMode).toBe("plan")
    await screenshot(page, "new-thread-ran")
  }, 120_000)

  it("the form starts from the choices of the person's last thread in the project", async () => {
    const { page } = signedIn()
    await page.goto(pageUrl("new-thread"))
    await page.getByLabel("First message").waitFor()
    expect(await page.getByLabel("Model", { exact: true }).inputValue()).toBe("haiku")
    expect(await page.getByLabel("Mode", { exact: true }).inputValue()).toBe("plan")
    // What it said is not kept.
    expect(await page.getByLabel("First message").inputValue()).toBe("")
    expect(await page.getByLabel("Title (optional)").inputValue()).toBe("")
  }, 30_000)

  it("a worktree branch that is not a git refname is refused on the Branch field, and nothing is created", async () => {
    const { page } = signedIn()
    const before = (await threads()).length
    await page.goto(pageUrl("new-thread"))
    await page.getByLabel("First message").fill(PROMPT)
    await page.getByLabel("Run in a new git worktree").check()
    // The checkout is the worktree's parent: shown, not chosen.
    await page.getByText(`Parent repository: ${checkout}`).waitFor()
    const branch = page.getByLabel("Branch")
    await branch.fill("feature..login")
    await page.getByRole("button", { name: "Start thread" }).click()

    await step(page, "new-thread-refused", async () => {
      await page.getByText("must not contain \"..\" (a git refname)").waitFor()
      expect(await branch.getAttribute("aria-invalid")).toBe("true")
      // The field names its error, and the focus moved to it.
      expect(await page.evaluate("document.activeElement?.id")).toBe(await branch.getAttribute("id"))
      const describedBy = (await branch.getAttribute("aria-describedby")) ?? ""
      expect(await page.locator(`[id="${describedBy.split(" ")[0]}"]`).innerText()).toBe("must not contain \"..\" (a git refname)")
    })
    expect(page.url()).toBe(pageUrl("new-thread"))
    expect(await page.getByLabel("First message").inputValue()).toBe(PROMPT)
    await screenshot(page, "new-thread-refused")
    expect(await accessibilityProblems(page)).toEqual([])
    expect((await threads()).length).toBe(before)

    // Editing the field clears its error: it was about the old value.
    await branch.fill("feature/login")
    expect(await branch.getAttribute("aria-invalid")).toBe("false")
  }, 60_000)

  it("a task that does not exist is refused on the Task field", async () => {
    const { page } = signedIn()
    await page.goto(pageUrl("new-thread"))
    await page.getByLabel("First message").fill(PROMPT)
    const task = page.getByLabel("Task")
    await task.fill(`${backend().serve.credentials.projectRef}-999`)
    await page.getByRole("button", { name: "Start thread" }).click()
    await step(page, "new-thread-task-refused", async () => {
      await page.getByText(`task ${backend().serve.credentials.projectRef}-999 not found`).waitFor()
      expect(await task.getAttribute("aria-invalid")).toBe("true")
    })
  }, 60_000)

  it("a blank first message is refused on its field by the server's rule", async () => {
    const { page } = signedIn()
    await page.goto(pageUrl("new-thread"))
    await page.getByLabel("First message").fill("   ")
    await page.getByRole("button", { name: "Start thread" }).click()
    const content = page.getByLabel("First message")
    await step(page, "new-thread-blank", async () => {
      await page.getByText("must not be empty or blank").waitFor()
      expect(await content.getAttribute("aria-invalid")).toBe("true")
    })
  }, 60_000)

  it("a thread spawned beside another from ?spawnFrom= joins that thread's group", async () => {
    const { page } = signedIn()
    expect(createdId).not.toBe("")
    await page.goto(`${pageUrl("new-thread")}?spawnFrom=${encodeURIComponent(createdId)}`)
    const source = page.getByLabel("Spawn beside")
    await step(page, "new-thread-spawn", async () => {
      await page.getByText("The new thread and this one become a group.").waitFor()
      expect(await source.locator("option:checked").innerText()).toBe("Started from the browser")
      // Started where the source runs, which the server would inherit.
      expect(await page.getByLabel("Checkout").locator("option:checked").innerText()).toBe(`website: ${checkout}`)
    })
    await page.getByLabel("First message").fill("A second opinion, please")
    await page.getByLabel("Title (optional)").fill("Second opinion")
    await screenshot(page, "new-thread-spawn")
    await page.getByRole("button", { name: "Start thread" }).click()
    await page.getByRole("heading", { name: "Second opinion", level: 1 }).waitFor()
    const spawnedId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1) ?? "")

    const all = await threads()
    const group = all.find((thread) => thread.kind === "group")
    expect(group).toBeDefined()
    const members = (await backend().mcp.call(ThreadList, "list_threads", { threadId: group?.threadId ?? "" })).threads
    expect(members.map((member) => member.threadId).sort()).toEqual([createdId, spawnedId].sort())
    expect(new Set(members.map((member) => member.parentThreadId))).toEqual(new Set([group?.threadId]))
    // The spawned thread runs too, and settles before the next test reads the machine.
    await eventually(
      "the spawned run to finish",
      () => messagesOf(backend().mcp, spawnedId),
      (messages) => messages.at(-1)?.role === "assistant" && messages.at(-1)?.status === "completed",
      60_000,
      () => agent?.proc.describe() ?? ""
    )
  }, 120_000)

  it("phone 390×844: the form, its worktree fields and the Machines page fit the screen and pass axe", async () => {
    const { page, context, errors } = await openPage(backend().browser, PHONE)
    await page.goto(`${backend().serve.baseUrl}/`)
    await page.getByLabel("API key").fill(backend().serve.credentials.apiKey)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Threads", level: 1 }).waitFor()

    await page.goto(pageUrl("new-thread"))
    await page.getByLabel("First message").fill(PROMPT)
    await page.getByLabel("Run in a new git worktree").check()
    await page.getByLabel("Branch").fill("bad name")
    await page.getByRole("button", { name: "Start thread" }).click()
    await page.getByText("must not contain spaces, control characters or any of ~ ^ : ? * [ \\").waitFor()
    expect(await fitsWidth(page)).toBe(true)
    await screenshot(page, "phone-new-thread")
    expect(await accessibilityProblems(page)).toEqual([])

    await page.goto(pageUrl("machines"))
    await page.getByRole("article", { name: MACHINE }).waitFor()
    expect(await fitsWidth(page)).toBe(true)
    await screenshot(page, "phone-machines")
    expect(await accessibilityProblems(page)).toEqual([])
    // Opening "/" before signing in logged the 401 of its list_projects; nothing else may have failed.
    expect(errors.filter((error) => !error.includes("401"))).toEqual([])
    await context.close()
  }, 60_000)
})
