/** Tool calls over Trellis's MCP endpoint: the JSON-RPC body, and one call with its result checked. */

export interface ToolCall {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

export interface McpTarget {
  /** Full URL of the MCP endpoint. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

export const toolCallBody = (call: ToolCall): string =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: call.name, arguments: call.arguments } })

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const describe = (call: ToolCall, problem: string, body: string): Error =>
  new Error(`${call.name} ${JSON.stringify(call.arguments)}: ${problem}\n  body: ${body.slice(0, 500)}`)

/**
 * Calls a tool and returns its `structuredContent`; throws on an HTTP error, a JSON-RPC error
 * or a tool error (`isError`), since the benchmark must only measure calls that succeed.
 */
export const callTool = async (target: McpTarget, call: ToolCall): Promise<Record<string, unknown>> => {
  const response = await fetch(target.url, { method: "POST", headers: target.headers, body: toolCallBody(call) })
  const body = await response.text()
  if (response.status !== 200) throw describe(call, `HTTP ${response.status}`, body)
  let message: unknown
  try {
    message = JSON.parse(body)
  } catch {
    throw describe(call, "the body is not JSON", body)
  }
  const result = isRecord(message) ? message["result"] : undefined
  if (!isRecord(result)) throw describe(call, "no JSON-RPC result", body)
  const structured = result["structuredContent"]
  if (result["isError"] === true || !isRecord(structured)) throw describe(call, "the tool failed", body)
  return structured
}

export const stringField = (record: Record<string, unknown>, field: string): string => {
  const value = record[field]
  if (typeof value !== "string") throw new Error(`expected a string "${field}" in ${JSON.stringify(record).slice(0, 300)}`)
  return value
}

export const arrayField = (record: Record<string, unknown>, field: string): ReadonlyArray<Record<string, unknown>> => {
  const value = record[field]
  if (!Array.isArray(value) || !value.every(isRecord)) {
    throw new Error(`expected a list of objects "${field}" in ${JSON.stringify(record).slice(0, 300)}`)
  }
  return value
}
