import * as Command from "@effect/platform/Command"
import { Duration, Effect, Option, Stream } from "effect"
import type { AvailableCli } from "../../../catalog/domain/CliProfile.js"
import type { CliType } from "../../../catalog/domain/CliType.js"
import { ClaudeCode } from "./ClaudeCode.js"
import { CodexAppServer } from "./CodexAppServer.js"
import { CodexExec } from "./CodexExec.js"
import type { Runtime } from "./Runtime.js"

/**
 * The runtimes this CLI can run, and the ones installed on this machine. A thread whose runtime
 * has no adapter here fails its batch at once with "execution is not implemented for <slug>".
 */

const adapters: ReadonlyArray<Runtime> = [ClaudeCode, CodexAppServer, CodexExec]

export interface RuntimeChoices {
  /** Codex threads run with `codex exec --json` instead of the app-server. */
  readonly codexExec: boolean
  /** OpenCode on the CLI process's one server (makeOpenCode). */
  readonly openCode: Runtime
}

export const runtimeFor = (cliType: string, choices: RuntimeChoices): Runtime | undefined =>
  [...adapters, choices.openCode].find((runtime) =>
    runtime.cliType === cliType && (runtime.cliType !== "codex" || (runtime.transport === "exec") === choices.codexExec)
  )

/** Each runtime's binary and how it prints its version. */
const binaries: ReadonlyArray<{ readonly type: CliType; readonly command: string }> = [
  { type: "claude", command: "claude" },
  { type: "codex", command: "codex" },
  { type: "opencode", command: "opencode" },
  { type: "gemini", command: "gemini" }
]

const versionOf = (command: string) =>
  Effect.scoped(Effect.gen(function*() {
    const process = yield* Command.start(Command.make(command, "--version"))
    const [output, exitCode] = yield* Effect.all([process.stdout.pipe(Stream.decodeText(), Stream.mkString), process.exitCode], {
      concurrency: 2
    })
    const version = /\d+\.\d+(\.\d+)?([-+][\w.]+)?/.exec(output)?.[0]
    return exitCode === 0 && version !== undefined ? Option.some(version) : Option.none()
  })).pipe(Effect.timeout(Duration.seconds(10)), Effect.orElseSucceed(() => Option.none<string>()))

/** Runs each runtime's version command; those that answer are available. */
export const detectRuntimes = Effect.gen(function*() {
  const found = yield* Effect.forEach(
    binaries,
    (binary) => Effect.map(versionOf(binary.command), Option.map((version): AvailableCli => ({ type: binary.type, version }))),
    { concurrency: "unbounded" }
  )
  return found.flatMap((cli) => (Option.isSome(cli) ? [cli.value] : []))
})
