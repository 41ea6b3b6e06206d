import {
  type ChunkNormalizer,
  defined,
  isObject,
  type Json,
  type LineResult,
  lineNormalizer,
  misread,
  num,
  str,
  stringify
} from "./LineNormalizer.js"

/**
 * Runtime A: Claude Code, `claude -p --output-format stream-json --verbose`
 * (optionally `--include-partial-messages`, `--input-format stream-json`).
 * Pure and total: every (type, data) pair gives exactly one event, never a throw.
 */

export const normalizeClaudeChunk: ChunkNormalizer = lineNormalizer((type, line) => normalizeLine(type, line))

const normalizeLine = (type: string, line: Json): LineResult => {
  switch (type) {
    case "system":
      return system(line)
    case "assistant":
      return assistant(line)
    case "user":
      return user(line)
    case "result":
      return result(line)
    case "stream_event":
      return streamEvent(line)
    case "control_request":
      return controlRequest(line)
    case "control_response":
      return controlResponse(line)
    default:
      return "unrecognized-type"
  }
}

const system = (line: Json): ReadonlyArray<Json> | "ignored" => {
  switch (line["subtype"]) {
    case "init":
      return [defined({ kind: "metadata" as const, sessionId: str(line["session_id"]), model: str(line["model"]) })]
    case "api_retry": {
      const error = str(line["error"]) ?? "error"
      const status = num(line["error_status"])
      const attempt = num(line["attempt"])
      const max = num(line["max_retries"])
      const delayMs = num(line["retry_delay_ms"])
      const message = `API ${error}${status === undefined ? "" : ` (${status})`}, retry ${attempt ?? "?"}${
        max === undefined ? "" : ` of ${max}`
      }`
      return [
        defined({
          kind: "runtime-notice" as const,
          message,
          attempt,
          // A delay is never negative; Math.max also turns a rounded -0, which JSON would write as 0, into 0.
          delayMs: delayMs === undefined ? undefined : Math.max(0, Math.round(delayMs)),
          status
        })
      ]
    }
    case "compact_boundary": {
      const meta = isObject(line["compact_metadata"]) ? line["compact_metadata"] : {}
      return [
        defined({ kind: "context-compaction" as const, trigger: str(meta["trigger"]), preTokens: num(meta["pre_tokens"]) })
      ]
    }
    case "status": {
      const mode = str(line["permissionMode"])
      if (mode !== undefined) {
        return [{ kind: "metadata", otherJson: stringify({ permissionMode: mode }) }]
      }
      const status = str(line["status"])
      if (status === "compacting") return [{ kind: "runtime-notice", message: "Compacting context" }]
      const compactResult = str(line["compact_result"])
      if (compactResult === "failed") {
        // The run still ends in a successful `result`: the failure is the turn's, said here.
        const error = str(line["compact_error"]) ?? "Compaction failed"
        return [{ kind: "runtime-notice", message: `Compaction failed${error === "Compaction failed" ? "" : `: ${error}`}` }, {
          kind: "metadata",
          otherJson: stringify({ turnStatus: "failed", error })
        }]
      }
      if (compactResult !== undefined) return [{ kind: "runtime-notice", message: `Compaction ${compactResult}` }]
      // `requesting` precedes every API request (partial-message mode): no information for a reader.
      return "ignored"
    }
    case "thinking_tokens":
      return "ignored"
    default:
      return [misread]
  }
}

const message = (line: Json): Json => (isObject(line["message"]) ? line["message"] : {})

const assistant = (line: Json): ReadonlyArray<Json> => {
  const msg = message(line)
  const content = Array.isArray(msg["content"]) ? msg["content"] : [misread]
  // One block per line in practice; the line's uuid (else the message id) names the item.
  const base = str(line["uuid"]) ?? str(msg["id"])
  const itemId = (i: number): string | undefined => base === undefined ? undefined : content.length === 1 ? base : `${base}:${i}`
  return content.flatMap((block, i): ReadonlyArray<Json> => {
    if (!isObject(block)) return [misread]
    switch (block["type"]) {
      case "text":
        return [defined({ kind: "text" as const, text: str(block["text"]), itemId: itemId(i) })]
      case "thinking":
        return [defined({ kind: "reasoning" as const, text: str(block["thinking"]), itemId: itemId(i) })]
      case "redacted_thinking":
        return []
      case "tool_use":
        return [
          {
            kind: "tool-input",
            toolCallId: str(block["id"]),
            toolName: str(block["name"]),
            inputJson: stringify(block["input"] ?? {})
          }
        ]
      default:
        return [misread]
    }
  })
}

const toolResultText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content
      .map((part) => (isObject(part) && typeof part["text"] === "string" ? part["text"] : stringify(part)))
      .join("\n")
  }
  return stringify(content)
}

const user = (line: Json): ReadonlyArray<Json> | "ignored" => {
  const content = message(line)["content"]
  if (typeof content === "string") {
    // Slash-command output (e.g. `/compact` → "Compacted"); other string content is a replayed
    // user turn or the compaction summary, already reported by `compact_boundary`.
    const stdout = /^<local-command-stdout>([\s\S]*)<\/local-command-stdout>$/.exec(content)
    return stdout ? [{ kind: "runtime-notice", message: (stdout[1] ?? "").trim() }] : "ignored"
  }
  if (!Array.isArray(content)) return [misread]
  const events = content.flatMap((block): ReadonlyArray<Json> => {
    if (!isObject(block) || block["type"] !== "tool_result") return []
    const toolCallId = str(block["tool_use_id"])
    return block["is_error"] === true
      ? [{ kind: "tool-error", toolCallId, message: toolResultText(block["content"]) }]
      : [{ kind: "tool-output", toolCallId, outputJson: stringify(block["content"] ?? null) }]
  })
  // A user turn of plain text/image blocks (e.g. replayed input) carries nothing to show.
  return events.length === 0 ? "ignored" : events
}

const usageWindow = (usage: Json, limitTokens: number | undefined): Json => {
  const inputTokens = num(usage["input_tokens"])
  const outputTokens = num(usage["output_tokens"])
  const cacheReadTokens = num(usage["cache_read_input_tokens"])
  const cacheCreationTokens = num(usage["cache_creation_input_tokens"])
  return defined({
    kind: "context-window" as const,
    usedTokens: (inputTokens ?? 0) + (outputTokens ?? 0) + (cacheReadTokens ?? 0) + (cacheCreationTokens ?? 0),
    limitTokens,
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheCreationTokens
  })
}

const result = (line: Json): ReadonlyArray<Json> => {
  const events: Array<Json> = [
    defined({
      kind: "metadata" as const,
      sessionId: str(line["session_id"]),
      costUsd: num(line["total_cost_usd"]),
      durationMs: num(line["duration_ms"]),
      numTurns: num(line["num_turns"])
    })
  ]
  if (isObject(line["usage"])) {
    const models = isObject(line["modelUsage"]) ? Object.values(line["modelUsage"]) : []
    const windows = models.flatMap((m) => {
      const w = isObject(m) ? num(m["contextWindow"]) : undefined
      return w === undefined ? [] : [w]
    })
    events.push(usageWindow(line["usage"], windows.length === 0 ? undefined : Math.max(...windows)))
  }
  // The calls refused their permission: their errors came earlier as plain tool results.
  for (const refused of Array.isArray(line["permission_denials"]) ? line["permission_denials"] : []) {
    const toolCallId = isObject(refused) ? str(refused["tool_use_id"]) : undefined
    if (toolCallId !== undefined) events.push({ kind: "tool-error", toolCallId, message: "Denied", denied: true })
  }
  // `subtype` may say "success" while `is_error` is true (e.g. HTTP 400): key off is_error.
  if (line["is_error"] === true) {
    const status = num(line["api_error_status"])
    const text = str(line["result"]) || str(line["subtype"]) || "error"
    events.push({ kind: "warning", message: status === undefined ? text : `API error ${status}: ${text}` })
  }
  return events
}

const streamEvent = (line: Json): ReadonlyArray<Json> | "ignored" => {
  const event = isObject(line["event"]) ? line["event"] : {}
  switch (event["type"]) {
    case "message_start": {
      const msg = isObject(event["message"]) ? event["message"] : {}
      return isObject(msg["usage"]) ? [usageWindow(msg["usage"], undefined)] : "ignored"
    }
    case "content_block_delta": {
      const index = num(event["index"])
      const delta = isObject(event["delta"]) ? event["delta"] : {}
      if (index === undefined) return [misread]
      // Deltas carry no message id: the item is the content block index within the streaming message.
      const itemId = `block:${index}`
      switch (delta["type"]) {
        case "text_delta":
          return [{ kind: "text", text: str(delta["text"]), itemId, delta: true }]
        case "thinking_delta":
          return [{ kind: "reasoning", text: str(delta["thinking"]), itemId, delta: true }]
        default:
          // signature_delta, input_json_delta (the full tool_use arrives in the `assistant` line).
          return "ignored"
      }
    }
    case "content_block_start":
    case "content_block_stop":
    case "message_delta":
    case "message_stop":
    case "ping":
      return "ignored"
    default:
      return [misread]
  }
}

/**
 * What a `can_use_tool` request asks, in full, as the thread's event shows it: the command, the
 * questions, the plan, or the tool's whole input.
 */
const permissionAsked = (tool: string, input: Json): string => {
  const questions = Array.isArray(input["questions"])
    ? input["questions"].flatMap((q) => str(isObject(q) ? q["question"] : undefined) ?? [])
    : []
  if (tool === "AskUserQuestion" && questions.length > 0) return `Question: ${questions.join(" / ")}`
  const shown = str(input["command"]) ?? str(input["plan"]) ?? (Object.keys(input).length === 0 ? undefined : stringify(input))
  return shown === undefined ? `Permission requested: ${tool}` : `Permission requested: ${tool}: ${shown}`
}

const controlRequest = (line: Json): ReadonlyArray<Json> => {
  const request = isObject(line["request"]) ? line["request"] : {}
  const subtype = str(request["subtype"])
  const tool = str(request["tool_name"])
  if (subtype === undefined) return [misread]
  return [
    {
      kind: "runtime-notice",
      message: subtype === "can_use_tool" && tool !== undefined
        ? permissionAsked(tool, isObject(request["input"]) ? request["input"] : {})
        : `Control request: ${subtype}`
    }
  ]
}

const controlResponse = (line: Json): ReadonlyArray<Json> => {
  const response = isObject(line["response"]) ? line["response"] : {}
  const subtype = str(response["subtype"])
  const error = str(response["error"])
  if (subtype === undefined) return [misread]
  return [{
    kind: "runtime-notice",
    message: error === undefined ? `Control response: ${subtype}` : `Control response: ${subtype}: ${error}`
  }]
}
