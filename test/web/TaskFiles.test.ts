/**
 * A task's files in Chromium against a real `trellis serve`: attached with the picker (reached by
 * keyboard) at 1440×900 and 390×844, listed, downloaded again through `get_task`'s URL with an
 * API key byte for byte; a file attached elsewhere appears without a reload; one over the cap is
 * refused with the server's message. Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { type Browser, type Page } from "playwright-core"
import { MAX_FILE_BYTES } from "../../catalog/domain/TaskFile.js"
import { eventually } from "../e2e/support/Processes.js"
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

const Created = Schema.Struct({ taskId: Schema.String, refId: Schema.NullOr(Schema.String) })
const Files = Schema.Struct({
  files: Schema.Array(Schema.Struct({ fileId: Schema.String, name: Schema.String, size: Schema.Number, downloadUrl: Schema.String }))
})

/** Every byte value, so a text or encoding slip anywhere shows as different bytes. */
const binary = (size: number, seed: number) => Buffer.from(Uint8Array.from({ length: size }, (_, i) => (i * seed + 11) % 256))

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("a task's files in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []
  let taskId = ""
  let taskRef = ""

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page }
  }
  const taskPagePath = (ref: string) => `/projects/${encodeURIComponent(backend().serve.credentials.projectId)}/tasks/${ref}`
  const filesOf = (id: string) => backend().mcp.call(Files, "get_task", { taskId: id })
  const downloadWithKey = async (url: string) => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${backend().serve.credentials.apiKey}` } })
    expect(response.status).toBe(200)
    return Buffer.from(await response.arrayBuffer())
  }
  const section = (on: Page) => on.locator("section.task-files")

  /** Attaches through the picker as a keyboard user would: focus the button, Enter, choose. */
  const attachByKeyboard = async (on: Page, file: { readonly name: string; readonly mimeType: string; readonly buffer: Buffer }) => {
    const button = on.getByRole("button", { name: "Attach files…" })
    // Waited for before the focus: the page intercepts file choosers only once that request is in,
    // and a chooser opened before would go to the (headless) browser's own dialog, never to the test.
    const chooser = on.waitForEvent("filechooser")
    await button.focus()
    await on.keyboard.press("Enter")
    await (await chooser).setFiles(file)
  }

  beforeAll(async () => {
    const started = await startBackend("trellis-files-home-")
    serve = started.serve
    mcp = started.mcp
    const created = await mcp.call(Created, "create_task", { projectId: serve.credentials.projectId, name: "Ship the export" })
    taskId = created.taskId
    taskRef = created.refId ?? created.taskId
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    errors = opened.errors
    await page.goto(await signInLink(serve, taskPagePath(taskRef)))
    await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("a file attached through the picker is listed, and get_task's URL gives the same bytes to an API key", async () => {
    const { page } = backend()
    const name = `Résumé "v2" 日本.bin`
    const bytes = binary(300_000, 7)
    await attachByKeyboard(page, { name, mimeType: "application/octet-stream", buffer: bytes })
    const link = section(page).getByRole("link", { name })
    await link.waitFor()
    expect(await section(page).textContent()).toContain("293.0 KB")
    const [file] = (await filesOf(taskId)).files
    expect(file).toMatchObject({ name, size: bytes.length })
    expect(await link.getAttribute("href")).toBe(file?.downloadUrl)
    expect((await downloadWithKey(file?.downloadUrl ?? "")).equals(bytes)).toBe(true)
    await screenshot(page, "task-files-desktop")
    expect(await accessibilityProblems(page, "section.task-files")).toEqual([])
  })

  it("a file attached elsewhere (an API key) appears on the open page without a reload", async () => {
    const { page, serve } = backend()
    const response = await fetch(`${serve.baseUrl}/api/tasks/${taskId}/files?name=notes.txt`, {
      method: "POST",
      headers: { authorization: `Bearer ${serve.credentials.apiKey}`, "content-type": "text/plain" },
      body: "written by an agent"
    })
    expect(response.status).toBe(201)
    await section(page).getByRole("link", { name: "notes.txt" }).waitFor({ timeout: 10_000 })
  })

  it("a file over the cap is refused with the server's message, and nothing is attached", async () => {
    const { page } = backend()
    await attachByKeyboard(page, { name: "huge.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(MAX_FILE_BYTES + 1, 1) })
    const alert = section(page).getByRole("alert")
    await alert.waitFor({ timeout: 30_000 })
    expect(await alert.textContent()).toContain("a file is at most 10 MB")
    expect((await filesOf(taskId)).files.map((file) => file.name)).not.toContain("huge.bin")
    await screenshot(page, "task-files-refused")
    expect(errors.filter((error) => !error.includes("413"))).toEqual([])
  })

  it("on a phone a file is attached and listed, and the page is no wider than the screen", async () => {
    const { browser, mcp, page, serve } = backend()
    const other = await mcp.call(Created, "create_task", { projectId: serve.credentials.projectId, name: "Phone photos" })
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await phone.page.goto(`${serve.baseUrl}${taskPagePath(other.refId ?? other.taskId)}`)
    await phone.page.getByRole("heading", { level: 1, name: "Phone photos" }).waitFor({ timeout: 30_000 })
    const bytes = binary(50_000, 13)
    const name = "a-rather-long-file-name-from-a-phone-camera-2026-11-27-13-45-00.jpg"
    await attachByKeyboard(phone.page, { name, mimeType: "image/jpeg", buffer: bytes })
    await section(phone.page).getByRole("link", { name }).waitFor()
    const [file] = (await eventually("the file listed", () => filesOf(other.taskId), (found) => found.files.length === 1)).files
    expect((await downloadWithKey(file?.downloadUrl ?? "")).equals(bytes)).toBe(true)
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "task-files-phone")
    expect(await accessibilityProblems(phone.page, "section.task-files")).toEqual([])
    expect(phone.errors).toEqual([])
    await phone.context.close()
  }, 60_000)
})
