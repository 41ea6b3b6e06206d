import { Effect } from "effect"
import * as fs from "node:fs"

/** Running: not gone, and not a zombie that init has yet to reap (an orphan's parent in a container may never). */
export const isAlive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/** Polls `probe` until `done` holds (5 s at most); the last value either way. */
export const until = <A>(probe: () => A, done: (value: A) => boolean) =>
  Effect.promise(async () => {
    const deadline = Date.now() + 5_000
    let value = probe()
    while (!done(value) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      value = probe()
    }
    return value
  })
