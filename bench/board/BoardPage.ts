/**
 * What the board benchmark measures in Chromium, each clock inside the page: first render of a
 * board from navigation start, frame gaps while a card is dragged, and when a task renamed over
 * MCP shows on the open board beside when its change frame reaches a bare EventSource.
 */
import type { Page } from "playwright-core"
import { decodeGaps, type FrameGaps, numberOf } from "../web/Browser.js"

/** Milliseconds from navigation start until the board shows `cards` cards and says how many tasks it holds. */
export const boardRender = async (signedIn: Page, url: string, cards: number, timeoutMs: number): Promise<number> => {
  const page = await signedIn.context().newPage()
  await page.addInitScript(`(() => {
    const look = () => {
      const count = document.querySelector(".board-count")
      if (count !== null && count.textContent === ${JSON.stringify(`${cards} task${cards === 1 ? "" : "s"}`)} &&
          document.querySelectorAll(".card").length >= ${cards}) { window.__boardAt = performance.now(); return }
      requestAnimationFrame(look)
    }
    requestAnimationFrame(look)
  })()`)
  await page.goto(url)
  await page.waitForFunction("window.__boardAt !== undefined", undefined, { timeout: timeoutMs, polling: 100 })
  const at = numberOf(await page.evaluate("window.__boardAt"), "the board's time")
  await page.close()
  return at
}

const startFrames = `(() => {
  window.__frames = []
  const tick = (now) => { if (window.__frames === undefined) return; window.__frames.push(now); requestAnimationFrame(tick) }
  requestAnimationFrame(tick)
})()`

const stopFrames = `(() => {
  const times = window.__frames; window.__frames = undefined
  const gaps = times.slice(1).map((t, i) => t - times[i]).sort((a, b) => a - b)
  const at = (p) => gaps[Math.min(gaps.length - 1, Math.max(0, Math.ceil(p * gaps.length) - 1))]
  return { frames: gaps.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: gaps[gaps.length - 1], scrolledPx: 0 }
})()`

/**
 * Frame gaps while the card `ref` is dragged across the board in `steps` pointer moves (one per
 * frame or so, as a hand does), then let go with Escape (nothing is changed).
 */
export const dragFrames = async (page: Page, ref: string, steps: number): Promise<FrameGaps> => {
  const card = await page.locator(`[data-task-ref="${ref}"]`).boundingBox()
  const board = await page.locator(".board").boundingBox()
  if (card === null || board === null) throw new Error(`the card ${ref} or the board is not on screen`)
  await page.mouse.move(card.x + 20, card.y + 10)
  await page.mouse.down()
  await page.mouse.move(card.x + 40, card.y + 30, { steps: 4 })
  await page.evaluate(startFrames)
  const span = board.width - 80
  for (let step = 1; step <= steps; step++) {
    const x = card.x + 40 + ((step * 37) % span)
    const y = card.y + 30 + (step % 40) * 6
    await page.mouse.move(x, y)
  }
  const gaps = decodeGaps(await page.evaluate(stopFrames))
  await page.keyboard.press("Escape")
  await page.mouse.up()
  return gaps
}

/**
 * Watches the open board for card names `Probe <n>` (a DOM mutation) and, beside the app, a bare
 * EventSource on the project's changes stream for frames naming `taskId`, each frame's arrival
 * recorded in order. Times are epoch milliseconds.
 */
export const watchRenames = async (page: Page, projectId: string, taskId: string): Promise<void> => {
  await page.evaluate(`(() => {
    const now = () => performance.timeOrigin + performance.now()
    window.__renames = { shown: {}, arrived: [] }
    const scan = () => {
      const card = document.querySelector(${JSON.stringify(`[data-task-id="${taskId}"] .card-name`)})
      const match = card === null ? null : /^Probe (\\d+)$/.exec(card.textContent)
      if (match !== null && window.__renames.shown[match[1]] === undefined) window.__renames.shown[match[1]] = now()
    }
    new MutationObserver(scan).observe(document.querySelector(".board"), { childList: true, subtree: true, characterData: true })
    const source = new EventSource(${JSON.stringify(`/api/projects/${projectId}/changes`)})
    source.addEventListener("changes", (message) => {
      if (message.data.includes(${JSON.stringify(taskId)})) window.__renames.arrived.push(now())
    })
    window.__closeRenames = () => source.close()
  })()`)
}

export interface RenameTimes {
  readonly shown: ReadonlyMap<number, number>
  readonly arrived: ReadonlyArray<number>
}

export const renameTimes = async (page: Page): Promise<RenameTimes> => {
  const value: unknown = await page.evaluate("window.__closeRenames(), window.__renames")
  const shown: unknown = typeof value === "object" && value !== null ? Reflect.get(value, "shown") : undefined
  const arrived: unknown = typeof value === "object" && value !== null ? Reflect.get(value, "arrived") : undefined
  if (typeof shown !== "object" || shown === null || !Array.isArray(arrived)) throw new Error("renames: the page gave nothing")
  return {
    shown: new Map(Object.entries(shown).flatMap(([key, at]) => (typeof at === "number" ? [[Number(key), at] as const] : []))),
    arrived: arrived.filter((at): at is number => typeof at === "number")
  }
}
