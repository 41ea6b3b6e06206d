import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Console, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as os from "node:os"
import { CliProfileId } from "../../catalog/domain/Ids.js"
import { runAgent } from "./AgentLoop.js"
import { stopWithLauncher } from "./StopWithLauncher.js"
import { AgentStatus, type LogFormat, makeAgentLog } from "./AgentLog.js"
import { Git } from "./Git.js"
import { Journal } from "./Journal.js"
import { OrphanGuard, stopEscapedNow } from "./OrphanGuard.js"
import { agentProfileCommands } from "./ProfileCommands.js"
import { ApprovalPolicy } from "./ApprovalPolicy.js"
import { maskApiKey, Profiles } from "./Profiles.js"
import { machineId } from "./MachineId.js"
import { makeOpenCode } from "./runtimes/OpenCode.js"
import { makeOpenCodeServers } from "./runtimes/OpenCodeServer.js"
import { detectRuntimes, runtimeFor } from "./runtimes/Registry.js"
import { withModels } from "./RuntimeModels.js"
import { worktreesCommand } from "./WorktreeCommands.js"

const profileOption = Options.text("profile").pipe(
  Options.withDescription("The profile to use (else TRELLIS_PROFILE, the profile of the current directory, the default)"),
  Options.optional
)

/**
 * A second SIGINT/SIGTERM while shutting down exits at once. Signals within a quarter second of
 * the previous one are the same request: Ctrl-C reaches both this process and the launcher of
 * cli/bin.js (one process group), which forwards it too.
 */
const SAME_SIGNAL_MS = 250
const exitOnSecondSignal = Effect.acquireRelease(
  Effect.sync(() => {
    let first: number | undefined
    const onSignal = () => {
      const now = Date.now()
      if (first === undefined) first = now
      else if (now - first > SAME_SIGNAL_MS) {
        stopEscapedNow()
        process.exit(130)
      }
    }
    process.on("SIGINT", onSignal)
    process.on("SIGTERM", onSignal)
    return onSignal
  }),
  (onSignal) =>
    Effect.sync(() => {
      process.off("SIGINT", onSignal)
      process.off("SIGTERM", onSignal)
    })
)

const start = Command.make("start", {
  profile: profileOption,
  maxConcurrent: Options.integer("max-concurrent").pipe(
    Options.withSchema(Schema.Int.pipe(Schema.between(1, 32))),
    Options.withDefault(2),
    Options.withDescription("How many threads run at once")
  ),
  codexExec: Options.boolean("codex-exec").pipe(
    Options.withDescription("Run Codex threads with `codex exec --json` instead of the app-server")
  ),
  force: Options.boolean("force").pipe(Options.withDescription("Take over the profile from another live CLI session")),
  approve: Options.choice("approve", ApprovalPolicy.literals).pipe(
    Options.withDefault("none"),
    Options.withDescription(
      "Permission requests this machine answers itself: none (ask a person through Trellis), read-only (allow tools that only read), all"
    )
  ),
  interactionTimeout: Options.integer("interaction-timeout").pipe(
    Options.withSchema(Schema.Int.pipe(Schema.between(1, 7 * 24 * 3600))),
    Options.withDefault(10 * 3600),
    Options.withDescription("Seconds a permission request or question waits for an answer before it expires (default 10 hours)")
  ),
  logFormat: Options.choice("log-format", ["json", "pretty"]).pipe(
    Options.withDescription("json: one JSON object per line (the default when stdout is not a terminal)"),
    Options.optional
  )
}, (args) =>
  Effect.gen(function*() {
    const profiles = yield* Profiles
    const path = yield* Path.Path
    const { name, profile } = yield* profiles.resolve(args.profile, process.cwd())
    const format: LogFormat = Option.getOrElse(args.logFormat, () => (process.stdout.isTTY ? "pretty" : "json"))
    const log = makeAgentLog(format, { live: process.stdout.isTTY === true })
    const configDir = path.dirname(profiles.file)
    // Detected once per process: a registration after an expired session sends the same.
    const availableClis = yield* Effect.flatMap(detectRuntimes, (detected) => withModels(detected))
    yield* log.info(
      `profile ${name}: ${profile.server}, project ${profile.projectRef ?? profile.projectId}, key ${
        maskApiKey(profile.apiKey)
      }; runtimes: ${availableClis.map((cli) => `${cli.type} ${cli.version}`).join(", ") || "none found"}`
    )
    yield* exitOnSecondSignal
    yield* stopWithLauncher
    const openCode = makeOpenCode(yield* makeOpenCodeServers)
    return yield* runAgent({
      profileName: name,
      server: profile.server,
      apiKey: Redacted.value(profile.apiKey),
      projectId: profile.projectId,
      machineName: profile.machineName,
      hostname: os.hostname(),
      machineId: yield* machineId(configDir),
      profileId: profile.profileId,
      paths: profile.paths.filter((p) => p.kind === "checkout").map(({ branch, gitRemoteUrl, label, path }) => ({
        path,
        label,
        gitRemoteUrl,
        branch
      })),
      availableClis,
      runtimeFor: (cliType) => runtimeFor(cliType, { codexExec: args.codexExec, openCode }),
      approve: args.approve,
      interactionTimeoutMs: args.interactionTimeout * 1000,
      maxConcurrent: args.maxConcurrent,
      force: args.force,
      stateDir: path.join(configDir, "state"),
      log,
      rememberProfileId: (profileId) =>
        Schema.decodeUnknown(CliProfileId)(profileId).pipe(
          Effect.flatMap((id) => profiles.setProfileId(name, id)),
          Effect.catchAll((error) => log.warn(`could not save the profile ID: ${error.message}`))
        )
    }).pipe(Effect.provide(Layer.mergeAll(Journal.Default(path.join(configDir, "journal")), Git.Default, NodeHttpClient.layerUndici)))
  }).pipe(
    Effect.scoped,
    // Around everything that starts a process, the shared opencode serve included: the watcher
    // outlives the scope above, so it still lists the server while the scope stops it.
    Effect.provide(OrphanGuard),
    Effect.catchAll((error) =>
      Effect.zipRight(
        Console.error(`error: ${error.message}`),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    ),
    Effect.provide(Profiles.Default)
  )).pipe(Command.withDescription("Run the bridge: register, heartbeat, claim threads and run them with the local runtimes"))

const StatusFile = Schema.parseJson(AgentStatus)

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const status = Command.make("status", {
  profile: profileOption,
  json: Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON"))
}, (args) =>
  Effect.gen(function*() {
    const profiles = yield* Profiles
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const { name, profile } = yield* profiles.resolve(args.profile, process.cwd())
    const file = path.join(path.dirname(profiles.file), "state", `${name}.status.json`)
    const saved = yield* fs.readFileString(file).pipe(Effect.flatMap(Schema.decodeUnknown(StatusFile)), Effect.option)
    const running = Option.filter(saved, (s) => isAlive(s.pid))
    const now = Date.now()
    const summary = {
      profile: name,
      server: profile.server,
      project: profile.projectRef ?? profile.projectId,
      running: Option.isSome(running),
      ...Option.match(running, {
        onNone: () => ({}),
        onSome: (s) => ({
          pid: s.pid,
          sessionId: s.sessionId,
          connection: s.connection,
          lastHeartbeatAt: s.lastHeartbeatAt,
          threads: s.threads.map((t) => ({ ...t, elapsedSeconds: Math.round((now - Date.parse(t.startedAt)) / 1000) }))
        })
      })
    }
    if (args.json) return yield* Console.log(JSON.stringify(summary, null, 2))
    yield* Console.log(`profile ${name}: ${profile.server}, project ${summary.project}`)
    if (Option.isNone(running)) return yield* Console.log("not running (start it with `trellis agent start`)")
    const s = running.value
    yield* Console.log(`running as pid ${s.pid}, session ${s.sessionId} (${s.connection}), last heartbeat ${s.lastHeartbeatAt ?? "never"}`)
    if (s.threads.length === 0) return yield* Console.log("no thread running")
    for (const t of summary.threads ?? []) yield* Console.log(`  ${t.threadId}  ${t.elapsedSeconds}s  ${t.events} events`)
  }).pipe(
    Effect.catchAll((error) =>
      Effect.zipRight(
        Console.error(`error: ${error.message}`),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    ),
    Effect.provide(Profiles.Default)
  )).pipe(Command.withDescription("Show the profile, its running bridge session and the threads it runs"))

export const agent = Command.make("agent").pipe(
  Command.withDescription("The local CLI bridge: profiles, checkouts, and the runner that executes threads"),
  Command.withSubcommands([start, status, ...agentProfileCommands, worktreesCommand])
)
