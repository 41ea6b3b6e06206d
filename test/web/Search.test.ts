/**
 * Search from anywhere in Chromium against a real `trellis serve`: `/` and Ctrl+K open it,
 * `search_tasks` answers as the person types, Enter opens the chosen task, a ref opens its task
 * directly, no match says so, and `/` typed in a field stays text.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, type Page } from "playwright-core"
import { Mcp, type Serve } from "../e2e/support/Trellis.js"
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

const TASKS = 30

const Created = Schema.Struct({ taskId: Schema.String, refId: Schema.NullOr(Schema.String) })

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("search in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  const refs: Array<string> = []

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page }
  }
  const projectPath = (rest: string) => `/projects/${encodeURIComponent(backend().serve.credentials.projectId)}${rest}`
  const freshLink = (next: string) => signInLink(backend().serve, next)
  const found = (page: Page) => page.getByRole("listbox", { name: "Tasks found" }).getByRole("option")
  const searchBox = () => backend().page.getByRole("dialog", { name: "Search tasks" }).getByRole("searchbox")

  beforeAll(async () => {
    const started = await startBackend("trellis-search-home-")
    serve = started.serve
    mcp = started.mcp
    const { projectId } = serve.credentials
    for (let n = 0; n < TASKS; n++) {
      const name = n === 3 ? "Repair the zeppelin mooring" : n === 11 ? "Paint the hangar" : `Routine chore ${n}`
      const description = n === 11 ? "Before the zeppelin comes back" : undefined
      const created = await mcp.call(Created, "create_task", { projectId, name, ...(description === undefined ? {} : { description }) })
      refs.push(created.refId ?? created.taskId)
    }
    browser = await launchChromium()
    page = (await openPage(browser, DESKTOP)).page
    await page.goto(await freshLink(projectPath("/threads")))
    await page.waitForURL((url) => url.pathname.endsWith("/threads"))
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("/ opens search; words find the tasks whose name or description has them, the name's match first; Enter opens it", async () => {
    const { page } = backend()
    await page.locator("body").press("/")
    await searchBox().fill("zeppelin")
    const results = found(page)
    await expect.poll(() => results.count()).toBe(2)
    expect(await results.first().textContent()).toContain("Repair the zeppelin mooring")
    expect(await results.nth(1).textContent()).toContain("Paint the hangar")
    expect(await accessibilityProblems(page, ".search-dialog")).toEqual([])
    await screenshot(page, "search-desktop", { fullPage: false })
    await searchBox().press("Enter")
    await page.getByRole("heading", { level: 1, name: "Repair the zeppelin mooring" }).waitFor()
    expect(new URL(page.url()).pathname).toBe(projectPath(`/tasks/${refs[3]}`))
  })

  it("the arrow keys choose another result", async () => {
    const { page } = backend()
    await page.locator("body").press("/")
    await searchBox().fill("zeppelin")
    await expect.poll(() => found(page).count()).toBe(2)
    await searchBox().press("ArrowDown")
    await expect.poll(() => page.getByRole("listbox").getByRole("option", { selected: true }).textContent()).toContain(
      "Paint the hangar"
    )
    await searchBox().press("Enter")
    await page.getByRole("heading", { level: 1, name: "Paint the hangar" }).waitFor()
  })

  it("Ctrl+K opens search, and a ref, bare or scoped by the organization, opens its task directly", async () => {
    const { page } = backend()
    await page.keyboard.press("Control+k")
    await searchBox().fill(refs[20] ?? "")
    await searchBox().press("Enter")
    await page.getByRole("heading", { level: 1, name: "Routine chore 20" }).waitFor()
    await page.keyboard.press("Control+k")
    const { organization } = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ organization: Schema.String })))(
      fs.readFileSync(path.join(backend().serve.home, "credentials.json"), "utf8")
    )
    await searchBox().fill(`${organization}/${refs[21] ?? ""}`)
    await searchBox().press("Enter")
    await page.getByRole("heading", { level: 1, name: "Routine chore 21" }).waitFor()
  })

  it("a search with no match says so, and one Escape closes it (even with text in the box)", async () => {
    const { page } = backend()
    await page.locator("body").press("/")
    await searchBox().fill("xylophone")
    await page.getByText("No task matches “xylophone”.").waitFor()
    await page.keyboard.press("Escape")
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0)
  })

  it("/ typed in a field is text, not search", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Rename" }).click()
    const name = page.getByLabel("Name", { exact: true })
    await name.fill("a")
    await name.press("/")
    expect(await name.inputValue()).toBe("a/")
    expect(await page.getByRole("dialog").count()).toBe(0)
    await page.getByRole("button", { name: "Cancel" }).click()
  })

  it("on a phone the search button opens it and it fits the screen", async () => {
    const { browser, page, serve } = backend()
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await phone.page.goto(`${serve.baseUrl}${projectPath("/board")}`)
    await phone.page.getByRole("button", { name: /Search/ }).click()
    await phone.page.getByRole("dialog", { name: "Search tasks" }).getByRole("searchbox").fill("hangar")
    await expect.poll(() => found(phone.page).count()).toBe(1)
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "search-phone", { fullPage: false })
    expect(phone.errors).toEqual([])
    await phone.context.close()
  })
})
