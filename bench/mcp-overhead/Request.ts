import { isDeepStrictEqual } from "node:util"

/** The one request every server is measured with. */
export const MCP_PATH = "/api/mcp"

export const CALL_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "list_task_types", arguments: {} }
})

export type ServerName = "floor" | "sdk" | "trellis"

export interface Target {
  readonly name: ServerName
  /** Full URL of the MCP endpoint. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export interface TaskType {
  readonly key: string
  readonly name: string
  readonly builtIn: boolean
}

export const requestHeaders = (apiKey: string): Readonly<Record<string, string>> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${apiKey}`,
  "mcp-protocol-version": "2025-06-18"
})

export const endpoint = (port: number): string => `http://127.0.0.1:${port}${MCP_PATH}`

export interface Reply {
  readonly status: number
  /** The body exactly as sent. */
  readonly bytes: Buffer
}

export const callOnce = async (target: Target): Promise<Reply> => {
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: CALL_BODY })
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const isTaskType = (value: unknown): value is TaskType =>
  isRecord(value) && typeof value["key"] === "string" && typeof value["name"] === "string" &&
  typeof value["builtIn"] === "boolean"

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The task types in a `tools/call` reply's `structuredContent`, or an explanation of what is wrong. */
const taskTypesOf = (reply: Reply): ReadonlyArray<TaskType> | string => {
  if (reply.status !== 200) return `HTTP ${reply.status}`
  const message = parseJson(reply.bytes.toString("utf8"))
  if (!isRecord(message)) return "the body is not a JSON object"
  const result = message["result"]
  if (!isRecord(result)) return "no JSON-RPC result"
  const structured = result["structuredContent"]
  if (!isRecord(structured)) return `no "structuredContent"`
  const taskTypes = structured["taskTypes"]
  if (!Array.isArray(taskTypes) || taskTypes.length === 0 || !taskTypes.every(isTaskType)) {
    return `"structuredContent" has no list of taskTypes`
  }
  return taskTypes
}

/**
 * Calls the target once and throws unless it answers 200 with `structuredContent.taskTypes`
 * (equal to `expected` when given). Returns the reply and its task types.
 */
export const verify = async (
  target: Target,
  expected?: ReadonlyArray<TaskType>
): Promise<{ readonly reply: Reply; readonly taskTypes: ReadonlyArray<TaskType> }> => {
  const reply = await callOnce(target)
  const fail = (problem: string): never => {
    const body = reply.bytes.toString("utf8").slice(0, 500)
    throw new Error(`The ${target.name} server failed the check call to ${target.url}: ${problem}\n  body: ${body}`)
  }
  const taskTypes = taskTypesOf(reply)
  if (typeof taskTypes === "string") return fail(taskTypes)
  if (expected !== undefined && !isDeepStrictEqual(taskTypes, expected)) return fail("its taskTypes differ from Trellis's")
  return { reply, taskTypes }
}
