import { Schema } from "effect"

/** Coding-agent runtimes a thread can target (SPEC "Runtimes"); only the first three execute. */
export const CliType = Schema.Literal(
  "claude",
  "codex",
  "opencode",
  "gemini",
  "cursor",
  "amp",
  "copilot",
  "aider",
  "qwen",
  "droid",
  "other"
)
export type CliType = typeof CliType.Type

/** How the CLI talks to a runtime; a runtime's chunks are read according to it. */
export const RuntimeTransport = Schema.Literal("stream-json", "app-server", "exec", "server", "run")
export type RuntimeTransport = typeof RuntimeTransport.Type
