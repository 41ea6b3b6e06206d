/** What the server is made to hold between two readings: tool calls, and a long thread streamed to a client. */
import { callTool, stringField, type McpTarget, type ToolCall } from "../task-tools/Mcp.js"

/** `count` tool calls, `concurrency` at a time, cycling through creating a task, reading it, listing and searching. */
export const toolCalls = async (target: McpTarget, projectId: string, count: number, concurrency: number): Promise<void> => {
  const refs: Array<string> = []
  let next = 0
  const callFor = (n: number): ToolCall => {
    const ref = refs[n % Math.max(1, refs.length)]
    switch (n % 4) {
      case 1:
        if (ref !== undefined) return { name: "get_task", arguments: { projectId, taskId: ref } }
        return { name: "list_tasks", arguments: { projectId } }
      case 2:
        return { name: "list_tasks", arguments: { projectId } }
      case 3:
        return { name: "search_tasks", arguments: { projectId, query: "memory benchmark" } }
      default:
        return { name: "create_task", arguments: { projectId, name: `Memory benchmark task ${n}`, description: `Task ${n} of the run.` } }
    }
  }
  const worker = async () => {
    while (next < count) {
      const n = next++
      const call = callFor(n)
      const result = await callTool(target, call)
      if (call.name === "create_task") refs.push(stringField(result, "refId"))
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/**
 * Reads a thread's events as the web app does (`?batch=1`) until `lastText` has arrived, then closes the
 * stream; the milliseconds it took.
 */
export const streamThread = async (origin: string, apiKey: string, threadId: string, lastText: string, timeoutMs: number) => {
  const started = performance.now()
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    const response = await fetch(`${origin}/api/threads/${threadId}/events?batch=1`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" },
      signal: abort.signal
    })
    if (response.status !== 200 || response.body === null) throw new Error(`the events stream answered ${response.status}`)
    const decoder = new TextDecoder()
    let tail = ""
    for await (const chunk of response.body) {
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4_096)
      if (tail.includes(lastText)) return performance.now() - started
    }
    throw new Error("the events stream ended before the thread's last event")
  } finally {
    clearTimeout(timer)
    abort.abort()
  }
}
