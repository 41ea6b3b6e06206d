/**
 * The Skills pages in Chromium against a real `trellis serve` (issue 31 §4): the Skills listed with
 * their versions, one created, a Skill's file tree, SKILL.md and a file saved (each save showing
 * the new version), a batch of edits whose unplaceable `replace` is shown on that edit with the
 * tool's code while nothing is written, a refusal shown on the field it names, deleting a Skill after
 * a confirmation, and the pages at
 * 1440×900 and 390×844, axe-clean. Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { type Browser, type Page } from "playwright-core"
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

const SKILL_MD = "---\nname: deploy\ndescription: Ship it\n---\n\nRun the deploy script.\n"
const Created = Schema.Struct({ skillId: Schema.String })
const Skill = Schema.Struct({
  name: Schema.String,
  version: Schema.Number,
  skillMd: Schema.String,
  files: Schema.Array(Schema.Struct({ path: Schema.String, content: Schema.String }))
})
const Skills = Schema.Struct({
  skills: Schema.Array(Schema.Struct({ skillId: Schema.String, name: Schema.String, version: Schema.Number }))
})

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("the Skills pages in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []
  let skillId = ""

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page }
  }
  const read = () => backend().mcp.call(Skill, "get_skill", { skillId })
  const fileOf = async (path: string) => (await read()).files.find((file) => file.path === path)?.content
  const skillsPath = () => `/projects/${encodeURIComponent(backend().serve.credentials.projectId)}/skills`

  beforeAll(async () => {
    const started = await startBackend("trellis-skills-page-")
    serve = started.serve
    mcp = started.mcp
    const { projectId } = serve.credentials
    skillId = (await mcp.call(Created, "create_skill", { projectId, name: "deploy", content: SKILL_MD, description: "Ship it" })).skillId
    await mcp.call(Schema.Struct({}), "update_skill", {
      skillId,
      edits: [{ op: "write", path: "scripts/run.sh", content: "echo one\necho one\n" }]
    })
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    page.setDefaultTimeout(15_000)
    errors = opened.errors
    await page.goto(await signInLink(serve, skillsPath()))
    await page.getByRole("heading", { level: 1, name: "Skills" }).waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("lists the project's Skills with their versions", async () => {
    const { page } = backend()
    const project = page.getByRole("region", { name: "This project" })
    await project.getByRole("link", { name: "deploy" }).waitFor()
    expect(await project.getByText("version 2").isVisible()).toBe(true)
  })

  it("creates a Skill from its SKILL.md and opens it at version 1", async () => {
    const { mcp, page, serve } = backend()
    await page.getByRole("button", { name: "New project Skill" }).click()
    const form = page.getByRole("form", { name: "New project Skill" })
    await form.getByLabel("Name", { exact: true }).fill("review-code")
    await form.getByLabel("Description", { exact: true }).fill("Reviews a change")
    const skillMd = form.getByLabel("SKILL.md")
    expect(await skillMd.inputValue()).toBe("---\nname: review-code\ndescription: Reviews a change\n---\n\n")
    await skillMd.fill("---\nname: review-code\ndescription: Reviews a change\n---\n\nRead the diff.\n")
    await form.getByRole("button", { name: "Create Skill" }).click()
    await page.getByRole("heading", { level: 1, name: "review-code" }).waitFor()
    expect(await page.getByText("version 1", { exact: true }).isVisible()).toBe(true)
    const listed = await mcp.call(Skills, "list_skills", { projectId: serve.credentials.projectId })
    expect(listed.skills.map((skill) => [skill.name, skill.version])).toEqual([["deploy", 2], ["review-code", 1]])
    await page.getByRole("link", { name: "← Skills" }).click()
    await page.getByRole("link", { name: "deploy" }).click()
    await page.getByRole("heading", { level: 1, name: "deploy" }).waitFor()
  })

  it("saving SKILL.md shows the new version, and the Skill holds it", async () => {
    const { page } = backend()
    const editor = page.getByRole("form", { name: "Edit SKILL.md" })
    await editor.getByLabel("SKILL.md").fill(`${SKILL_MD}Then check the health page.\n`)
    await editor.getByRole("button", { name: "Save SKILL.md" }).click()
    await editor.getByRole("status").getByText("Saved: version 3").waitFor()
    // The heading follows once the Skill is read again.
    await page.locator(".skill-head").getByText("version 3").waitFor()
    expect((await read()).skillMd).toBe(`${SKILL_MD}Then check the health page.\n`)
  })

  it("the file tree opens a file; a new file is added as one save", async () => {
    const { page } = backend()
    const tree = page.getByRole("navigation", { name: "Files of the Skill" })
    await tree.getByRole("button", { name: "run.sh" }).click()
    const editor = page.getByRole("form", { name: "Edit scripts/run.sh" })
    expect(await editor.getByLabel("scripts/run.sh").inputValue()).toBe("echo one\necho one\n")
    const added = page.getByRole("form", { name: "New file" })
    await added.getByLabel("Path", { exact: true }).fill("docs/notes.md")
    await added.getByLabel("Content", { exact: true }).fill("Notes")
    await added.getByRole("button", { name: "Add file" }).click()
    await added.getByRole("status").getByText("Saved: version 4").waitFor()
    await tree.getByRole("button", { name: "notes.md" }).waitFor()
    expect(await fileOf("docs/notes.md")).toBe("Notes")
  })

  it("an unplaceable replace is shown on that edit with the tool's code, and nothing is written", async () => {
    const { page } = backend()
    const edits = page.getByRole("form", { name: "Edits" })
    const first = edits.getByRole("group", { name: "Edit 1" })
    await first.getByLabel("File").fill("SKILL.md")
    await first.getByLabel("Find (exact text)").fill("deploy script")
    await first.getByLabel("Replace with").fill("release script")
    await edits.getByRole("button", { name: "Add an edit" }).click()
    const second = edits.getByRole("group", { name: "Edit 2" })
    await second.getByLabel("File").fill("scripts/run.sh")
    await second.getByLabel("Find (exact text)").fill("echo one")
    await second.getByLabel("Replace with").fill("echo two")
    await edits.getByRole("button", { name: "Save edits" }).click()
    await second.getByRole("alert").getByText(/^multiple_matches: /).waitFor()
    expect(await first.getByRole("alert").count()).toBe(0)
    expect(await second.getAttribute("class")).toContain("invalid")
    const alertId = await second.getByRole("alert").getAttribute("id")
    await expect.poll(() => page.evaluate("document.activeElement?.id")).toBe(alertId)
    await page.evaluate("window.scrollTo(0, 0)")
    await screenshot(page, "skill-unplaceable-edit")
    const unchanged = await read()
    expect(unchanged.version).toBe(4)
    expect(unchanged.skillMd).toContain("deploy script")
    await second.getByLabel("Every occurrence").check()
    await edits.getByRole("button", { name: "Save edits" }).click()
    await edits.getByRole("status").getByText("Saved: version 5").waitFor()
    const saved = await read()
    expect(saved.skillMd).toContain("release script")
    expect(saved.files.find((file) => file.path === "scripts/run.sh")?.content).toBe("echo two\necho two\n")
  })

  it("a refusal is shown on the field it names, and nothing is saved", async () => {
    const { page } = backend()
    const details = page.getByRole("form", { name: "Details" })
    const name = details.getByLabel("Name", { exact: true })
    await name.fill("Bad Name")
    await details.getByRole("button", { name: "Save details" }).click()
    await expect.poll(() => name.getAttribute("aria-invalid")).toBe("true")
    const described = (await name.getAttribute("aria-describedby"))?.split(" ")[0]
    expect(await page.locator(`[id="${described}"]`).textContent()).toMatch(/^must be 2–64 characters/)
    expect((await read()).name).toBe("deploy")
    await name.fill("deploy")
  })

  it("at 1440×900 the Skill's page is axe-clean, with no script errors", async () => {
    const { page } = backend()
    await page.evaluate("window.scrollTo(0, 0)")
    await screenshot(page, "skill-desktop")
    expect(await accessibilityProblems(page)).toEqual([])
    expect(errors).toEqual([])
  })

  it("at 390×844 the list and the Skill's page fit the screen and are axe-clean", async () => {
    const { browser, page, serve } = backend()
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await phone.page.goto(`${serve.baseUrl}${skillsPath()}`)
    await phone.page.getByRole("link", { name: "deploy" }).waitFor({ timeout: 30_000 })
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "skills-phone")
    expect(await accessibilityProblems(phone.page)).toEqual([])
    await phone.page.getByRole("link", { name: "deploy" }).click()
    await phone.page.getByRole("heading", { level: 1, name: "deploy" }).waitFor()
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "skill-phone")
    expect(await accessibilityProblems(phone.page)).toEqual([])
    expect(phone.errors).toEqual([])
    await phone.context.close()
  })

  it("a Skill created over MCP appears on the open list without a reload", async () => {
    const { mcp, page, serve } = backend()
    await page.goto(`${serve.baseUrl}${skillsPath()}`)
    await page.getByRole("link", { name: "deploy" }).waitFor()
    await mcp.call(Created, "create_skill", {
      projectId: serve.credentials.projectId,
      name: "release-notes",
      content: "---\nname: release-notes\n---\n\nWrite them.\n"
    })
    await page.getByRole("link", { name: "release-notes" }).waitFor({ timeout: 5_000 })
  })

  it("Delete Skill asks first: Cancel keeps it; Delete removes it with its files and returns to the Skills", async () => {
    const { mcp, page, serve } = backend()
    const { projectId } = serve.credentials
    const doomed = (await mcp.call(Created, "create_skill", {
      projectId,
      name: "cleanup",
      content: "---\nname: cleanup\n---\n\nTidy up.\n",
      description: "Tidy"
    })).skillId
    const listed = async () => (await mcp.call(Skills, "list_skills", { projectId })).skills.map((skill) => skill.name)
    await page.goto(`${serve.baseUrl}${skillsPath()}/${doomed}`)
    await page.getByRole("heading", { level: 1, name: "cleanup" }).waitFor()
    await page.getByRole("button", { name: "Delete Skill" }).click()
    await page.getByRole("group", { name: "Delete cleanup" }).getByRole("button", { name: "Cancel" }).click()
    expect(await listed()).toContain("cleanup")
    await page.getByRole("button", { name: "Delete Skill" }).click()
    await page.getByRole("group", { name: "Delete cleanup" }).getByRole("button", { name: "Delete", exact: true }).click()
    await page.waitForURL((url) => url.pathname === skillsPath())
    await page.getByRole("link", { name: "deploy" }).waitFor()
    expect(await page.getByRole("link", { name: "cleanup" }).count()).toBe(0)
    expect(await listed()).not.toContain("cleanup")
    await expect(mcp.call(Skill, "get_skill", { skillId: doomed })).rejects.toThrow(/not found/i)
  })
})
