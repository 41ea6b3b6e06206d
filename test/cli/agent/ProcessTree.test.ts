import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { escapedGroups, signalEscaped } from "../../../cli/agent/ProcessTree.js"
import { isAlive, until } from "./ProcessProbes.js"

/** A runtime stand-in in its own group, whose child moved to a session (and group) of its own, as Claude Code's Bash tool does. */
const runtimeWithEscapedChild = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly runtime: number; readonly escaped: number }>((resolve, reject) => {
      const child = spawn("/bin/sh", ["-c", "setsid sleep 300 & echo $!; wait"], { detached: true, stdio: ["ignore", "pipe", "ignore"] })
      child.once("error", reject)
      child.stdout.setEncoding("utf8").once("data", (line: string) => resolve({ runtime: child.pid ?? 0, escaped: Number(line.trim()) }))
    })
  ),
  ({ escaped, runtime }) =>
    Effect.sync(() => {
      for (const target of [-runtime, escaped]) {
        try {
          process.kill(target, "SIGKILL")
        } catch {
          // Gone already.
        }
      }
    })
)

describe("a runtime's process tree", () => {
  it.scoped("a descendant in a group of its own is found, and signalled through its group", () =>
    Effect.gen(function*() {
      const { escaped, runtime } = yield* runtimeWithEscapedChild
      // The background job calls setsid(2) a moment after `$!` is printed: wait for it.
      const groups = yield* until(() => escapedGroups(runtime), (found) => found.length > 0)
      expect(groups).toEqual([escaped])
      signalEscaped(runtime, "SIGKILL")
      expect(yield* until(() => isAlive(escaped) && escapedGroups(runtime).length > 0, (alive) => !alive)).toBe(false)
    }))
})
