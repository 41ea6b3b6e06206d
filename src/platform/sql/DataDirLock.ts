import { Duration, Effect, Schedule, Schema } from "effect"
import { hostname } from "node:os"
import * as fs from "node:fs"

export class DatabaseLocked extends Schema.TaggedError<DatabaseLocked>()("DatabaseLocked", { message: Schema.String }) {}

const Holder = Schema.parseJson(Schema.Struct({
  pid: Schema.Number,
  hostname: Schema.String,
  command: Schema.String,
  startedAt: Schema.String
}))
type Holder = typeof Holder.Type

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return error instanceof Error && "code" in error && error.code === "EPERM"
  }
}

const readHolder = (path: string): Holder | undefined => {
  try {
    return Schema.decodeUnknownSync(Holder)(fs.readFileSync(path, "utf8"))
  } catch {
    return undefined
  }
}

const tryCreate = (path: string, holder: Holder): boolean => {
  try {
    fs.writeFileSync(path, Schema.encodeSync(Holder)(holder), { flag: "wx", mode: 0o600 })
    return true
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") return false
    throw error
  }
}

/** The lock is held by a live process: `message` says which. */
class Held {
  readonly _tag = "Held"
  constructor(readonly message: string) {}
}

/**
 * A holder that is alive is waited for this long before giving up: a process killed a moment ago
 * (`kill -9`, then `trellis serve` again) is still tearing down its memory, PGlite's hundreds of MB,
 * for a fraction of a second after the signal.
 */
const EXITING_GRACE = Duration.seconds(5)

const attempt = (lockPath: string, dataDir: string, me: Holder) =>
  Effect.suspend((): Effect.Effect<void, Held | DatabaseLocked> => {
    for (let tries = 0; tries < 2; tries++) {
      if (tryCreate(lockPath, me)) return Effect.void
      const holder = readHolder(lockPath)
      if (holder !== undefined && holder.hostname === me.hostname && isAlive(holder.pid) && holder.pid !== me.pid) {
        return Effect.fail(
          new Held(
            `The embedded database at ${dataDir} is in use by process ${holder.pid} (\`${holder.command}\`, started ${holder.startedAt}). ` +
              `Stop that process first, or run both against PostgreSQL by setting DATABASE_URL.`
          )
        )
      }
      fs.rmSync(lockPath, { force: true })
    }
    return Effect.fail(new DatabaseLocked({ message: `Could not lock the embedded database at ${dataDir} (${lockPath})` }))
  })

/**
 * Holds the embedded database for this process: PGlite is one session in one process, and a
 * second process opening the same directory would corrupt it. A lock left by a dead process is
 * taken over; one whose process is still alive is waited for up to `EXITING_GRACE` (it may be exiting).
 */
export const acquire = (lockPath: string, dataDir: string, command: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const me: Holder = { pid: process.pid, hostname: hostname(), command, startedAt: new Date().toISOString() }
      return attempt(lockPath, dataDir, me).pipe(
        Effect.retry({
          schedule: Schedule.spaced(Duration.millis(100)).pipe(Schedule.upTo(EXITING_GRACE)),
          while: (error) => error._tag === "Held"
        }),
        Effect.catchTag("Held", (held) => Effect.fail(new DatabaseLocked({ message: held.message })))
      )
    }),
    () =>
      Effect.sync(() => {
        if (readHolder(lockPath)?.pid === process.pid) fs.rmSync(lockPath, { force: true })
      })
  )
