import * as Command from "@effect/platform/Command"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { OrphanGuard } from "../../../cli/agent/OrphanGuard.js"
import { isAlive, until } from "./ProcessProbes.js"

/**
 * A runtime stand-in that starts a tool command in a session of its own and exits at once, leaving
 * it behind (as Codex did when a stop reached it while the command's sandbox was starting). The
 * command's pid, once the stand-in has exited.
 */
const leaveCommandBehind = (seconds: number, command = `sleep ${seconds}`) =>
  Effect.gen(function*() {
    const runtime = yield* Command.start(Command.make("/bin/sh", "-c", `setsid ${command} </dev/null >/dev/null 2>&1 & echo $!`))
    const printed = yield* runtime.stdout.pipe(Stream.decodeText(), Stream.runFold("", (all, piece) => all + piece))
    yield* runtime.exitCode
    return Number(printed.trim())
  })

/** Whatever a test left running is killed when the test ends, in the test's own scope (not the runtime's). */
const killedAtTheEnd = (pid: number) =>
  Effect.as(Effect.addFinalizer(() => Effect.sync(() => isAlive(pid) && process.kill(pid, "SIGKILL"))), pid)

const Guarded = OrphanGuard.pipe(Layer.provide(NodeContext.layer))

// Live: the guard waits on the real clock for a leftover to die (the test clock would never move).
describe("runtimes never outlive their batch", () => {
  it.scopedLive("a tool command a runtime left behind after it exited on its own is ended with the runtime's scope", () =>
    Effect.gen(function*() {
      const left = yield* Effect.scoped(Effect.gen(function*() {
        const pid = yield* leaveCommandBehind(307)
        expect(isAlive(pid)).toBe(true)
        return pid
      })).pipe(Effect.flatMap(killedAtTheEnd))
      expect(yield* until(() => isAlive(left), (alive) => !alive)).toBe(false)
    }).pipe(Effect.provide(Guarded)))

  it.scopedLive("what another runtime left is its own: a runtime's scope ending spares the commands of runtimes still running", () =>
    Effect.gen(function*() {
      const other = yield* Effect.flatMap(leaveCommandBehind(308), killedAtTheEnd)
      const ended = yield* Effect.flatMap(Effect.scoped(leaveCommandBehind(309)), killedAtTheEnd)
      expect(yield* until(() => isAlive(ended), (alive) => !alive)).toBe(false)
      expect(isAlive(other)).toBe(true)
    }).pipe(Effect.provide(Guarded)))

  it.scopedLive("a leftover that ignores SIGTERM is killed two seconds later", () =>
    Effect.gen(function*() {
      const stubborn = yield* Effect.flatMap(
        Effect.scoped(leaveCommandBehind(310, `sh -c 'trap "" TERM; exec sleep 310'`)),
        killedAtTheEnd
      )
      expect(yield* until(() => isAlive(stubborn), (alive) => !alive)).toBe(false)
    }).pipe(Effect.provide(Guarded)))
})
