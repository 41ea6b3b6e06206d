/**
 * The project's mock model server: Anthropic Messages, OpenAI Responses and OpenAI Chat
 * Completions (streaming, plus non-streaming Messages), answering from the script in Script.ts.
 * It listens on 127.0.0.1, port 0, and keeps every request it received so tests can look at
 * what a runtime sent (a resumed session carries its earlier turns).
 */
import * as http from "node:http"
import { anthropicConversation, anthropicError, anthropicMessage, anthropicStream } from "./Anthropic.js"
import { chatConversation, chatStream } from "./OpenAIChat.js"
import { openaiError, responsesConversation, responsesStream } from "./OpenAIResponses.js"
import { type Conversation, decide, type FailureCounts, type Plan } from "./Script.js"

export interface MockRequest {
  readonly method: string
  readonly path: string
  readonly body: unknown
  /** What the script made of it (undefined for requests outside the three APIs). */
  readonly conversation: Conversation | undefined
  readonly plan: Plan | undefined
}

export interface MockModel {
  /** `http://127.0.0.1:<port>` (Anthropic base URL); OpenAI clients use `${url}/v1`. */
  readonly url: string
  readonly requests: ReadonlyArray<MockRequest>
  readonly close: () => Promise<void>
}

type Api = "anthropic" | "responses" | "chat"

const apiOf = (path: string): Api | undefined => {
  if (/\/v1\/messages$/.test(path)) return "anthropic"
  if (/\/responses$/.test(path)) return "responses"
  if (/\/chat\/completions$/.test(path)) return "chat"
  return undefined
}

const conversationOf: Record<Api, (body: unknown) => Conversation> = {
  anthropic: anthropicConversation,
  responses: responsesConversation,
  chat: chatConversation
}

const readBody = (request: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = ""
    request.setEncoding("utf8")
    request.on("data", (piece: string) => (body += piece))
    request.on("end", () => resolve(body))
    request.on("error", reject)
  })

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const sendJson = (response: http.ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

const sendEvents = (response: http.ServerResponse, frames: ReadonlyArray<string>) => {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
  for (const frame of frames) response.write(frame)
  response.end()
}

const isStreaming = (body: unknown): boolean => typeof body === "object" && body !== null && Reflect.get(body, "stream") === true

export const startMockModel = async (): Promise<MockModel> => {
  const requests: Array<MockRequest> = []
  const failures: FailureCounts = new Map()

  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname
    const body = parse(await readBody(request))
    const api = request.method === "POST" ? apiOf(path) : undefined
    if (api === undefined) {
      requests.push({ method: request.method ?? "GET", path, body, conversation: undefined, plan: undefined })
      if (path.endsWith("/count_tokens")) return sendJson(response, 200, { input_tokens: 100 })
      if (path.endsWith("/models")) {
        return sendJson(response, 200, { object: "list", data: [{ id: "mock-model", object: "model", owned_by: "mock" }] })
      }
      return sendJson(response, request.method === "HEAD" || path === "/" ? 200 : 404, {})
    }
    const conversation = conversationOf[api](body)
    const plan = decide(conversation, failures)
    requests.push({ method: "POST", path, body, conversation, plan })
    if (plan.kind === "error") {
      const error = api === "anthropic" ? anthropicError(plan) : openaiError(plan)
      return sendJson(response, error.status, error.body)
    }
    if (api === "anthropic") {
      return isStreaming(body) ? sendEvents(response, anthropicStream(plan, body)) : sendJson(response, 200, anthropicMessage(plan, body))
    }
    return sendEvents(response, api === "responses" ? responsesStream(plan, body) : chatStream(plan, body))
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => sendJson(response, 500, { error: { message: String(error) } }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
