/**
 * The prompts page in Chromium against a real `trellis serve` (issue 31 §4): the project's and the
 * organization's prompts listed, one created and one edited (read back over MCP), a refusal shown
 * on the field it names, deleting a prompt (web only in SPEC: the page's own route), and the page
 * at 1440×900 and 390×844, axe-clean. Screenshots land in test-results/web/.
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

const Prompts = Schema.Struct({
  prompts: Schema.Array(Schema.Struct({
    promptId: Schema.String,
    key: Schema.String,
    content: Schema.String,
    description: Schema.NullOr(Schema.String),
    autoExpand: Schema.Boolean,
    autoSubmit: Schema.Boolean
  }))
})
const Projects = Schema.Struct({
  projects: Schema.Array(Schema.Struct({ projectId: Schema.String, organization: Schema.Struct({ organizationId: Schema.String }) }))
})

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("the prompts page in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []
  let organization = ""

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page }
  }
  const projectPrompts = async () =>
    (await backend().mcp.call(Prompts, "list_prompts", { projectId: backend().serve.credentials.projectId })).prompts
  const organizationKeys = async () =>
    (await backend().mcp.call(Prompts, "list_prompts", { scope: "organization", organization })).prompts.map((p) => p.key)
  const projectPath = () => `/projects/${encodeURIComponent(backend().serve.credentials.projectId)}/prompts`

  beforeAll(async () => {
    const started = await startBackend("trellis-prompts-page-")
    serve = started.serve
    mcp = started.mcp
    const { projectId } = serve.credentials
    const projects = await mcp.call(Projects, "list_projects", {})
    organization = projects.projects.find((project) => project.projectId === projectId)?.organization.organizationId ?? ""
    await mcp.call(Schema.Struct({}), "create_prompt", { projectId, key: "review", content: "Review this change" })
    await mcp.call(Schema.Struct({}), "create_prompt", { scope: "organization", organization, key: "standup", content: "What moved?" })
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    page.setDefaultTimeout(15_000)
    errors = opened.errors
    await page.goto(await signInLink(serve, projectPath()))
    await page.getByRole("heading", { level: 1, name: "Prompts" }).waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("lists the project's prompts and the organization's, each in its section", async () => {
    const { page } = backend()
    const project = page.getByRole("region", { name: "This project" })
    const org = page.getByRole("region", { name: /^Organization / })
    await project.getByRole("heading", { level: 3, name: "/review" }).waitFor()
    await org.getByRole("heading", { level: 3, name: "/standup" }).waitFor()
    expect(await project.getByText("Review this change").isVisible()).toBe(true)
  })

  it("creates a project prompt, read back over MCP", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "New project prompt" }).click()
    const form = page.getByRole("form", { name: "New project prompt" })
    await form.getByLabel("Command").fill("git:commit")
    await form.getByLabel("Description").fill("Commit helper")
    await form.getByLabel("Content").fill("Write a commit message")
    await form.getByLabel("Expand in place when picked").check()
    await form.getByRole("button", { name: "Create prompt" }).click()
    await page.getByRole("heading", { level: 3, name: "/git:commit" }).waitFor()
    const saved = await eventually("the new prompt", projectPrompts, (prompts) => prompts.some((p) => p.key === "git:commit"))
    expect(saved.find((p) => p.key === "git:commit")).toMatchObject({
      content: "Write a commit message",
      description: "Commit helper",
      autoExpand: true,
      autoSubmit: false
    })
  })

  it("edits a prompt: the change is saved and shown", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Edit /review" }).click()
    const form = page.getByRole("form", { name: "Edit /review" })
    await form.getByLabel("Content").fill("Review this change carefully")
    await form.getByLabel("Send right away when picked").check()
    await form.getByRole("button", { name: "Save prompt" }).click()
    await page.getByText("Review this change carefully").waitFor()
    const saved = await eventually(
      "the edit",
      projectPrompts,
      (prompts) => prompts.some((p) => p.key === "review" && p.content === "Review this change carefully")
    )
    expect(saved.find((p) => p.key === "review")?.autoSubmit).toBe(true)
  })

  it("a refusal is shown on the field it names: a command the project already has", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "New project prompt" }).click()
    const form = page.getByRole("form", { name: "New project prompt" })
    const key = form.getByLabel("Command")
    await key.fill("review")
    await form.getByLabel("Content").fill("Again")
    await form.getByRole("button", { name: "Create prompt" }).click()
    await expect.poll(() => key.getAttribute("aria-invalid")).toBe("true")
    const described = (await key.getAttribute("aria-describedby"))?.split(" ")[0]
    expect(await page.locator(`[id="${described}"]`).textContent()).toMatch(/already has a prompt \/review$/)
    await page.evaluate("window.scrollTo(0, 0)")
    await screenshot(page, "prompts-refusal")
    expect((await projectPrompts()).filter((p) => p.key === "review")).toHaveLength(1)
    await form.getByRole("button", { name: "Cancel" }).click()
  })

  it("deletes a prompt after asking, project and organization alike", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Delete /git:commit" }).click()
    await page.getByRole("group", { name: "Delete /git:commit" }).getByRole("button", { name: "Delete", exact: true }).click()
    await page.getByRole("heading", { level: 3, name: "/git:commit" }).waitFor({ state: "detached" })
    await eventually("the deletion", projectPrompts, (prompts) => !prompts.some((p) => p.key === "git:commit"))
    await page.getByRole("button", { name: "Delete /standup" }).click()
    await page.getByRole("group", { name: "Delete /standup" }).getByRole("button", { name: "Delete", exact: true }).click()
    await page.getByText("No organization prompts yet.").waitFor()
    expect(await organizationKeys()).toEqual([])
  })

  it("at 1440×900 the page is axe-clean, with no script errors", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Delete /review" }).click()
    await screenshot(page, "prompts-desktop")
    expect(await accessibilityProblems(page)).toEqual([])
    await page.getByRole("group", { name: "Delete /review" }).getByRole("button", { name: "Cancel" }).click()
    expect(errors).toEqual([])
  })

  it("at 390×844 it fits the screen, the new-prompt form included, and is axe-clean", async () => {
    const { browser, page, serve } = backend()
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await phone.page.goto(`${serve.baseUrl}${projectPath()}`)
    await phone.page.getByRole("heading", { level: 3, name: "/review" }).waitFor({ timeout: 30_000 })
    await phone.page.getByText("No organization prompts yet.").waitFor()
    await phone.page.getByRole("button", { name: "New project prompt" }).click()
    await phone.page.getByRole("form", { name: "New project prompt" }).waitFor()
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "prompts-phone")
    expect(await accessibilityProblems(phone.page)).toEqual([])
    expect(phone.errors).toEqual([])
    await phone.context.close()
  })
})
