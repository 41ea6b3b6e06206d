import { Command } from "@effect/platform"
import { Effect, Fiber, Queue, Ref, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { BatchInput, RawLine, Runtime, RuntimeOutput } from "./Runtime.js"
import { RuntimeFailed } from "./Runtime.js"

/**
 * Runtime A, Claude Code: one subprocess per batch in print mode with stream-json in and out
 * (RUNTIMES.md §2). A new thread gets a session id chosen here; later batches resume it.
 * `result.is_error` — not `subtype` — says whether the batch failed.
 */

const STDERR_KEPT = 64 * 1024

export const claudeArguments = (input: BatchInput, sessionId: string): ReadonlyArray<string> => [
  "-p",
  "--input-format", "stream-json",
  "--output-format", "stream-json",
  "--verbose",
  ...(input.runtimeSessionId === null ? ["--session-id", sessionId] : ["--resume", input.runtimeSessionId]),
  ...(input.model === null ? [] : ["--model", input.model]),
  ...(input.effort === null ? [] : ["--effort", input.effort]),
  ...(input.mode === "plan" ? ["--permission-mode", "plan"] : []),
  ...(input.agentPrompt === null || input.agentPrompt === "" ? [] : ["--append-system-prompt", input.agentPrompt]),
  "--mcp-config",
  JSON.stringify({
    mcpServers: {
      trellis: { type: "http", url: input.mcp.url, headers: { Authorization: `Bearer ${input.mcp.apiKey}` } }
    }
  })
]

/** A user turn in stream-json input. */
const userTurn = (text: string): string =>
  JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text }] } }) + "\n"

interface ParsedLine {
  readonly type: string
  readonly sessionId: string | undefined
  readonly failure: string | undefined
  readonly isResult: boolean
}

const parseLine = (line: string): ParsedLine => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { type: "unparsed", sessionId: undefined, failure: undefined, isResult: false }
  }
  if (typeof value !== "object" || value === null) return { type: "unparsed", sessionId: undefined, failure: undefined, isResult: false }
  const type = Reflect.get(value, "type")
  const sessionId = Reflect.get(value, "session_id")
  const isResult = type === "result"
  const result = Reflect.get(value, "result")
  return {
    type: typeof type === "string" ? type : "unparsed",
    sessionId: typeof sessionId === "string" ? sessionId : undefined,
    failure: isResult && Reflect.get(value, "is_error") === true ? (typeof result === "string" && result !== "" ? result : "Claude reported an error") : undefined,
    isResult
  }
}

export const ClaudeCode: Runtime = {
  cliType: "claude",
  transport: "stream-json",
  run: (input) =>
    Stream.unwrapScoped(Effect.gen(function* () {
      const sessionId = input.runtimeSessionId ?? randomUUID()
      const command = Command.make("claude", ...claudeArguments(input, sessionId)).pipe(
        Command.workingDirectory(input.cwd),
        Command.env({ TRELLIS_THREAD_ID: input.threadId }),
        Command.stdin("pipe")
      )
      const process = yield* Command.start(command).pipe(
        Effect.mapError((error) => new RuntimeFailed({ message: `Cannot start claude: ${error.message}`, stderr: "" }))
      )
      // stdin stays open until the result, so control responses can still be written (permissions).
      const stdin = yield* Queue.unbounded<string>()
      yield* Queue.offerAll(stdin, input.messages.map((m) => userTurn(m.content)))
      yield* Stream.fromQueue(stdin).pipe(Stream.encodeText, Stream.run(process.stdin), Effect.ignore, Effect.forkScoped)
      const stderr = yield* process.stderr.pipe(
        Stream.decodeText(),
        Stream.runFold("", (kept, piece) => (kept + piece).slice(-STDERR_KEPT)),
        Effect.orElseSucceed(() => ""),
        Effect.forkScoped
      )
      const failure = yield* Ref.make<string | undefined>(undefined)

      const outputs = process.stdout.pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.filter((line) => line.trim() !== ""),
        Stream.mapConcatEffect((data) =>
          Effect.gen(function* () {
            const parsed = parseLine(data)
            if (parsed.failure !== undefined) yield* Ref.set(failure, parsed.failure)
            if (parsed.isResult) yield* Queue.shutdown(stdin)
            const line: RawLine = { type: parsed.type, data }
            const out: Array<RuntimeOutput> = [{ _tag: "Line", line }]
            if (parsed.sessionId !== undefined) out.push({ _tag: "SessionId", id: parsed.sessionId })
            return out
          })
        ),
        Stream.mapError((error) => new RuntimeFailed({ message: `Reading claude's output failed: ${String(error)}`, stderr: "" }))
      )

      const ending = Effect.gen(function* () {
        yield* Queue.shutdown(stdin)
        const exitCode = yield* process.exitCode.pipe(Effect.orElseSucceed(() => -1))
        const errors = yield* Fiber.join(stderr)
        const reported = yield* Ref.get(failure)
        if (reported !== undefined) return yield* new RuntimeFailed({ message: reported, stderr: errors })
        if (exitCode !== 0) return yield* new RuntimeFailed({ message: `claude exited with code ${exitCode}`, stderr: errors })
      })
      return Stream.concat(outputs, Stream.drain(Stream.fromEffect(ending)))
    }))
}
