import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { type AgentStatus, makeAgentLog, renderStatus } from "../../../cli/agent/AgentLog.js"

const now = new Date("2026-11-23T10:00:00.000Z")

const status = (overrides: Partial<AgentStatus> = {}): AgentStatus => ({
  pid: 42,
  profile: "laptop",
  server: "http://127.0.0.1:7420",
  sessionId: "session_1",
  connection: "online",
  lastHeartbeatAt: "2026-11-23T09:59:48.000Z",
  threads: [],
  ...overrides
})

const ERASE = (n: number) => `\u001b[${n}F\u001b[J`

describe("the agent's log and live view", () => {
  it("the live view shows the profile, connection, session, time since the last heartbeat, and each running thread with elapsed time and event count", () => {
    expect(renderStatus(status({ threads: [{ threadId: "thread_a", startedAt: "2026-11-23T09:58:30.000Z", events: 17 }] }), now)).toEqual([
      "── laptop · online · session session_1 · last heartbeat 12s ago",
      "   ▶ thread_a  1m 30s  17 events"
    ])
    expect(renderStatus(status({ connection: "reconnecting", lastHeartbeatAt: null }), now)).toEqual([
      "── laptop · reconnecting… · session session_1 · last heartbeat never",
      "   waiting for threads"
    ])
  })

  it.effect("on a terminal, a log line is written above the live block, which is erased and drawn again", () =>
    Effect.gen(function*() {
      const out: Array<string> = []
      const log = makeAgentLog("pretty", { live: true, write: (text) => out.push(text), now: () => now })
      yield* log.status(status())
      yield* log.info("claimed thread thread_a")
      yield* log.status(status({ threads: [{ threadId: "thread_a", startedAt: now.toISOString(), events: 0 }] }))
      expect(out).toEqual([
        "── laptop · online · session session_1 · last heartbeat 12s ago\n   waiting for threads\n",
        `${
          ERASE(2)
        }10:00:00 claimed thread thread_a\n── laptop · online · session session_1 · last heartbeat 12s ago\n   waiting for threads\n`,
        `${ERASE(2)}── laptop · online · session session_1 · last heartbeat 12s ago\n   ▶ thread_a  0s  0 events\n`
      ])
    }))

  it.effect("off a terminal, each event is one JSON line and no live block is drawn", () =>
    Effect.gen(function*() {
      const out: Array<string> = []
      const log = makeAgentLog("json", { live: true, write: (text) => out.push(text), now: () => now })
      yield* log.status(status())
      yield* log.warn("heartbeat failed", { attempt: 2 })
      expect(out.map((line) => JSON.parse(line))).toEqual([
        { time: "2026-11-23T10:00:00.000Z", level: "warn", message: "heartbeat failed", attempt: 2 }
      ])
    }))
})
