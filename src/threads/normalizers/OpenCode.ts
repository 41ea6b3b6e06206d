import {
  type ChunkNormalizer,
  defined,
  isObject,
  type Json,
  type LineResult,
  lineNormalizer,
  misread,
  num,
  obj,
  str,
  stringify
} from "./LineNormalizer.js"

/**
 * Runtime C: OpenCode. The bridge drives `opencode serve` and uploads each SSE event
 * `{type, properties}` with its `type` as chunk type; `opencode run --format json` lines
 * (`step_start`, `text`, `tool_use`, `step_finish`, `error`) are read by the second normalizer.
 * Both carry the same message parts (RUNTIMES §4).
 */

export const normalizeOpenCodeServerChunk: ChunkNormalizer = lineNormalizer((type, event) => serverEvent(type, obj(event["properties"])))

export const normalizeOpenCodeRunChunk: ChunkNormalizer = lineNormalizer((type, line) => runLine(type, line))

const serverEvent = (type: string, props: Json): LineResult => {
  switch (type) {
    case "message.part.updated":
      return part(obj(props["part"]), "server")
    case "message.part.delta":
      // The delta does not say whether its part is text or reasoning: it extends the part with
      // this id, which an earlier message.part.updated introduced with its kind.
      return props["field"] === "text"
        ? [{ kind: "text", text: str(props["delta"]), itemId: str(props["partID"]), delta: true }]
        : "ignored"
    case "session.created":
    case "session.updated": {
      const info = obj(props["info"])
      return [defined({ kind: "metadata", sessionId: str(info["id"]), model: modelName(obj(info["model"])) })]
    }
    case "message.updated":
      return message(obj(props["info"]))
    case "session.status":
      return status(obj(props["status"]))
    case "session.error":
      return [{ kind: "warning", message: errorText(props["error"]) }]
    case "permission.asked": {
      const patterns = Array.isArray(props["patterns"]) ? props["patterns"].filter((p) => typeof p === "string") : []
      const what = str(props["permission"]) ?? "tool"
      return [{ kind: "runtime-notice", message: `Permission requested: ${what}${patterns.length ? ` (${patterns.join(", ")})` : ""}` }]
    }
    case "question.asked": {
      const questions = Array.isArray(props["questions"]) ? props["questions"] : []
      const texts = questions.map((q) => str(obj(q)["question"])).filter((q): q is string => q !== undefined)
      return [{ kind: "runtime-notice", message: texts.length === 0 ? "Question asked" : `Question: ${texts.join(" / ")}` }]
    }
    case "command.executed":
      return [{ kind: "runtime-notice", message: `Command /${str(props["name"]) ?? "?"} executed` }]
    case "session.compacted": // the compaction part reports it, with its trigger
    case "session.idle":
    case "session.diff":
    case "session.deleted":
    case "message.removed":
    case "message.part.removed":
    case "permission.replied":
    case "question.replied":
    case "question.rejected":
    case "todo.updated":
    case "file.edited":
    case "file.watcher.updated":
    case "vcs.branch.updated":
    case "server.connected":
    case "server.heartbeat":
    case "plugin.added":
    case "catalog.updated":
    case "reference.updated":
    case "integration.updated":
    case "installation.updated":
    case "installation.update-available":
    case "lsp.updated":
    case "lsp.client.diagnostics":
      return "ignored"
    default:
      return "unrecognized-type"
  }
}

const runLine = (type: string, line: Json): LineResult => {
  switch (type) {
    case "text":
    case "reasoning":
    case "tool_use":
    case "step_finish":
      return part(obj(line["part"]), "run")
    case "step_start": {
      // Run has no session event: the step's `sessionID` is what `-s` resumes.
      const sessionId = str(line["sessionID"])
      return sessionId === undefined ? "ignored" : [{ kind: "metadata", sessionId }]
    }
    case "error":
      return [{ kind: "warning", message: errorText(line["error"]) }]
    default:
      return "unrecognized-type"
  }
}

const modelName = (model: Json): string | undefined => {
  const id = str(model["id"]) ?? str(model["modelID"])
  const provider = str(model["providerID"])
  return id === undefined ? undefined : provider === undefined ? id : `${provider}/${id}`
}

const errorText = (error: unknown): string => {
  const err = obj(error)
  const data = obj(err["data"])
  const message = str(data["message"]) ?? str(err["message"]) ?? stringify(error)
  const name = str(err["name"])
  const status = num(data["statusCode"])
  return `${name === undefined ? "" : `${name}: `}${message}${status === undefined ? "" : ` (${status})`}`
}

/**
 * Parts of the user's own message (the prompt echoed back) carry no `time`; assistant text and
 * reasoning parts always do. `synthetic` parts are injected by OpenCode, not written by the model.
 */
const authoredByModel = (part: Json): boolean => isObject(part["time"]) && part["synthetic"] !== true

const part = (part: Json, transport: "server" | "run"): LineResult => {
  const itemId = str(part["id"])
  switch (part["type"]) {
    case "text":
    case "reasoning":
      return authoredByModel(part) ? [{ kind: part["type"], text: str(part["text"]), itemId }] : "ignored"
    case "tool":
      return toolPart(part, transport)
    case "step-finish":
      return [stepTokens(obj(part["tokens"]))]
    case "compaction":
      return [{ kind: "context-compaction", trigger: part["auto"] === true ? "auto" : "manual" }]
    case "retry":
      return [defined({ kind: "runtime-notice", message: `Retrying: ${errorText(part["error"])}`, attempt: num(part["attempt"]) })]
    case "step-start":
    case "patch":
    case "snapshot":
    case "file":
    case "agent":
    case "subtask":
      return "ignored"
    case undefined:
      return [misread]
    default:
      return "unrecognized-type"
  }
}

/**
 * A tool part moves pending → running (input known) → completed | error. A bash command that
 * exits non-zero is still `completed`: its output carries the exit code and it is not a tool-error.
 * `run` prints only the finished part, so it gives the input and the result together.
 */
const toolPart = (part: Json, transport: "server" | "run"): LineResult => {
  const state = obj(part["state"])
  const toolCallId = str(part["callID"])
  const input = { kind: "tool-input", toolCallId, toolName: str(part["tool"]), inputJson: stringify(state["input"] ?? {}) }
  const result = toolResult(toolCallId, state)
  switch (state["status"]) {
    case "pending":
      return "ignored"
    case "running":
      return [input]
    case "completed":
    case "error":
      return transport === "run" ? [input, result] : [result]
    default:
      return [misread]
  }
}

const toolResult = (toolCallId: string | undefined, state: Json): Json => {
  if (state["status"] === "error") {
    const message = str(state["error"]) ?? "Tool failed"
    // OpenCode's RejectedError: the permission was refused (with the person's feedback, if any).
    return { kind: "tool-error", toolCallId, message, ...(message.startsWith("The user rejected permission") ? { denied: true } : {}) }
  }
  const output = str(state["output"]) ?? ""
  const exitCode = num(obj(state["metadata"])["exit"])
  return { kind: "tool-output", toolCallId, outputJson: stringify(exitCode === undefined ? output : { output, exitCode }) }
}

/** Step tokens are per model call, so they are the live context size. */
const stepTokens = (tokens: Json): Json => {
  const cache = obj(tokens["cache"])
  const input = num(tokens["input"])
  const output = num(tokens["output"])
  const reasoning = num(tokens["reasoning"])
  const cacheRead = num(cache["read"])
  const cacheWrite = num(cache["write"])
  return defined({
    kind: "context-window",
    // num(): a sum of huge figures overflows to Infinity, which JSON cannot carry.
    usedTokens: num(tokens["total"]) ?? num([input, output, reasoning, cacheRead, cacheWrite].reduce<number>((a, b) => a + (b ?? 0), 0)),
    inputTokens: input,
    outputTokens: output,
    reasoningTokens: reasoning,
    cacheReadTokens: cacheRead,
    cacheCreationTokens: cacheWrite
  })
}

const message = (info: Json): LineResult => {
  const completed = num(obj(info["time"])["completed"])
  if (info["role"] !== "assistant" || completed === undefined) return "ignored"
  return [
    defined({
      kind: "metadata",
      model: modelName({ id: info["modelID"], providerID: info["providerID"] }),
      costUsd: num(info["cost"]),
      durationMs: num(completed - (num(obj(info["time"])["created"]) ?? completed))
    })
  ]
}

/** `next` is the wall-clock time of the retry; the delay is left out as the event carries no time of its own. */
const status = (status: Json): LineResult =>
  status["type"] === "retry"
    ? [defined({ kind: "runtime-notice", message: `API retry: ${str(status["message"]) ?? "error"}`, attempt: num(status["attempt"]) })]
    : "ignored"
