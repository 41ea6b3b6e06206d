/**
 * The OpenAI Responses wire format of the mock model (what Codex speaks): request → conversation,
 * plan → SSE events (response.created … response.completed); a tool call is one whole
 * `function_call` output item.
 */
import { randomUUID } from "node:crypto"
import { type Conversation, type Plan, textOf, userWords } from "./Script.js"

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? Object(value) : {})
const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

export const responsesConversation = (body: unknown): Conversation => {
  const request = record(body)
  const tools = list(request["tools"]).map((tool) => String(record(tool)["name"] ?? ""))
  const input = request["input"]
  const items = typeof input === "string" ? [{ type: "message", role: "user", content: input }] : list(input).map(record)
  const last = items.at(-1) ?? {}
  const isOutput = typeof last["type"] === "string" && String(last["type"]).endsWith("call_output")
  const lastUser = [...items].reverse().find((item) => item["role"] === "user")
  const content = lastUser?.["content"]
  const texts = typeof content === "string" ? [content] : list(content).map((part) => textOf([part]))
  return {
    tools,
    toolResult: isOutput ? textOf(typeof last["output"] === "string" ? last["output"] : list(last["output"])) : undefined,
    lastUserText: userWords(texts)
  }
}

const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "")}`

export const responsesStream = (plan: Exclude<Plan, { kind: "error" }>, body: unknown): ReadonlyArray<string> => {
  const model = String(record(body)["model"] ?? "mock-model")
  const responseId = id("resp")
  let sequence = 0
  const frame = (data: Record<string, unknown>) =>
    `event: ${String(data["type"])}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence++ })}\n\n`
  const base = { id: responseId, object: "response", created_at: Math.floor(Date.now() / 1000), model }
  const frames = [frame({ type: "response.created", response: { ...base, status: "in_progress", output: [] } })]
  const output: Array<Record<string, unknown>> = []

  const messageId = id("msg")
  const message = {
    id: messageId,
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: plan.text, annotations: [] }]
  }
  frames.push(frame({ type: "response.output_item.added", output_index: 0, item: { ...message, status: "in_progress", content: [] } }))
  frames.push(
    frame({
      type: "response.content_part.added",
      item_id: messageId,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] }
    })
  )
  frames.push(frame({ type: "response.output_text.delta", item_id: messageId, output_index: 0, content_index: 0, delta: plan.text }))
  frames.push(frame({ type: "response.output_text.done", item_id: messageId, output_index: 0, content_index: 0, text: plan.text }))
  frames.push(
    frame({ type: "response.content_part.done", item_id: messageId, output_index: 0, content_index: 0, part: message.content[0] })
  )
  frames.push(frame({ type: "response.output_item.done", output_index: 0, item: message }))
  output.push(message)

  if (plan.kind === "tool") {
    const call = {
      id: id("fc"),
      type: "function_call",
      status: "completed",
      call_id: id("call"),
      name: plan.name,
      arguments: JSON.stringify(plan.input)
    }
    frames.push(frame({ type: "response.output_item.added", output_index: 1, item: call }))
    frames.push(frame({ type: "response.output_item.done", output_index: 1, item: call }))
    output.push(call)
  }
  frames.push(frame({
    type: "response.completed",
    response: {
      ...base,
      status: "completed",
      output,
      usage: {
        input_tokens: 200,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 30,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 230
      }
    }
  }))
  return frames
}

export const openaiError = (plan: Extract<Plan, { kind: "error" }>) => ({
  status: plan.transient ? 503 : 400,
  body: {
    error: {
      message: plan.message,
      type: plan.transient ? "server_error" : "invalid_request_error",
      code: plan.transient ? null : "invalid_request",
      param: null
    }
  }
})
