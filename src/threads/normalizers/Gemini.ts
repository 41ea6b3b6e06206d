import { type ChunkNormalizer, defined, type Json, type LineResult, lineNormalizer, num, obj, str, stringify } from "./LineNormalizer.js"

/**
 * Runtime D: Gemini CLI `--output-format stream-json`. Registered but not executable yet; this
 * module is written against the reconstructed transcript (RUNTIMES §5) so the runner can start
 * with a normalizer in place. Chunk type is the line's `type`.
 */

export const normalizeGeminiChunk: ChunkNormalizer = lineNormalizer((type, line) => mapLine(type, line))

const mapLine = (type: string, line: Json): LineResult => {
  switch (type) {
    case "init":
      return [defined({ kind: "metadata", sessionId: str(line["session_id"]), model: str(line["model"]) })]
    case "message":
      if (line["role"] !== "assistant") return "ignored"
      // Streamed pieces carry no id: each `delta` extends the text the composer is building.
      return [
        line["delta"] === true ? { kind: "text", text: str(line["content"]), delta: true } : { kind: "text", text: str(line["content"]) }
      ]
    case "tool_use":
      return [{
        kind: "tool-input",
        toolCallId: str(line["tool_id"]),
        toolName: str(line["tool_name"]),
        inputJson: stringify(line["parameters"] ?? {})
      }]
    case "tool_result": {
      const toolCallId = str(line["tool_id"])
      if (line["status"] === "error") {
        const error = obj(line["error"])
        return [{ kind: "tool-error", toolCallId, message: str(error["message"]) ?? str(line["output"]) ?? "Tool failed" }]
      }
      return [{ kind: "tool-output", toolCallId, outputJson: stringify(line["output"] ?? null) }]
    }
    case "error":
      return [{ kind: "warning", message: str(line["message"]) }]
    case "result":
      return result(line)
    default:
      return "unrecognized-type"
  }
}

const result = (line: Json): LineResult => {
  const stats = obj(line["stats"])
  const input = num(stats["input_tokens"])
  const output = num(stats["output_tokens"])
  const events: Array<Json> = [
    defined({ kind: "metadata", durationMs: num(stats["duration_ms"]) }),
    defined({
      kind: "context-window",
      // num(): a sum of huge figures overflows to Infinity, which JSON cannot carry.
      usedTokens: num(stats["total_tokens"]) ?? num((input ?? 0) + (output ?? 0)),
      inputTokens: input,
      outputTokens: output
    })
  ]
  if (line["status"] !== "success") {
    const error = obj(line["error"])
    events.push({ kind: "warning", message: str(error["message"]) ?? `Run ended with status ${str(line["status"]) ?? "unknown"}` })
  }
  return events
}
