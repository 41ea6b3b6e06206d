import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { hostname, tmpdir } from "node:os"
import * as path from "node:path"
import * as DataDirLock from "../../../src/platform/sql/DataDirLock.js"

const holderOf = (lockPath: string) =>
  Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ pid: Schema.Number })))(fs.readFileSync(lockPath, "utf8")).pid

/** A lock file naming `pid` as its holder, as a running `trellis serve` leaves it. */
const heldBy = (pid: number) => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "trellis-lock-"))
  const lockPath = path.join(dir, "data.lock")
  fs.writeFileSync(lockPath, JSON.stringify({ pid, hostname: hostname(), command: "trellis serve", startedAt: new Date().toISOString() }))
  return lockPath
}

/** A process that lives `seconds`, then exits. */
const living = (seconds: number) => {
  const child = spawn("sleep", [String(seconds)], { stdio: "ignore" })
  if (child.pid === undefined) throw new Error("could not start sleep")
  return { pid: child.pid, stop: () => child.kill("SIGKILL") }
}

describe("the embedded database's lock", () => {
  it.scopedLive("a lock whose process is gone is taken over at once", () =>
    Effect.gen(function*() {
      const gone = living(0.01)
      yield* Effect.sleep("200 millis")
      const lockPath = heldBy(gone.pid)
      yield* DataDirLock.acquire(lockPath, "/data", "trellis serve")
      expect(holderOf(lockPath)).toBe(process.pid)
    }))

  it.scopedLive("a holder that exits within a few seconds (killed a moment ago) is waited for, then the lock is taken", () =>
    Effect.gen(function*() {
      const exiting = living(1)
      const lockPath = heldBy(exiting.pid)
      const started = Date.now()
      yield* DataDirLock.acquire(lockPath, "/data", "trellis serve")
      expect(Date.now() - started).toBeGreaterThanOrEqual(800)
      expect(holderOf(lockPath)).toBe(process.pid)
    }))

  it.scopedLive("a holder still alive after the grace is refused, naming the process and DATABASE_URL", () =>
    Effect.gen(function*() {
      const holder = living(60)
      yield* Effect.addFinalizer(() => Effect.sync(holder.stop))
      const lockPath = heldBy(holder.pid)
      const exit = yield* Effect.exit(Effect.scoped(DataDirLock.acquire(lockPath, "/data", "trellis serve")))
      expect(Exit.isFailure(exit)).toBe(true)
      const message = Exit.match(exit, { onFailure: (cause) => String(cause), onSuccess: () => "" })
      expect(message).toContain(`in use by process ${holder.pid}`)
      expect(message).toContain("DATABASE_URL")
      expect(holderOf(lockPath)).toBe(holder.pid)
    }), 15_000)
})
