/**
 * What the web benchmark measures in Chromium (`/usr/bin/chromium`, playwright-core; never a
 * downloaded browser). Each measurement runs its clock inside the page, so the figures are the
 * page's own: from navigation start, per animation frame, or against the epoch time of an upload
 * (the same machine's clock on both sides).
 */
import { type Browser, chromium, type Page } from "playwright-core"

const CHROMIUM = "/usr/bin/chromium"
const VIEWPORT = { width: 1280, height: 800 }

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })

/** A page of a new browser profile, signed in with the API key through the sign-in form (the page never holds it). */
export const signedInPage = async (browser: Browser, baseUrl: string, apiKey: string): Promise<Page> => {
  const context = await browser.newContext({ viewport: VIEWPORT, bypassCSP: true })
  const page = await context.newPage()
  await page.goto(`${baseUrl}/`)
  await page.getByLabel("API key").fill(apiKey)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL(/\/threads$/)
  return page
}

export const threadUrl = (baseUrl: string, projectId: string, threadId: string) =>
  `${baseUrl}/projects/${encodeURIComponent(projectId)}/threads/${encodeURIComponent(threadId)}`

export const numberOf = (value: unknown, what: string): number => {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`${what}: the page gave ${String(value)}`)
  return value
}

/**
 * Navigates to the thread and returns the milliseconds from navigation start until a conversation
 * row holding `lastText` is inside the viewport (checked every animation frame).
 */
export const firstRender = async (signedIn: Page, url: string, lastText: string, timeoutMs: number): Promise<number> => {
  // A page of its own (same profile, so signed in): the watcher is installed before the app's first script.
  const page = await signedIn.context().newPage()
  await page.addInitScript(`(() => {
    const look = () => {
      const rows = document.querySelectorAll("ol.conversation > li")
      for (const row of rows) {
        if (!row.textContent.includes(${JSON.stringify(lastText)})) continue
        const box = row.getBoundingClientRect()
        if (box.bottom > 0 && box.top < window.innerHeight) { window.__lastVisibleAt = performance.now(); return }
      }
      requestAnimationFrame(look)
    }
    requestAnimationFrame(look)
  })()`)
  await page.goto(url)
  await page.waitForFunction("window.__lastVisibleAt !== undefined", undefined, { timeout: timeoutMs, polling: 100 })
  const at = numberOf(await page.evaluate("window.__lastVisibleAt"), "the last event's time")
  await page.close()
  return at
}

/**
 * The floor of first render: a bare `EventSource` in a page of the same origin without the app
 * (a 404 document), reading the thread's stream as the page does (batched) until `events` events
 * have come, each frame `JSON.parse`d. Milliseconds from opening the stream.
 */
export const rawStreamRead = async (page: Page, baseUrl: string, threadId: string, events: number, timeoutMs: number): Promise<number> => {
  await page.goto(`${baseUrl}/api/web-bench-blank`)
  return numberOf(
    await page.evaluate(`new Promise((resolve, reject) => {
    const started = performance.now()
    const source = new EventSource(${JSON.stringify(`/api/threads/${threadId}/events?batch=1`)})
    let count = 0
    const timer = setTimeout(() => { source.close(); reject(new Error("only " + count + " events")) }, ${timeoutMs})
    source.addEventListener("events", (message) => {
      count += JSON.parse(message.data).length
      if (count >= ${events}) { clearTimeout(timer); source.close(); resolve(performance.now() - started) }
    })
  })`),
    "the raw stream read"
  )
}

export interface FrameGaps {
  readonly frames: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** How far the page scrolled, in pixels. */
  readonly scrolledPx: number
}

const gapsScript = (scroll: boolean, frames: number) =>
  `new Promise((resolve) => {
  const times = []
  ${scroll ? "window.scrollTo(0, 0)" : ""}
  const step = Math.round(window.innerHeight * 0.75)
  const startY = window.scrollY
  const tick = (now) => {
    times.push(now)
    const end = document.documentElement.scrollHeight - window.innerHeight
    const done = ${scroll ? "window.scrollY >= end - 1" : `times.length > ${frames}`}
    if (done || times.length > 20000) {
      const gaps = times.slice(1).map((t, i) => t - times[i]).sort((a, b) => a - b)
      const at = (p) => gaps[Math.min(gaps.length - 1, Math.max(0, Math.ceil(p * gaps.length) - 1))]
      resolve({ frames: gaps.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: gaps[gaps.length - 1], scrolledPx: window.scrollY - startY })
      return
    }
    ${scroll ? "window.scrollBy(0, step)" : ""}
    requestAnimationFrame(tick)
  }
  // Two frames first, so the jump to the top is laid out before the clock starts.
  requestAnimationFrame(() => requestAnimationFrame(tick))
})`

export const decodeGaps = (value: unknown): FrameGaps => {
  if (typeof value !== "object" || value === null) throw new Error("frame gaps: the page gave nothing")
  const field = (name: string) => numberOf(Reflect.get(value, name), name)
  return { frames: field("frames"), p50Ms: field("p50Ms"), p99Ms: field("p99Ms"), maxMs: field("maxMs"), scrolledPx: field("scrolledPx") }
}

/** Frame gaps while the page scrolls from its top to its bottom by three quarters of a screen per frame. */
export const scrollFrames = async (page: Page): Promise<FrameGaps> => decodeGaps(await page.evaluate(gapsScript(true, 0)))

/** Frame gaps of the same page standing still: the frame cadence of this browser on this machine. */
export const idleFrames = async (page: Page, frames: number): Promise<FrameGaps> =>
  decodeGaps(await page.evaluate(gapsScript(false, frames)))

/**
 * Starts watching the open thread page for lines `Probe <n>`: when one first shows in the
 * conversation (a DOM mutation), and the animation frame after (when it is painted). Beside the
 * app, a bare `EventSource` on the same thread records when each probe's frame arrived: the floor.
 * Times are epoch milliseconds (`performance.timeOrigin + performance.now()`).
 */
export const watchProbes = async (page: Page, threadId: string): Promise<void> => {
  await page.evaluate(`(() => {
    const now = () => performance.timeOrigin + performance.now()
    window.__probes = { shown: {}, painted: {}, arrived: {} }
    const list = document.querySelector("ol.conversation")
    const scan = () => {
      const at = now()
      const fresh = []
      for (const match of list.textContent.matchAll(/Probe (\\d+)\\b/g)) {
        if (window.__probes.shown[match[1]] === undefined) { window.__probes.shown[match[1]] = at; fresh.push(match[1]) }
      }
      if (fresh.length > 0) requestAnimationFrame(() => { const painted = now(); for (const n of fresh) window.__probes.painted[n] = painted })
    }
    new MutationObserver(scan).observe(list, { childList: true, subtree: true, characterData: true })
    const source = new EventSource(${JSON.stringify(`/api/threads/${threadId}/events?batch=1`)})
    source.addEventListener("events", (message) => {
      const at = now()
      for (const match of message.data.matchAll(/Probe (\\d+)\\b/g)) {
        if (window.__probes.arrived[match[1]] === undefined) window.__probes.arrived[match[1]] = at
      }
    })
    window.__closeProbeStream = () => source.close()
  })()`)
}

export interface ProbeTimes {
  readonly shown: ReadonlyMap<number, number>
  readonly painted: ReadonlyMap<number, number>
  readonly arrived: ReadonlyMap<number, number>
}

const timesOf = (value: unknown, name: string): ReadonlyMap<number, number> => {
  const record: unknown = typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined
  if (typeof record !== "object" || record === null) throw new Error(`probes: no ${name}`)
  return new Map(Object.entries(record).flatMap(([key, at]) => (typeof at === "number" ? [[Number(key), at] as const] : [])))
}

export const probeTimes = async (page: Page): Promise<ProbeTimes> => {
  const value: unknown = await page.evaluate("window.__closeProbeStream(), window.__probes")
  return { shown: timesOf(value, "shown"), painted: timesOf(value, "painted"), arrived: timesOf(value, "arrived") }
}
