/**
 * The threads the web benchmark opens, written through the public surface as a CLI writes them:
 * a CLI registers over the bridge, threads are created with `create_thread` over MCP, claimed, and
 * their turns' Claude Code lines uploaded with `uploadChunks`.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, ManagedRuntime, Schema } from "effect"
import { performance } from "node:perf_hooks"
import { MAX_CHUNKS_PER_UPLOAD } from "../../catalog/bridge/AgentApi.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { bridgeClient, type BridgeClient, type Cli, createThreads, registerCli } from "../bridge/Bridge.js"
import type { McpTarget } from "../task-tools/Mcp.js"

export interface Line {
  readonly type: string
  readonly data: string
}

const line = (value: { readonly type: string } & Record<string, unknown>): Line => ({ type: value.type, data: JSON.stringify(value) })
/** Text with no uuid or message id: every line is a part (consecutive ones show as one run). */
export const text = (value: string): Line => line({ type: "assistant", message: { content: [{ type: "text", text: value }] } })
const toolUse = (id: string, command: string) =>
  line({ type: "assistant", message: { content: [{ type: "tool_use", id, name: "Bash", input: { command } }] } })
const toolResult = (id: string, output: string) =>
  line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] } })
const init = line({ type: "system", subtype: "init", session_id: "bench-session", model: "claude-sonnet-4-5" })

/** The text of a run's last event: what "the last event is visible" looks for. */
export const lastLineText = (events: number) => `The end of the run (event ${events}).`

/**
 * A long Claude run of exactly `events` lines, one event each: the init line, then steps of a
 * sentence, a shell call and its output (two parts per step: a long turn has thousands), and a
 * closing sentence.
 */
export const longRun = (events: number): ReadonlyArray<Line> => {
  const lines: Array<Line> = [init]
  while (lines.length < events - 1) {
    const kind = (lines.length - 1) % 3
    const step = Math.floor((lines.length - 1) / 3) + 1
    lines.push(
      kind === 0
        ? text(`Step ${step}: reading src/module-${step}.ts to see how it handles the edge case.`)
        : kind === 1
        ? toolUse(`call-${step}`, `sed -n 1,80p src/module-${step}.ts`)
        : toolResult(`call-${step}`, `export const handler${step} = (input: string) => input.trim() // ${"x".repeat(60)}`)
    )
  }
  lines.push(text(lastLineText(events)))
  return lines
}

/** A turn under a claim: its lines are uploaded when the benchmark says. */
export interface Turn {
  readonly threadId: string
  /** Uploads `lines` in requests of the upload limit; returns when the last one was answered. */
  readonly upload: (lines: ReadonlyArray<Line>) => Promise<void>
  /** One single-chunk upload; resolves with the epoch milliseconds (high resolution) at which the request started. */
  readonly uploadOne: (line: Line) => Promise<number>
  readonly complete: () => Promise<void>
}

const HEARTBEAT_MS = 15_000

/** A bench CLI on the server: it starts turns and keeps its session and claims alive until `close`. */
export const benchCli = async (baseUrl: string, apiKey: string, projectId: string, mcp: McpTarget) => {
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => runtime.runPromise(Effect.orDie(effect))
  const client: BridgeClient = await runtime.runPromise(bridgeClient(baseUrl, apiKey))
  const cli: Cli = await run(registerCli(client, Schema.decodeUnknownSync(ProjectId)(projectId), "bench-web"))
  const claims: Array<{ readonly threadId: string; readonly epoch: number }> = []
  const keepAlive = setInterval(() => {
    void run(client.agent.heartbeat({ payload: { sessionId: cli.sessionId } })).catch(() => undefined)
    for (const claim of claims) {
      void run(client.agent.renew({ path: { threadId: claim.threadId }, payload: { sessionId: cli.sessionId, epoch: claim.epoch } }))
        .catch(() => undefined)
    }
  }, HEARTBEAT_MS)

  const startTurn = async (): Promise<Turn> => {
    const [threadId] = await runtime.runPromise(createThreads(mcp, cli, 1, "claude", 1))
    if (threadId === undefined) throw new Error("create_thread gave no thread")
    const { thread } = await run(client.agent.claim({ payload: { sessionId: cli.sessionId, threadId } }))
    if (thread === null) throw new Error(`could not claim ${threadId}`)
    claims.push({ threadId, epoch: thread.epoch })
    const batch = await run(client.agent.startBatch({ path: { threadId }, payload: { sessionId: cli.sessionId, epoch: thread.epoch } }))
    if (batch.drained) throw new Error(`${threadId}: no message to answer`)
    const target = { sessionId: cli.sessionId, epoch: thread.epoch, messageId: batch.assistantMessageId }
    let seq = 0
    const send = (lines: ReadonlyArray<Line>) =>
      run(client.agent.uploadChunks({ path: { threadId }, payload: { ...target, chunks: lines.map((l) => ({ seq: seq++, ...l })) } }))
    return {
      threadId,
      upload: async (lines) => {
        for (let start = 0; start < lines.length; start += MAX_CHUNKS_PER_UPLOAD) {
          await send(lines.slice(start, start + MAX_CHUNKS_PER_UPLOAD))
        }
      },
      uploadOne: async (one) => {
        const startedAt = performance.timeOrigin + performance.now()
        await send([one])
        return startedAt
      },
      complete: () => run(client.agent.complete({ path: { threadId }, payload: target })).then(() => undefined)
    }
  }

  return {
    startTurn,
    close: async () => {
      clearInterval(keepAlive)
      await runtime.dispose()
    }
  }
}
