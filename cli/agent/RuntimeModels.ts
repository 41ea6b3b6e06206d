import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { PlatformError } from "@effect/platform/Error"
import { Duration, Effect, Option, Queue, Schema, Stream } from "effect"
import type { AvailableCli, CliModel as CliModelSchema } from "../../catalog/domain/CliProfile.js"
import type { CliType } from "../../catalog/domain/CliType.js"

/**
 * The models (and their reasoning efforts) each detected runtime offers, sent at registration
 * where the runtime can list them: Codex answers `model/list` on its app-server, OpenCode prints
 * them with `opencode models --verbose` (a model's variants are its efforts). Claude Code lists
 * nothing: it gets its documented aliases (docs/decisions.md). Each listing is bounded in time —
 * a runtime that is slow or fails registers without models — and runs once per process.
 */

type CliModel = typeof CliModelSchema.Type

/** Past this, a runtime registers without its models. */
export const MODEL_LIST_TIMEOUT = Duration.seconds(5)
/** A registration carries at most this many models per runtime. */
const MAX_MODELS = 200

/** Claude Code's model aliases (each follows the newest model of its family). */
export const CLAUDE_ALIASES: ReadonlyArray<CliModel> = [{ model: "sonnet" }, { model: "opus" }, { model: "haiku" }]

const withEfforts = (model: string, efforts: ReadonlyArray<string>): CliModel => efforts.length === 0 ? { model } : { model, efforts }

// ---- Codex: the app-server's model/list ---------------------------------------------------------

const MODEL_LIST_ID = 2
const codexRequests = [
  { id: 1, method: "initialize", params: { clientInfo: { name: "trellis", title: "Trellis", version: "1" }, capabilities: null } },
  { method: "initialized" },
  { id: MODEL_LIST_ID, method: "model/list", params: { limit: MAX_MODELS } }
].map((request) => `${JSON.stringify(request)}\n`).join("")

const CodexModelList = Schema.parseJson(Schema.Struct({
  id: Schema.Literal(MODEL_LIST_ID),
  result: Schema.Struct({
    data: Schema.Array(Schema.Struct({
      model: Schema.String,
      supportedReasoningEfforts: Schema.Array(Schema.Struct({ reasoningEffort: Schema.String }))
    }))
  })
}))
const decodeCodexModelList = Schema.decodeUnknownOption(CodexModelList)

const codexModels: Lister = Effect.scoped(Effect.gen(function*() {
  const process = yield* Command.start(Command.make("codex", "app-server").pipe(Command.stdin("pipe")))
  // stdin stays open until the answer is read: the app-server stops at its end.
  const stdin = yield* Effect.acquireRelease(Queue.unbounded<string>(), Queue.shutdown)
  yield* Queue.offer(stdin, codexRequests)
  yield* Stream.fromQueue(stdin).pipe(Stream.encodeText, Stream.run(process.stdin), Effect.ignore, Effect.forkScoped)
  const answer = yield* process.stdout.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.filterMap(decodeCodexModelList),
    Stream.runHead
  )
  return Option.match(answer, {
    onNone: () => [],
    onSome: ({ result }) => result.data.map((m) => withEfforts(m.model, m.supportedReasoningEfforts.map((e) => e.reasoningEffort)))
  })
}))

// ---- OpenCode: `opencode models --verbose` --------------------------------------------------------

const MODEL_NAME = /^\S+\/\S+$/
const OpenCodeModel = Schema.parseJson(
  Schema.Struct({ variants: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })) })
)
const decodeOpenCodeModel = Schema.decodeUnknownOption(OpenCodeModel)

/** Each model is its `provider/model` line, then its details as indented JSON. */
export const parseOpenCodeModels = (output: string): ReadonlyArray<CliModel> => {
  const models: Array<CliModel> = []
  for (const block of output.split(/^(?=\S+\/\S+$)/m)) {
    const newline = block.indexOf("\n")
    const name = (newline === -1 ? block : block.slice(0, newline)).trim()
    if (!MODEL_NAME.test(name)) continue
    const details = decodeOpenCodeModel(newline === -1 ? "" : block.slice(newline + 1))
    models.push(withEfforts(name, Option.match(details, { onNone: () => [], onSome: (d) => Object.keys(d.variants ?? {}) })))
  }
  return models
}

const openCodeModels: Lister = Effect.scoped(Effect.gen(function*() {
  const process = yield* Command.start(Command.make("opencode", "models", "--verbose"))
  const [output, exitCode] = yield* Effect.all([process.stdout.pipe(Stream.decodeText(), Stream.mkString), process.exitCode], {
    concurrency: 2
  })
  return exitCode === 0 ? parseOpenCodeModels(output) : []
}))

// ---- all runtimes -----------------------------------------------------------------------------------

type Lister = Effect.Effect<ReadonlyArray<CliModel>, PlatformError, CommandExecutor.CommandExecutor>

const listers: Partial<Record<CliType, Lister>> = {
  claude: Effect.succeed(CLAUDE_ALIASES),
  codex: codexModels,
  opencode: openCodeModels
}

/** The detected runtimes with the models each lists within `timeout` (unchanged when it lists none). */
export const withModels = (clis: ReadonlyArray<AvailableCli>, timeout: Duration.DurationInput = MODEL_LIST_TIMEOUT) =>
  Effect.forEach(clis, (cli) => {
    const lister = listers[cli.type]
    if (lister === undefined) return Effect.succeed(cli)
    return lister.pipe(
      Effect.timeout(timeout),
      Effect.option,
      Effect.map((models): AvailableCli => {
        const listed = Option.getOrElse(models, () => [])
        return listed.length === 0 ? cli : { ...cli, cliModels: listed.slice(0, MAX_MODELS) }
      })
    )
  }, { concurrency: "unbounded" })
