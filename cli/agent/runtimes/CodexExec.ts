import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Effect, Fiber, Ref, Stream } from "effect"
import type { BatchInput, RuntimeOutput } from "./Runtime.js"
import { MCP_TOKEN_VARIABLE, outputLines, resumeOrStartFresh, type Runtime, RuntimeFailed, SessionGone, startRuntime } from "./Runtime.js"

/**
 * Runtime B with `trellis agent start --codex-exec`: one `codex exec --json` run per batch, or
 * `codex exec resume --json <id>` once the thread has a session (RUNTIMES.md §3.2). Exec has no
 * interactive approvals (commands run in the workspace-write sandbox), hides API retries and
 * sends slash commands to the model as text. A `turn.failed` line or a non-zero exit fails the batch.
 */

/** `-c key=value` overrides; values are TOML (a JSON string is a TOML basic string). */
const config = (input: BatchInput): ReadonlyArray<string> => [
  "-c",
  `sandbox_mode=${JSON.stringify("workspace-write")}`,
  "-c",
  `mcp_servers.trellis.url=${JSON.stringify(input.mcp.url)}`,
  "-c",
  `mcp_servers.trellis.bearer_token_env_var=${JSON.stringify(MCP_TOKEN_VARIABLE)}`,
  ...(input.effort === null ? [] : ["-c", `model_reasoning_effort=${JSON.stringify(input.effort)}`]),
  ...(input.agentPrompt === null || input.agentPrompt === "" ? [] : ["-c", `developer_instructions=${JSON.stringify(input.agentPrompt)}`])
]

export const codexExecArguments = (input: BatchInput, prompt: string): ReadonlyArray<string> => [
  "exec",
  ...(input.runtimeSessionId === null ? [] : ["resume"]),
  "--json",
  "--skip-git-repo-check",
  ...(input.model === null ? [] : ["-m", input.model]),
  ...config(input),
  ...(input.runtimeSessionId === null ? [] : [input.runtimeSessionId]),
  prompt
]

/** How `codex exec resume` says it no longer has the session ("thread/resume failed: no rollout found…"). */
const SESSION_GONE = /no rollout found|thread\/resume failed/i

const record = (
  value: unknown
): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

/** One `codex exec` process for the batch. */
const runExec = (input: BatchInput) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const prompt = input.messages.map((message) => message.content).join("\n\n")
    // An empty stdin: a piped one that stays open would be read as more prompt.
    const { process, stderr } = yield* startRuntime(
      "codex exec",
      Command.make("codex", ...codexExecArguments(input, prompt)).pipe(Command.feed("")),
      input
    )
    const failure = yield* Ref.make<string | undefined>(undefined)
    const outputs = outputLines(process.stdout).pipe(
      Stream.mapConcatEffect((data) =>
        Effect.gen(function*() {
          let parsed: unknown
          try {
            parsed = JSON.parse(data)
          } catch {
            return [{ _tag: "Line", line: { type: "unparsed", data } }] satisfies ReadonlyArray<RuntimeOutput>
          }
          const line = record(parsed)
          const type = typeof line["type"] === "string" ? line["type"] : "unparsed"
          if (type === "turn.failed") yield* Ref.set(failure, String(record(line["error"])["message"] ?? "the turn failed"))
          const out: Array<RuntimeOutput> = [{ _tag: "Line", line: { type, data } }]
          if (type === "thread.started" && typeof line["thread_id"] === "string") out.push({ _tag: "SessionId", id: line["thread_id"] })
          return out
        })
      ),
      Stream.mapError((error) => new RuntimeFailed({ message: `Reading codex's output failed: ${String(error)}`, stderr: "" }))
    )
    const ending = Effect.gen(function*() {
      const exitCode = yield* process.exitCode.pipe(Effect.orElseSucceed(() => -1))
      const errors = yield* Fiber.join(stderr)
      const reported = yield* Ref.get(failure)
      if (input.runtimeSessionId !== null && exitCode !== 0 && SESSION_GONE.test(errors)) {
        return yield* new SessionGone({ sessionId: input.runtimeSessionId })
      }
      if (reported !== undefined) return yield* new RuntimeFailed({ message: reported, stderr: errors })
      if (exitCode !== 0) return yield* new RuntimeFailed({ message: `codex exec exited with code ${exitCode}`, stderr: errors })
    })
    // exec has no interrupt: a stop ends the process (the batch's scope kills its group).
    return Stream.concat(outputs, Stream.drain(Stream.fromEffect(ending))).pipe(Stream.interruptWhen(input.stopRequested))
  }))

export const CodexExec: Runtime = {
  cliType: "codex",
  transport: "exec",
  run: (input): Stream.Stream<RuntimeOutput, RuntimeFailed, CommandExecutor.CommandExecutor> => resumeOrStartFresh("codex", input, runExec)
}
