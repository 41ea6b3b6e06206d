import { Effect, Schema } from "effect"

/**
 * What the running agent reports: one JSON object per line when stdout is not a terminal (or
 * `--log-format json`), readable lines otherwise; on a terminal, a live status block stays under
 * the log lines and is redrawn as the state changes. Nothing secret is ever passed here.
 */
export interface AgentLog {
  readonly info: (message: string, fields?: Record<string, unknown>) => Effect.Effect<void>
  readonly warn: (message: string, fields?: Record<string, unknown>) => Effect.Effect<void>
  /** The state the live view shows (ignored where there is none). */
  readonly status: (status: AgentStatus) => Effect.Effect<void>
}

export type LogFormat = "json" | "pretty"

/** What the live view shows, and the status file `trellis agent status` reads holds. */
export const AgentStatus = Schema.Struct({
  pid: Schema.Number,
  profile: Schema.String,
  server: Schema.String,
  sessionId: Schema.String,
  connection: Schema.Literal("online", "reconnecting"),
  lastHeartbeatAt: Schema.NullOr(Schema.String),
  threads: Schema.Array(Schema.Struct({ threadId: Schema.String, startedAt: Schema.String, events: Schema.Number }))
})
export type AgentStatus = typeof AgentStatus.Type

const elapsed = (fromIso: string | null, now: Date): string => {
  if (fromIso === null) return "never"
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(fromIso)) / 1000))
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  return minutes < 60 ? `${minutes}m ${seconds % 60}s` : `${Math.floor(minutes / 60)}h ${minutes % 60}m`
}

/** The live view's lines: session and connection, then one line per running thread. */
export const renderStatus = (status: AgentStatus, now: Date): ReadonlyArray<string> => [
  `── ${status.profile} · ${status.connection === "online" ? "online" : "reconnecting…"} · session ${status.sessionId}` +
  ` · last heartbeat ${elapsed(status.lastHeartbeatAt, now)}${status.lastHeartbeatAt === null ? "" : " ago"}`,
  ...(status.threads.length === 0
    ? ["   waiting for threads"]
    : status.threads.map((thread) => `   ▶ ${thread.threadId}  ${elapsed(thread.startedAt, now)}  ${thread.events} events`))
]

// Cursor to the start of the line `n` lines up, then clear to the end of the screen.
const eraseLines = (n: number) => (n === 0 ? "" : `\u001b[${n}F\u001b[J`)

export const makeAgentLog = (
  format: LogFormat,
  options: { readonly write?: (text: string) => void; readonly live?: boolean; readonly now?: () => Date } = {}
): AgentLog => {
  const write = options.write ?? ((text: string) => process.stdout.write(text))
  const now = options.now ?? (() => new Date())
  const live = format === "pretty" && options.live === true
  let block: ReadonlyArray<string> = []

  // A log line goes above the block: the block is erased, the line written, the block drawn again.
  const emit = (level: "info" | "warn", message: string, fields: Record<string, unknown> = {}) =>
    Effect.sync(() => {
      const time = now().toISOString()
      const line = format === "json"
        ? `${JSON.stringify({ time, level, message, ...fields })}\n`
        : `${time.slice(11, 19)} ${level === "warn" ? "warning: " : ""}${message}\n`
      if (!live) return write(line)
      write(`${eraseLines(block.length)}${line}${block.map((text) => `${text}\n`).join("")}`)
    })

  const status = (next: AgentStatus) =>
    Effect.sync(() => {
      if (!live) return
      const lines = renderStatus(next, now())
      write(`${eraseLines(block.length)}${lines.map((text) => `${text}\n`).join("")}`)
      block = lines
    })

  return { info: (message, fields) => emit("info", message, fields), warn: (message, fields) => emit("warn", message, fields), status }
}
