/**
 * The OpenAI Chat Completions wire format of the mock model (what OpenCode's openai-compatible
 * provider speaks): request → conversation, plan → `chat.completion.chunk` SSE frames with
 * `reasoning_content` and `tool_calls` deltas, usage on the last chunk, then `[DONE]`.
 */
import { randomUUID } from "node:crypto"
import { type Conversation, type Plan, textOf, userWords } from "./Script.js"

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? Object(value) : {})
const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

export const chatConversation = (body: unknown): Conversation => {
  const request = record(body)
  const tools = list(request["tools"]).map((tool) => String(record(record(tool)["function"])["name"] ?? ""))
  const messages = list(request["messages"]).map(record)
  const last = messages.at(-1) ?? {}
  const lastUser = [...messages].reverse().find((message) => message["role"] === "user")
  const content = lastUser?.["content"]
  return {
    tools,
    toolResult: last["role"] === "tool" ? textOf(last["content"]) : undefined,
    lastUserText: userWords(typeof content === "string" ? [content] : list(content).map((part) => textOf([part])))
  }
}

export const chatStream = (plan: Exclude<Plan, { kind: "error" }>, body: unknown): ReadonlyArray<string> => {
  const model = String(record(body)["model"] ?? "mock-model")
  const base = { id: `chatcmpl-${randomUUID()}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model }
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const frames = [
    chunk({ role: "assistant", content: "" }),
    chunk({ reasoning_content: "Thinking about the request." }),
    chunk({ content: plan.text })
  ]
  if (plan.kind === "tool") {
    frames.push(chunk({
      tool_calls: [{
        index: 0,
        id: `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
        type: "function",
        function: { name: plan.name, arguments: JSON.stringify(plan.input) }
      }]
    }))
  }
  frames.push(chunk({}, plan.kind === "tool" ? "tool_calls" : "stop"))
  frames.push(
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 200, completion_tokens: 30, total_tokens: 230 } })}\n\n`
  )
  frames.push("data: [DONE]\n\n")
  return frames
}
