import { Schema } from "effect"
import type { CliType } from "./CliType.js"

/** The user-facing state of an ordinary thread (docs/decisions.md "Threads"). */
export const ThreadStatus = Schema.Literal("pending", "running", "idle", "failed")
export type ThreadStatus = typeof ThreadStatus.Type

/** Where the thread is in the claim queue: SPEC's lifecycle table, one value per row state. */
export const ProcessingState = Schema.Literal("idle", "pending", "claimed", "streaming")
export type ProcessingState = typeof ProcessingState.Type

export const ThreadKind = Schema.Literal("thread", "group", "workflow_run")
export type ThreadKind = typeof ThreadKind.Type

export const AggregateStatus = Schema.Literal("idle", "running", "needs_attention", "failed")
export type AggregateStatus = typeof AggregateStatus.Type

/** Message statuses that drive work. Stored legacy values (e.g. `claimed`) are read, never acted on. */
export const MessageStatus = Schema.Literal("pending", "streaming", "completed", "failed")
export const StoredMessageStatus = Schema.String

export const MessageRole = Schema.Literal("user", "assistant")
export type MessageRole = typeof MessageRole.Type

export const MAX_GROUP_SIZE = 100
export const MAX_MESSAGE_TEXT = 4000
export const DEFAULT_MESSAGES_WINDOW = 10
export const MAX_MESSAGES_WINDOW = 20
export const MAX_TITLE_LENGTH = 80

/** Runtimes that take a slash command as a thread's first message (SPEC creation rule 8). */
export const acceptsRuntimeCommandOnCreate = (cliType: CliType): boolean => cliType === "claude" || cliType === "codex"

/** The default title: the first non-empty line of the prompt, shortened at a word boundary. */
export const titleFromContent = (content: string): string => {
  const line = content.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "New thread"
  if (line.length <= MAX_TITLE_LENGTH) return line
  const cut = line.slice(0, MAX_TITLE_LENGTH - 1)
  const space = cut.lastIndexOf(" ")
  return `${space > MAX_TITLE_LENGTH / 2 ? cut.slice(0, space) : cut}…`
}

/** Caps a message's text at about 4000 characters without splitting a surrogate pair. */
export const capText = (text: string): { readonly text: string; readonly truncated: boolean } => {
  if (text.length <= MAX_MESSAGE_TEXT) return { text, truncated: false }
  const end = /[\uD800-\uDBFF]/.test(text.charAt(MAX_MESSAGE_TEXT - 1)) ? MAX_MESSAGE_TEXT - 1 : MAX_MESSAGE_TEXT
  return { text: text.slice(0, end), truncated: true }
}

/**
 * Git's refname rules (git-check-ref-format), checked rather than sanitized: a bad branch name
 * is the caller's to fix, not ours to silently change.
 */
export const gitRefnameProblem = (name: string): string | undefined => {
  if (name === "") return "must not be empty"
  if (name === "@") return "must not be \"@\""
  if (name.startsWith("-")) return "must not start with \"-\""
  if (name.startsWith("/") || name.endsWith("/")) return "must not start or end with \"/\""
  if (name.endsWith(".")) return "must not end with \".\""
  if (name.includes("..")) return "must not contain \"..\""
  if (name.includes("//")) return "must not contain \"//\""
  if (name.includes("@{")) return "must not contain \"@{\""
  // Control characters, space, and ~ ^ : ? * [ \ are forbidden anywhere.
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return "must not contain spaces, control characters or any of ~ ^ : ? * [ \\"
  if (name.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock"))) {
    return "must not have a component starting with \".\" or ending with \".lock\""
  }
  return undefined
}
