/**
 * The agents page in Chromium against a real `trellis serve` (issue 31 §4): the project's agents
 * listed, one created with its palette color and automation and one edited (each read back over
 * MCP), a refusal shown on the field it names, and the page at 1440×900 and 390×844, axe-clean.
 * Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { type Browser, type Page } from "playwright-core"
import { eventually } from "../e2e/support/Processes.js"
import type { Mcp, Serve } from "../e2e/support/Trellis.js"
import {
  accessibilityProblems,
  DESKTOP,
  fitsWidth,
  launchChromium,
  openPage,
  PHONE,
  screenshot,
  signInLink,
  startBackend,
  stopBackend
} from "./support/Browser.js"

const Agents = Schema.Struct({
  agents: Schema.Array(Schema.Struct({
    projectAgentId: Schema.String,
    name: Schema.String,
    description: Schema.NullOr(Schema.String),
    prompt: Schema.NullOr(Schema.String),
    category: Schema.NullOr(Schema.String),
    appearance: Schema.Struct({ color: Schema.String }),
    automation: Schema.NullOr(Schema.Struct({
      enabled: Schema.Boolean,
      cliType: Schema.optional(Schema.String),
      workspace: Schema.optional(Schema.String),
      prompt: Schema.optional(Schema.String)
    }))
  }))
})

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("the agents page in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page }
  }
  const agents = async () =>
    (await backend().mcp.call(Agents, "list_project_agents", { projectId: backend().serve.credentials.projectId })).agents
  const agentNamed = async (name: string) => (await agents()).find((agent) => agent.name === name)

  beforeAll(async () => {
    const started = await startBackend("trellis-agents-page-")
    serve = started.serve
    mcp = started.mcp
    const { projectId } = serve.credentials
    await mcp.call(Schema.Struct({}), "create_project_agent", {
      projectId,
      name: "Reviewer",
      description: "Reads every change",
      appearance: { color: "purple" }
    })
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    page.setDefaultTimeout(15_000)
    errors = opened.errors
    await page.goto(await signInLink(serve, `/projects/${encodeURIComponent(projectId)}/agents`))
    await page.getByRole("heading", { level: 1, name: "Agents" }).waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("lists the project's agents, reached from the navigation", async () => {
    const { page } = backend()
    await page.getByRole("heading", { level: 3, name: "Reviewer" }).waitFor()
    expect(await page.getByText("Reads every change").isVisible()).toBe(true)
    expect(await page.getByRole("link", { name: "Agents" }).getAttribute("aria-current")).toBe("page")
  })

  it("creates an agent with its color, working prompt and automation, read back over MCP", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "New agent" }).click()
    const form = page.getByRole("form", { name: "New agent" })
    await form.getByLabel("Name").fill("Builder")
    await form.getByLabel("Category").fill("dev")
    await form.getByLabel("Color").selectOption("teal")
    await form.getByLabel("Working prompt").fill("Build what the task asks")
    await form.getByLabel("Offer a thread on delegation").check()
    await form.getByLabel("First message").fill("Start on the task")
    await form.getByLabel("Runtime").selectOption("claude")
    await form.getByLabel("Workspace").selectOption("worktree")
    await form.getByRole("button", { name: "Create agent" }).click()
    await page.getByRole("heading", { level: 3, name: "Builder" }).waitFor()
    const saved = await eventually("the new agent", () => agentNamed("Builder"), (agent) => agent !== undefined)
    expect(saved).toMatchObject({
      category: "dev",
      prompt: "Build what the task asks",
      appearance: { color: "teal" },
      automation: { enabled: true, cliType: "claude", workspace: "worktree", prompt: "Start on the task" }
    })
    expect(await page.getByText("Offers a thread on delegation: claude · worktree").isVisible()).toBe(true)
  })

  it("edits an agent: the change is saved and shown", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Edit Reviewer" }).click()
    const form = page.getByRole("form", { name: "Edit Reviewer" })
    await form.getByLabel("Description").fill("Reads every change twice")
    await form.getByLabel("Color").selectOption("pink")
    await form.getByRole("button", { name: "Save agent" }).click()
    await page.getByText("Reads every change twice").waitFor()
    const saved = await eventually("the edit", () => agentNamed("Reviewer"), (agent) => agent?.description === "Reads every change twice")
    expect(saved?.appearance.color).toBe("pink")
  })

  it("an agent created, renamed or archived over MCP shows on the open page without a reload", async () => {
    const { mcp, page, serve } = backend()
    const { projectAgentId } = await mcp.call(Schema.Struct({ projectAgentId: Schema.String }), "create_project_agent", {
      projectId: serve.credentials.projectId,
      name: "Scout",
      appearance: { color: "orange" }
    })
    await page.getByRole("heading", { level: 3, name: "Scout" }).waitFor({ timeout: 5_000 })
    await mcp.call(Schema.Unknown, "update_project_agent", { projectAgentId, name: "Pathfinder" })
    await page.getByRole("heading", { level: 3, name: "Pathfinder" }).waitFor({ timeout: 5_000 })
    expect(await page.getByRole("heading", { level: 3, name: "Scout" }).count()).toBe(0)
  })

  it("a refusal is shown on the field it names, and nothing is saved", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Edit Builder" }).click()
    const form = page.getByRole("form", { name: "Edit Builder" })
    const name = form.getByLabel("Name")
    await name.fill("")
    await form.getByRole("button", { name: "Save agent" }).click()
    await expect.poll(() => name.getAttribute("aria-invalid")).toBe("true")
    // The keyboard lands on what to fix.
    const nameId = await name.getAttribute("id")
    await expect.poll(() => page.evaluate("document.activeElement?.id")).toBe(nameId)
    const described = await name.getAttribute("aria-describedby")
    expect(await page.locator(`[id="${described}"]`).textContent()).toBe("must not be empty or blank")
    await page.evaluate("window.scrollTo(0, 0)")
    await screenshot(page, "agents-refusal")
    expect((await agentNamed("Builder"))?.name).toBe("Builder")
    await form.getByRole("button", { name: "Cancel" }).click()
  })

  it("at 1440×900 the page is axe-clean, with no script errors", async () => {
    const { page } = backend()
    await screenshot(page, "agents-desktop")
    expect(await accessibilityProblems(page)).toEqual([])
    expect(errors).toEqual([])
  })

  it("at 390×844 it fits the screen, the new-agent form included, and is axe-clean", async () => {
    const { browser, page, serve } = backend()
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await phone.page.goto(`${serve.baseUrl}/projects/${encodeURIComponent(serve.credentials.projectId)}/agents`)
    await phone.page.getByRole("heading", { level: 3, name: "Builder" }).waitFor({ timeout: 30_000 })
    await phone.page.getByRole("button", { name: "New agent" }).click()
    await phone.page.getByRole("form", { name: "New agent" }).waitFor()
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "agents-phone")
    expect(await accessibilityProblems(phone.page)).toEqual([])
    expect(phone.errors).toEqual([])
    await phone.context.close()
  })
})
