import {
  type ChunkNormalizer,
  defined,
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
 * Runtime B, default transport: `codex app-server` (JSON-RPC over stdio, RUNTIMES §3.3).
 * The CLI uploads every message the server sends: notifications and server requests with
 * their `method` as chunk type, responses with the method of the request they answer.
 * `data` is the whole message.
 */

export const normalizeCodexAppServerChunk: ChunkNormalizer = lineNormalizer((type, message) => mapMessage(type, message))

const mapMessage = (method: string, message: Json): LineResult => {
  const isResponse = message["method"] === undefined && ("result" in message || "error" in message)
  if (isResponse) return response(method, message)
  const params = obj(message["params"])
  return message["id"] === undefined ? notification(method, params) : serverRequest(method, params)
}

const response = (method: string, message: Json): LineResult => {
  if (message["error"] !== undefined) {
    const error = obj(message["error"])
    return [{ kind: "warning", message: `${method} failed: ${str(error["message"]) ?? stringify(message["error"])}` }]
  }
  switch (method) {
    case "thread/start":
    case "thread/resume":
    case "thread/fork": {
      const result = obj(message["result"])
      return [defined({ kind: "metadata", sessionId: str(obj(result["thread"])["id"]), model: str(result["model"]) })]
    }
    default:
      return "ignored"
  }
}

const notification = (method: string, params: Json): LineResult => {
  switch (method) {
    case "thread/started": {
      const thread = obj(params["thread"])
      return [defined({ kind: "metadata", sessionId: str(thread["id"]), model: str(thread["model"]) })]
    }
    case "item/started":
      return itemStarted(obj(params["item"]))
    case "item/completed":
      return itemCompleted(obj(params["item"]))
    case "item/agentMessage/delta":
      return [{ kind: "text", text: str(params["delta"]), itemId: str(params["itemId"]), delta: true }]
    case "item/reasoning/summaryTextDelta":
    case "item/reasoning/textDelta":
      return [{ kind: "reasoning", text: str(params["delta"]), itemId: str(params["itemId"]), delta: true }]
    case "thread/tokenUsage/updated":
      return [tokenUsage(obj(params["tokenUsage"]))]
    case "thread/status/changed":
      return threadStatus(obj(params["status"]))
    case "turn/completed":
      return turnCompleted(obj(params["turn"]))
    case "error":
      return error(params)
    case "warning":
      return [{ kind: "warning", message: str(params["message"]) }]
    case "configWarning":
    case "deprecationNotice":
      return [{ kind: "warning", message: str(params["summary"]) }]
    case "turn/started":
    case "thread/compacted": // the contextCompaction item reports it
    case "thread/settings/updated":
    case "thread/readState/changed":
    case "thread/name/updated":
    case "thread/archived":
    case "thread/unarchived":
    case "thread/goal/updated":
    case "thread/goal/cleared":
    case "turn/diff/updated":
    case "turn/plan/updated":
    case "item/reasoning/summaryPartAdded":
    case "item/commandExecution/outputDelta":
    case "item/commandExecution/terminalInteraction":
    case "item/fileChange/outputDelta":
    case "item/mcpToolCall/progress":
    case "serverRequest/resolved":
    case "account/rateLimits/updated":
    case "account/updated":
    case "remoteControl/status/changed":
    case "mcpServer/startupStatus/updated":
    case "sessionConfigured":
      return "ignored"
    default:
      return "unrecognized-type"
  }
}

const toolInput = (item: Json, toolName: string | undefined, input: unknown): LineResult => [
  { kind: "tool-input", toolCallId: str(item["id"]), toolName, inputJson: stringify(input) }
]

const itemStarted = (item: Json): LineResult => {
  switch (item["type"]) {
    case "commandExecution":
      return toolInput(item, "commandExecution", defined({ command: item["command"], cwd: item["cwd"] }))
    case "fileChange":
      return toolInput(item, "fileChange", { changes: item["changes"] })
    case "mcpToolCall":
      return toolInput(item, qualifiedTool(item), item["arguments"] ?? {})
    case "dynamicToolCall":
      return toolInput(item, str(item["tool"]), item["arguments"] ?? {})
    case "webSearch":
      return toolInput(item, "webSearch", { query: item["query"] })
    case "contextCompaction":
      return [{ kind: "runtime-notice", message: "Compacting context" }]
    case "userMessage":
    case "agentMessage":
    case "reasoning":
    case "plan":
    case "imageView":
    case "enteredReviewMode":
    case "exitedReviewMode":
      // Text items stream as deltas and arrive whole with item/completed.
      return "ignored"
    case undefined:
      return [misread]
    default:
      return "unrecognized-type"
  }
}

/** `declined` is a command or change the user refused; `failed` ran and failed. */
const refused = (item: Json): boolean => item["status"] === "failed" || item["status"] === "declined"
const denial = (item: Json): { readonly denied?: true } => (item["status"] === "declined" ? { denied: true } : {})

const itemCompleted = (item: Json): LineResult => {
  const id = str(item["id"])
  switch (item["type"]) {
    case "agentMessage":
    case "plan":
      return [{ kind: "text", text: str(item["text"]), itemId: id }]
    case "reasoning": {
      const parts = [item["summary"], item["content"]].flatMap((list) =>
        Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : []
      )
      return parts.length === 0 ? "ignored" : [{ kind: "reasoning", text: parts.join("\n\n"), itemId: id }]
    }
    case "commandExecution": {
      const output = str(item["aggregatedOutput"])
      const exitCode = num(item["exitCode"])
      if (refused(item) || (exitCode !== undefined && exitCode !== 0)) {
        const status = str(item["status"]) ?? "failed"
        return [{
          kind: "tool-error",
          toolCallId: id,
          message: output || `Command ${status}${exitCode === undefined ? "" : ` with exit code ${exitCode}`}`,
          ...denial(item)
        }]
      }
      return [{
        kind: "tool-output",
        toolCallId: id,
        outputJson: stringify(defined({ output: output ?? "", exitCode, durationMs: num(item["durationMs"]) }))
      }]
    }
    case "fileChange":
      return refused(item)
        ? [{ kind: "tool-error", toolCallId: id, message: `File change ${str(item["status"])}`, ...denial(item) }]
        : [{ kind: "tool-output", toolCallId: id, outputJson: stringify({ changes: item["changes"] }) }]
    case "mcpToolCall":
    case "dynamicToolCall": {
      const error = str(obj(item["error"])["message"])
      return refused(item) || error !== undefined
        ? [{ kind: "tool-error", toolCallId: id, message: error ?? `Tool call ${str(item["status"])}`, ...denial(item) }]
        : [{ kind: "tool-output", toolCallId: id, outputJson: stringify(item["result"] ?? item["contentItems"] ?? null) }]
    }
    case "webSearch":
      return [{ kind: "tool-output", toolCallId: id, outputJson: stringify({ query: item["query"] }) }]
    case "contextCompaction":
      return [{ kind: "context-compaction" }]
    case "userMessage":
    case "imageView":
    case "enteredReviewMode":
    case "exitedReviewMode":
      return "ignored"
    case undefined:
      return [misread]
    default:
      return "unrecognized-type"
  }
}

const qualifiedTool = (item: Json): string | undefined => {
  const server = str(item["server"])
  const tool = str(item["tool"])
  return server === undefined || tool === undefined ? tool : `${server}.${tool}`
}

/** `total` is cumulative over the thread; `last` is the latest request, i.e. the live context size. */
const tokenUsage = (usage: Json): Json => {
  const last = obj(usage["last"])
  const input = num(last["inputTokens"])
  const cached = num(last["cachedInputTokens"])
  const output = num(last["outputTokens"])
  return defined({
    kind: "context-window",
    // num(): a sum or difference of huge figures overflows to Infinity, which JSON cannot carry.
    usedTokens: num(last["totalTokens"]) ?? num((input ?? 0) + (output ?? 0)),
    limitTokens: num(usage["modelContextWindow"]),
    inputTokens: input === undefined ? undefined : num(input - (cached ?? 0)),
    outputTokens: output,
    reasoningTokens: num(last["reasoningOutputTokens"]),
    cacheReadTokens: cached,
    cacheCreationTokens: num(last["cacheWriteInputTokens"])
  })
}

const threadStatus = (status: Json): LineResult => {
  const flags = Array.isArray(status["activeFlags"]) ? status["activeFlags"] : []
  if (status["type"] === "systemError") return [{ kind: "runtime-notice", message: "Codex reported a system error" }]
  if (flags.includes("waitingOnApproval")) return [{ kind: "runtime-notice", message: "Waiting for approval" }]
  if (flags.includes("waitingOnUserInput")) return [{ kind: "runtime-notice", message: "Waiting for user input" }]
  return "ignored"
}

const turnCompleted = (turn: Json): LineResult => {
  const status = str(turn["status"])
  const error = str(obj(turn["error"])["message"])
  return [
    defined({
      kind: "metadata",
      durationMs: num(turn["durationMs"]),
      otherJson: status === "completed" ? undefined : stringify(defined({ turnStatus: status, error }))
    })
  ]
}

/** `willRetry: true` is an upstream retry ("Reconnecting... 1/5"); otherwise the turn failed. */
const error = (params: Json): LineResult => {
  const err = obj(params["error"])
  const message = str(err["message"]) ?? "Codex error"
  if (params["willRetry"] !== true) return [{ kind: "warning", message }]
  const attempt = /(\d+)\/\d+/.exec(message)
  const info = obj(err["codexErrorInfo"])
  const status = Object.values(info).map((v) => num(obj(v)["httpStatusCode"])).find((s) => s !== undefined)
  return [defined({ kind: "runtime-notice", message, attempt: attempt ? num(Number(attempt[1])) : undefined, status })]
}

const serverRequest = (method: string, params: Json): LineResult => {
  switch (method) {
    case "item/commandExecution/requestApproval":
    case "execCommandApproval":
      return [{ kind: "runtime-notice", message: `Approval requested: ${commandText(params["command"])}` }]
    case "item/fileChange/requestApproval":
    case "applyPatchApproval":
      return [{ kind: "runtime-notice", message: "Approval requested: file change" }]
    case "item/permissions/requestApproval":
      return [{ kind: "runtime-notice", message: "Permission requested" }]
    case "item/tool/requestUserInput": {
      const questions = Array.isArray(params["questions"]) ? params["questions"] : []
      const texts = questions.map((q) => str(obj(q)["question"])).filter((q): q is string => q !== undefined)
      return [{ kind: "runtime-notice", message: texts.length === 0 ? "Question asked" : `Question: ${texts.join(" / ")}` }]
    }
    case "mcpServer/elicitation/request":
      return [{ kind: "runtime-notice", message: `Input requested: ${str(params["message"]) ?? "MCP server"}` }]
    case "item/tool/call":
      return [{ kind: "runtime-notice", message: `Tool call requested: ${str(params["tool"]) ?? "dynamic tool"}` }]
    case "account/chatgptAuthTokens/refresh":
      return "ignored"
    default:
      return "unrecognized-type"
  }
}

const commandText = (command: unknown): string =>
  typeof command === "string" ? command : Array.isArray(command) ? command.join(" ") : "command"
