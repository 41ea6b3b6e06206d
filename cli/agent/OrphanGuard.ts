import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Duration, Effect, Layer, Option, Schedule } from "effect"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { Socket } from "node:net"
import { escapedGroups, livingGroups, processesMarked, signalEscaped, signalGroups, signalProcesses } from "./ProcessTree.js"

/**
 * Runtimes never outlive the agent, even a SIGKILLed one. Each process the agent starts runs in
 * its own process group (so a batch's end can kill the runtime's whole tree), which also means
 * nothing kills it when the agent dies. A tiny watcher — a POSIX shell, no native module,
 * started in a session of its own so a signal to the agent's group does not reach it — is told
 * the process group of every child as it starts and ends. The agent holds the write end of its
 * stdin; when the agent dies, however it dies, the kernel closes it, the watcher reads EOF and
 * kills the groups still listed (SIGTERM, SIGKILL two seconds later).
 *
 * A group is not enough: a runtime may start a tool command in a session of its own (Claude
 * Code's Bash tool does), and a SIGKILLed agent cannot look for it first. So every process the
 * agent starts carries a mark in its environment, which whatever it starts inherits whatever it
 * does with sessions and groups; on EOF the watcher also ends every process that bears the mark
 * (Linux: /proc/<pid>/environ; a process that drops its environment escapes it).
 */

export const MARK_VARIABLE = "TRELLIS_AGENT_MARK"

/**
 * Each process the agent starts also carries a mark of its own. A runtime that exits on its own
 * may leave a tool command behind in a session of its own (Codex, told to interrupt a turn while
 * the command's sandbox was starting, ended the turn and exited with `sleep` still running): it is
 * no longer the runtime's descendant, but it still bears the runtime's mark.
 */
export const PROCESS_MARK_VARIABLE = "TRELLIS_PROCESS_MARK"

const WATCHER = `
trap '' INT HUP
mark="$1"
groups=""
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups \${line#+}" ;;
    -*) gone=\${line#-}; kept=""; for g in $groups; do [ "$g" = "$gone" ] || kept="$kept $g"; done; groups=$kept ;;
  esac
done
marked() {
  [ -d /proc/self ] || return 0
  grep -lzx "${MARK_VARIABLE}=$mark" /proc/[0-9]*/environ 2>/dev/null | while IFS=/ read -r _ _ pid _; do echo "$pid"; done
}
pids=$(marked)
[ -z "$groups" ] && [ -z "$pids" ] && exit 0
for g in $groups; do kill -TERM -"$g" 2>/dev/null; done
for p in $pids; do kill -TERM "$p" 2>/dev/null; done
sleep 2
for g in $groups; do kill -KILL -"$g" 2>/dev/null; done
for p in $(marked); do kill -KILL "$p" 2>/dev/null; done
exit 0
`

/** Starts the watcher; its `tell` writes one line to it (a watcher gone already is ignored). */
const startWatcher = (mark: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const watcher = spawn("/bin/sh", ["-c", WATCHER, "trellis-orphan-guard", mark], {
        stdio: ["pipe", "ignore", "ignore"],
        detached: true
      })
      watcher.on("error", () => {})
      watcher.stdin.on("error", () => {})
      // Neither the watcher nor its pipe keeps the agent running.
      watcher.unref()
      if (watcher.stdin instanceof Socket) watcher.stdin.unref()
      return watcher
    }),
    (watcher) => Effect.sync(() => watcher.stdin.end())
  ).pipe(Effect.map((watcher) => ({ tell: (line: string) => Effect.sync(() => void watcher.stdin.write(`${line}\n`)) })))

/** The runtimes running now, for `stopEscapedNow` (the process exits without running finalizers). */
const running = new Set<number>()

/** Stops the tool commands every running runtime started in a session of its own: before `process.exit`. */
export const stopEscapedNow = (): void => {
  for (const pid of running) signalEscaped(pid, "SIGTERM")
}

/** How long a process's tree has to exit after SIGTERM before what is left of it is SIGKILLed. */
const KILL_GRACE = Duration.seconds(2)

/** Waits, on the live schedule and interruptibly, until `gone` holds or `limit` has passed. */
const waitUntilGone = (gone: () => boolean, limit: Duration.Duration) =>
  Effect.sync(gone).pipe(
    Effect.repeat({ until: (done) => done, schedule: Schedule.spaced(Duration.millis(50)) }),
    Effect.interruptible,
    Effect.timeout(limit),
    Effect.ignore
  )

/**
 * Stops a process the scope still runs, with its whole tree: its group and the groups its tool
 * commands escaped to (found now, while they are still its descendants) get SIGTERM, and whatever
 * is left of them after KILL_GRACE gets SIGKILL. Bounded, unlike the platform's own stop, which
 * waits for the exit however long it takes; the waits are interruptible for their timeouts to hold
 * in this finalizer.
 */
const stopTree = (process: CommandExecutor.Process) =>
  Effect.gen(function*() {
    const escaped = escapedGroups(process.pid)
    signalGroups(escaped, "SIGTERM")
    const exited = yield* process.kill("SIGTERM").pipe(Effect.interruptible, Effect.timeout(KILL_GRACE), Effect.option)
    if (Option.isNone(exited)) yield* process.kill("SIGKILL").pipe(Effect.interruptible, Effect.timeout(KILL_GRACE), Effect.ignore)
    yield* waitUntilGone(() => livingGroups(escaped).length === 0, Option.isNone(exited) ? Duration.zero : KILL_GRACE)
    signalGroups(livingGroups(escaped), "SIGKILL")
  })

/** Ends what is left of a process that has exited: whatever bears its mark (SIGTERM, SIGKILL after KILL_GRACE). */
const stopLeftovers = (mark: string) =>
  Effect.gen(function*() {
    const left = processesMarked(PROCESS_MARK_VARIABLE, mark)
    if (left.length === 0) return
    signalProcesses(left, "SIGTERM")
    yield* waitUntilGone(() => processesMarked(PROCESS_MARK_VARIABLE, mark).length === 0, KILL_GRACE)
    signalProcesses(processesMarked(PROCESS_MARK_VARIABLE, mark), "SIGKILL")
  })

/**
 * The CommandExecutor of `trellis agent start`: the platform's, with every process it starts
 * marked, stopped with its whole tree when its scope ends (and what it left behind, if it ended
 * first), and listed with the watcher until then.
 */
export const OrphanGuard: Layer.Layer<CommandExecutor.CommandExecutor, never, CommandExecutor.CommandExecutor> = Layer.scoped(
  CommandExecutor.CommandExecutor,
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    if (process.platform === "win32") return executor
    const mark = randomBytes(12).toString("hex")
    const watcher = yield* startWatcher(mark)
    return CommandExecutor.makeExecutor((command) =>
      Effect.gen(function*() {
        let group: number | undefined
        // Added before the process starts, this finalizer runs after the one that stops it.
        yield* Effect.addFinalizer(() => (group === undefined ? Effect.void : watcher.tell(`-${group}`)))
        const own = randomBytes(12).toString("hex")
        const started = yield* executor.start(Command.env(command, { [MARK_VARIABLE]: mark, [PROCESS_MARK_VARIABLE]: own }))
        group = started.pid
        yield* watcher.tell(`+${group}`)
        // Runs before the platform's finalizer, which then finds the process gone: tool commands
        // the runtime started in a session of their own are still its descendants here, and are
        // stopped with it.
        const pid = started.pid
        running.add(pid)
        yield* Effect.addFinalizer(() =>
          Effect.flatMap(started.isRunning, (live) => (live ? stopTree(started) : Effect.void)).pipe(
            Effect.ignore,
            Effect.zipRight(stopLeftovers(own)),
            Effect.ensuring(Effect.sync(() => running.delete(pid)))
          )
        )
        return started
      })
    )
  })
)
