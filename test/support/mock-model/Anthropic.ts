/**
 * The Anthropic Messages wire format of the mock model: request → conversation, plan → SSE
 * events (message_start … message_stop) or a whole message, and the error bodies.
 */
import { randomUUID } from "node:crypto"
import { type Conversation, type Plan, textOf, userWords } from "./Script.js"

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? Object(value) : {})
const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

export const anthropicConversation = (body: unknown): Conversation => {
  const request = record(body)
  const tools = list(request["tools"]).map((tool) => String(record(tool)["name"] ?? ""))
  // Claude Code may append other roles (a "system" note) after the user's turn: the user's is the one answered.
  const last = record([...list(request["messages"])].reverse().find((message) => record(message)["role"] === "user"))
  const content = last["content"]
  const blocks = typeof content === "string" ? [{ type: "text", text: content }] : list(content).map(record)
  const result = blocks.find((block) => block["type"] === "tool_result")
  return {
    tools,
    toolResult: last["role"] === "user" && result !== undefined ? textOf(result["content"]) : undefined,
    lastUserText: userWords(blocks.filter((block) => block["type"] === "text").map((block) => String(block["text"] ?? "")))
  }
}

const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 24)}`

interface Block {
  readonly start: Record<string, unknown>
  readonly deltas: ReadonlyArray<Record<string, unknown>>
  readonly whole: Record<string, unknown>
}

const blocksOf = (plan: Exclude<Plan, { kind: "error" }>, thinking: boolean): ReadonlyArray<Block> => {
  const blocks: Array<Block> = []
  if (thinking) {
    const text = "Thinking about the request."
    blocks.push({
      start: { type: "thinking", thinking: "", signature: "" },
      deltas: [{ type: "thinking_delta", thinking: text }, { type: "signature_delta", signature: "bW9jay1zaWduYXR1cmU=" }],
      whole: { type: "thinking", thinking: text, signature: "bW9jay1zaWduYXR1cmU=" }
    })
  }
  blocks.push({
    start: { type: "text", text: "" },
    deltas: [{ type: "text_delta", text: plan.text }],
    whole: { type: "text", text: plan.text }
  })
  if (plan.kind === "tool") {
    const toolId = id("toolu")
    blocks.push({
      start: { type: "tool_use", id: toolId, name: plan.name, input: {} },
      deltas: [{ type: "input_json_delta", partial_json: JSON.stringify(plan.input) }],
      whole: { type: "tool_use", id: toolId, name: plan.name, input: plan.input }
    })
  }
  return blocks
}

const usage = { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

export const anthropicStream = (plan: Exclude<Plan, { kind: "error" }>, body: unknown): ReadonlyArray<string> => {
  const request = record(body)
  const thinking = record(request["thinking"])["type"] === "enabled"
  const model = String(request["model"] ?? "mock-model")
  const frame = (data: Record<string, unknown>) => `event: ${String(data["type"])}\ndata: ${JSON.stringify(data)}\n\n`
  const frames = [
    frame({
      type: "message_start",
      message: {
        id: id("msg"),
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 }
      }
    })
  ]
  blocksOf(plan, thinking).forEach((block, index) => {
    frames.push(frame({ type: "content_block_start", index, content_block: block.start }))
    for (const delta of block.deltas) frames.push(frame({ type: "content_block_delta", index, delta }))
    frames.push(frame({ type: "content_block_stop", index }))
  })
  frames.push(
    frame({
      type: "message_delta",
      delta: { stop_reason: plan.kind === "tool" ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: usage.output_tokens }
    })
  )
  frames.push(frame({ type: "message_stop" }))
  return frames
}

export const anthropicMessage = (plan: Exclude<Plan, { kind: "error" }>, body: unknown): Record<string, unknown> => {
  const request = record(body)
  return {
    id: id("msg"),
    type: "message",
    role: "assistant",
    model: String(request["model"] ?? "mock-model"),
    content: blocksOf(plan, record(request["thinking"])["type"] === "enabled").map((block) => block.whole),
    stop_reason: plan.kind === "tool" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage
  }
}

export const anthropicError = (plan: Extract<Plan, { kind: "error" }>) => ({
  status: plan.transient ? 529 : 400,
  body: { type: "error", error: { type: plan.transient ? "overloaded_error" : "invalid_request_error", message: plan.message } }
})
