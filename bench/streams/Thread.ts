/**
 * The one thread every stream reads: a CLI registers over the bridge, creates it with
 * `create_thread` over MCP, claims it and starts its turn, then uploads one chunk per round. The
 * upload is a bare POST so that its status is reported (a 500 is a figure here, not a crash).
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, ManagedRuntime, Schema } from "effect"
import { performance } from "node:perf_hooks"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { bridgeClient, createThreads, registerCli } from "../bridge/Bridge.js"
import type { McpTarget } from "../task-tools/Mcp.js"

const HEARTBEAT_MS = 15_000

export interface StreamedThread {
  readonly threadId: string
  /** Uploads one Claude text line; the status (0: no answer within `timeoutMs`) and when the request started (performance.now()). */
  readonly upload: (text: string, timeoutMs: number) => Promise<{ readonly status: number; readonly startedAt: number }>
  readonly close: () => Promise<void>
}

export const streamedThread = async (base: URL, apiKey: string, projectId: string, mcp: McpTarget): Promise<StreamedThread> => {
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => runtime.runPromise(Effect.orDie(effect))
  const client = await runtime.runPromise(bridgeClient(base.origin, apiKey))
  const cli = await run(registerCli(client, Schema.decodeUnknownSync(ProjectId)(projectId), "bench-streams"))
  const [threadId] = await runtime.runPromise(createThreads(mcp, cli, 1, "claude", 1))
  if (threadId === undefined) throw new Error("create_thread gave no thread")
  const { thread } = await run(client.agent.claim({ payload: { sessionId: cli.sessionId, threadId } }))
  if (thread === null) throw new Error(`could not claim ${threadId}`)
  const batch = await run(client.agent.startBatch({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch: thread.epoch } }))
  if (batch.drained) throw new Error(`${threadId}: no message to answer`)
  // The session and the claim expire after 60 s of silence; a run lasts minutes.
  const keepAlive = setInterval(() => {
    void run(client.agent.heartbeat({ payload: { sessionId: cli.sessionId } })).catch(() => undefined)
    void run(client.agent.renew({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch: thread.epoch } })).catch(() => undefined)
  }, HEARTBEAT_MS)

  let seq = 0
  const upload = async (text: string, timeoutMs: number) => {
    const data = JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text }] } })
    const body = JSON.stringify({
      sessionId: cli.sessionId,
      epoch: thread.epoch,
      messageId: batch.assistantMessageId,
      chunks: [{ seq: seq++, type: "assistant", data }]
    })
    const startedAt = performance.now()
    try {
      const response = await fetch(new URL(`/api/agent/threads/${threadId}/chunks`, base), {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(timeoutMs)
      })
      await response.arrayBuffer()
      return { status: response.status, startedAt }
    } catch {
      return { status: 0, startedAt }
    }
  }

  return {
    threadId,
    upload,
    close: async () => {
      clearInterval(keepAlive)
      await runtime.dispose()
    }
  }
}
