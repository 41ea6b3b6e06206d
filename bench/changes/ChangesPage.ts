/**
 * What the changes benchmark times in Chromium, with the page's own clock: from navigation start
 * until the Changes panel's summary names the report, and from a click on that summary until the
 * panel shows its first file row.
 */
import type { Page } from "playwright-core"
import { numberOf } from "../web/Browser.js"

/**
 * Opens the thread page in a new page of the signed-in profile: milliseconds from navigation start
 * until its Changes summary holds `files`, then from the click on it until the first file row.
 */
export const openChanges = async (
  signedIn: Page,
  url: string,
  files: string,
  timeoutMs: number
): Promise<{ readonly summaryMs: number; readonly openMs: number }> => {
  const page = await signedIn.context().newPage()
  await page.addInitScript(`(() => {
    const look = () => {
      const summary = document.querySelector("details.changes summary")
      if (summary !== null && summary.textContent.includes(${JSON.stringify(files)})) { window.__summaryAt = performance.now(); return }
      requestAnimationFrame(look)
    }
    requestAnimationFrame(look)
  })()`)
  await page.goto(url)
  await page.waitForFunction("window.__summaryAt !== undefined", undefined, { timeout: timeoutMs, polling: 100 })
  const summaryMs = numberOf(await page.evaluate("window.__summaryAt"), "the summary's time")
  const openMs = await panelOpens(page, timeoutMs)
  await page.close()
  return { summaryMs, openMs }
}

/** Milliseconds from a click on the closed panel's summary until its first file row is drawn. */
const panelOpens = async (page: Page, timeoutMs: number): Promise<number> => {
  const elapsed = await page.evaluate(`new Promise((resolve, reject) => {
    const panel = document.querySelector("details.changes")
    if (panel === null || panel.open) return reject(new Error("no closed Changes panel"))
    const started = performance.now()
    panel.querySelector("summary").click()
    const look = () => {
      if (panel.querySelector("li.change-file") !== null) return resolve(performance.now() - started)
      if (performance.now() - started > ${timeoutMs}) return reject(new Error("the panel showed no file"))
      requestAnimationFrame(look)
    }
    requestAnimationFrame(look)
  })`)
  return numberOf(elapsed, "the panel's opening")
}
