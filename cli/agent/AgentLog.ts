import { Effect } from "effect"

/**
 * What the running agent reports: one JSON object per line when stdout is not a terminal (or
 * `--log-format json`), readable lines otherwise. Nothing secret is ever passed here.
 */
export interface AgentLog {
  readonly info: (message: string, fields?: Record<string, unknown>) => Effect.Effect<void>
  readonly warn: (message: string, fields?: Record<string, unknown>) => Effect.Effect<void>
}

export type LogFormat = "json" | "pretty"

export const makeAgentLog = (format: LogFormat, write: (line: string) => void = (line) => process.stdout.write(line)): AgentLog => {
  const emit = (level: "info" | "warn", message: string, fields: Record<string, unknown> = {}) =>
    Effect.sync(() => {
      const time = new Date().toISOString()
      write(format === "json"
        ? `${JSON.stringify({ time, level, message, ...fields })}\n`
        : `${time.slice(11, 19)} ${level === "warn" ? "warning: " : ""}${message}\n`)
    })
  return { info: (message, fields) => emit("info", message, fields), warn: (message, fields) => emit("warn", message, fields) }
}
