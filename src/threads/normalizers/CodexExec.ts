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
 * Runtime B, one-shot transport: `codex exec --json`. Chunk type is the line's `type`.
 * Exec hides API retries and reports usage cumulated over the whole thread (RUNTIMES §3.2).
 */

export const normalizeCodexExecChunk: ChunkNormalizer = lineNormalizer((type, line) => mapLine(type, line))

const mapLine = (type: string, line: Json): LineResult => {
  switch (type) {
    case "thread.started":
      return [defined({ kind: "metadata", sessionId: str(line["thread_id"]) })]
    case "turn.started":
      return "ignored"
    case "item.started":
    case "item.updated":
      return itemStarted(obj(line["item"]))
    case "item.completed":
      return itemCompleted(obj(line["item"]))
    case "turn.completed":
      return [usageWindow(obj(line["usage"]))]
    case "turn.failed":
      // The `error` line just before carries the same message as a warning.
      return [{ kind: "metadata", otherJson: stringify({ turnStatus: "failed", error: str(obj(line["error"])["message"]) }) }]
    case "error":
      return [{ kind: "warning", message: str(line["message"]) }]
    default:
      return "unrecognized-type"
  }
}

const itemStarted = (item: Json): LineResult => {
  const id = str(item["id"])
  switch (item["type"]) {
    case "command_execution":
      return [{ kind: "tool-input", toolCallId: id, toolName: "command_execution", inputJson: stringify({ command: item["command"] }) }]
    case "file_change":
      return [{ kind: "tool-input", toolCallId: id, toolName: "file_change", inputJson: stringify({ changes: item["changes"] }) }]
    case "mcp_tool_call":
      return [{ kind: "tool-input", toolCallId: id, toolName: mcpToolName(item), inputJson: stringify(item["arguments"] ?? {}) }]
    case "web_search":
      return [{ kind: "tool-input", toolCallId: id, toolName: "web_search", inputJson: stringify({ query: item["query"] }) }]
    case "agent_message":
    case "reasoning":
    case "todo_list":
    case "error":
      // Their content arrives whole with item.completed.
      return "ignored"
    default:
      return "unrecognized-type"
  }
}

const itemCompleted = (item: Json): LineResult => {
  const id = str(item["id"])
  const failed = item["status"] === "failed"
  switch (item["type"]) {
    case "agent_message":
      return [{ kind: "text", text: str(item["text"]), itemId: id }]
    case "reasoning":
      return [{ kind: "reasoning", text: str(item["text"]), itemId: id }]
    case "command_execution": {
      const output = str(item["aggregated_output"]) ?? ""
      const exitCode = num(item["exit_code"])
      if (failed || (exitCode !== undefined && exitCode !== 0)) {
        return [{ kind: "tool-error", toolCallId: id, message: output || `Command failed with exit code ${exitCode ?? "unknown"}` }]
      }
      return [{ kind: "tool-output", toolCallId: id, outputJson: stringify(defined({ output, exitCode })) }]
    }
    case "file_change":
      return failed
        ? [{ kind: "tool-error", toolCallId: id, message: "File change failed" }]
        : [{ kind: "tool-output", toolCallId: id, outputJson: stringify({ changes: item["changes"] }) }]
    case "mcp_tool_call": {
      const error = str(obj(item["error"])["message"])
      return failed || error !== undefined
        ? [{ kind: "tool-error", toolCallId: id, message: error ?? "Tool call failed" }]
        : [{ kind: "tool-output", toolCallId: id, outputJson: stringify(item["result"] ?? null) }]
    }
    case "web_search":
      return [{ kind: "tool-output", toolCallId: id, outputJson: stringify({ query: item["query"] }) }]
    case "todo_list":
      return [{ kind: "metadata", otherJson: stringify({ todoList: item["items"] }) }]
    case "error":
      // Non-fatal (e.g. "Model metadata for `…` not found"); a fatal error is a top-level `error` line.
      return [{ kind: "warning", message: str(item["message"]) }]
    case undefined:
      return [misread]
    default:
      return "unrecognized-type"
  }
}

const mcpToolName = (item: Json): string | undefined => {
  const server = str(item["server"])
  const tool = str(item["tool"])
  return server === undefined || tool === undefined ? tool : `${server}.${tool}`
}

/**
 * `turn.completed.usage` is cumulative over the thread (resumed runs keep adding up); exec gives
 * no per-turn figure, so the meter shows the cumulative one (docs/events.md). OpenAI counts cached
 * input inside `input_tokens` and reasoning inside `output_tokens`.
 */
const usageWindow = (usage: Json): Json => {
  const input = num(usage["input_tokens"])
  const cached = num(usage["cached_input_tokens"])
  const output = num(usage["output_tokens"])
  return defined({
    kind: "context-window",
    // num(): a sum or difference of huge figures overflows to Infinity, which JSON cannot carry.
    usedTokens: num((input ?? 0) + (output ?? 0)),
    inputTokens: input === undefined ? undefined : num(input - (cached ?? 0)),
    outputTokens: output,
    reasoningTokens: num(usage["reasoning_output_tokens"]),
    cacheReadTokens: cached,
    cacheCreationTokens: num(usage["cache_write_input_tokens"])
  })
}
