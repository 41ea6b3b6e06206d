import { Schema } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { killEverything, removeTempDirs, repoRoot, tempDir } from "../../e2e/support/Processes.js"
import { Mcp, type Serve, startServe, trellisOk } from "../../e2e/support/Trellis.js"

/**
 * What every browser test shares: Debian's Chromium (Playwright never downloads one here), where
 * screenshots go, and the page checks (script errors, axe-core, width).
 */

export const CHROMIUM = "/usr/bin/chromium"
export const SHOTS = path.join(repoRoot, "test-results", "web")

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export interface Viewport {
  readonly width: number
  readonly height: number
}

/** The sizes the pages are tried at: a laptop's screen and a phone's. */
export const DESKTOP: Viewport = { width: 1440, height: 900 }
export const PHONE: Viewport = { width: 390, height: 844 }

/** The page's script errors and console errors, as they happen. */
export const recordErrors = (page: Page): Array<string> => {
  const errors: Array<string> = []
  page.on("pageerror", (error) => errors.push(error.message))
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text())
  })
  return errors
}

/**
 * A fresh browser profile and its page, recording script errors: without a cookie, or signed in
 * as `signedInAs`'s profile is (its cookies copied, so no second sign-in link, a CLI process, is
 * needed). It bypasses the app's content security policy, which would refuse the injected
 * axe-core script; phones get 2× pixels.
 */
export const openPage = async (
  browser: Browser,
  viewport: Viewport,
  options: { readonly deviceScaleFactor?: number; readonly signedInAs?: Page } = {}
) => {
  const context = await browser.newContext({
    viewport,
    deviceScaleFactor: options.deviceScaleFactor ?? (viewport.width < 500 ? 2 : 1),
    bypassCSP: true,
    ...(options.signedInAs === undefined ? {} : { storageState: await options.signedInAs.context().storageState() })
  })
  const page = await context.newPage()
  return { context, page, errors: recordErrors(page) }
}

export const screenshot = (page: Page, name: string, options: { readonly fullPage?: boolean } = {}) =>
  page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: options.fullPage ?? true })

/**
 * axe-core's serious and critical violations, one line each, in the whole page or in `include`
 * (a CSS selector).
 */
export const accessibilityProblems = async (page: Page, include?: string) => {
  await page.addScriptTag({ content: axeSource })
  const context = include === undefined ? "document" : `{ include: [[${JSON.stringify(include)}]] }`
  const found: unknown = await page.evaluate(`axe.run(${context}, { resultTypes: ["violations"] }).then((result) =>
    result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => v.id + ": " + v.nodes.map((node) => node.target.join(" ")).join(", ")))`)
  return Schema.decodeUnknownSync(Schema.Array(Schema.String))(found)
}

/** Nothing wider than the screen: no sideways scrolling on a phone. */
export const fitsWidth = async (page: Page) => (await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")) === true

/** A fresh one-time sign-in link to `next`, printed by `trellis admin signin-link` as the person would. */
export const signInLink = async (serve: Serve, next: string) => {
  const out = await trellisOk(["admin", "signin-link", "--next", next], repoRoot, { ...serve.env, TRELLIS_HOME: serve.home })
  const link = /^Sign in: (\S+) \(one use, 10 minutes\)$/m.exec(out)?.[1]
  if (link === undefined) throw new Error(`trellis admin signin-link printed no link:\n${out}`)
  return link
}

/**
 * A browser test's backend: `trellis serve` on a fresh home (its name starts with `homePrefix`)
 * and the MCP SDK client on the bootstrap key. The web app must be built: the server serves dist/web/.
 */
export const startBackend = async (homePrefix: string): Promise<{ readonly serve: Serve; readonly mcp: Mcp }> => {
  if (!fs.existsSync(path.join(repoRoot, "dist", "web", "index.html"))) {
    throw new Error("dist/web/ is not built: run `npm run build` before this test")
  }
  fs.mkdirSync(SHOTS, { recursive: true })
  const serve = await startServe(tempDir(homePrefix))
  return { serve, mcp: await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey) }
}

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })

/** Closes what a browser test opened, then stops every process and removes every temporary directory it made. */
export const stopBackend = async (browser: Browser | undefined, mcp: Mcp | undefined): Promise<void> => {
  await browser?.close()
  await mcp?.close()
  await killEverything()
  removeTempDirs()
}
