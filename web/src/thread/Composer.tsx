import { type FormEvent, type KeyboardEvent, useEffect, useId, useState } from "react"
import type { CliType } from "../../../catalog/domain/CliType.js"
import { callTool, describeError } from "../lib/api"
import { StopButton, useStop } from "./StopButton"
import "./Composer.css"

/** What a runtime does with a slash command sent with `runtimeCommand` (SPEC, send_thread_message rules). */
const commandRules: Partial<Record<CliType, string>> = {
  claude: "Claude Code runs its own commands (such as /compact) and your custom commands and skills.",
  codex: "Codex runs only /compact; any other command reaches it as ordinary text.",
  opencode: "OpenCode runs /compact and its own commands; an unknown name fails the run."
}

const SLASH_RULE = "A runtime command is the whole slash command: it must start with /."

/** Mirrors the tool's rules so the field says what is wrong before a round trip; the tool decides. */
const problemOf = (content: string, runtimeCommand: boolean): string | undefined =>
  content.trim() === "" ? "Write a message first." : runtimeCommand && !content.startsWith("/") ? SLASH_RULE : undefined

/**
 * The box at the bottom of a thread: a message for the agent (`send_thread_message`), or with
 * "Runtime command" the runtime's own slash command. The message is queued: it shows as pending in
 * the conversation until the machine's CLI takes it.
 */
const SENT_SHOWN_MS = 4_000

/** Where the focus goes when nothing on the page waits on the person any more (after the last answer). */
export const focusComposer = () => {
  document.querySelector<HTMLTextAreaElement>("form.composer textarea")?.focus()
}

export const Composer = ({ threadId, cliType, running, onSent }: {
  readonly threadId: string
  readonly cliType: CliType
  /** The thread runs a turn now: Stop is offered beside Send. */
  readonly running: boolean
  readonly onSent: () => void
}) => {
  const stop = useStop(threadId, running, onSent)
  const [content, setContent] = useState("")
  const [runtimeCommand, setRuntimeCommand] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const [sending, setSending] = useState(false)
  const [sent, setSent] = useState(false)
  // The acknowledgement goes after a moment: the message itself shows its state in the conversation.
  useEffect(() => {
    if (!sent) return
    const timer = setTimeout(() => setSent(false), SENT_SHOWN_MS)
    return () => clearTimeout(timer)
  }, [sent])
  const fieldId = useId()
  const errorId = useId()
  const hintId = useId()

  const submit = (event?: FormEvent) => {
    event?.preventDefault()
    if (sending) return
    const problem = problemOf(content, runtimeCommand)
    setSent(false)
    if (problem !== undefined) {
      setError(problem)
      return
    }
    setSending(true)
    setError(undefined)
    void callTool("send_thread_message", { threadId, content, runtimeCommand }).then((result) => {
      setSending(false)
      if (result._tag === "Left") {
        setError(describeError(result.left))
        return
      }
      setContent("")
      setRuntimeCommand(false)
      setSent(true)
      stop.reset()
      onSent()
    })
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit()
  }

  const looksLikeCommand = !runtimeCommand && content.startsWith("/")
  const hint = runtimeCommand
    ? `${SLASH_RULE} ${commandRules[cliType] ?? "The agent runs it as its own command."}`
    : looksLikeCommand
    ? "This starts with /: tick “Runtime command” to run it as the agent’s own command; otherwise it is sent as text."
    : "Ctrl+Enter sends. The agent reads it on its next turn."

  return (
    <form className="composer" onSubmit={submit} aria-label="Send a message">
      <label htmlFor={fieldId} className="composer-label">{runtimeCommand ? "Runtime command" : "Message"}</label>
      <textarea
        id={fieldId}
        rows={3}
        value={content}
        placeholder={runtimeCommand ? "/compact" : "Reply to the agent…"}
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={error === undefined ? hintId : `${errorId} ${hintId}`}
        onChange={(event) => {
          setContent(event.currentTarget.value)
          setError(undefined)
          setSent(false)
        }}
        onKeyDown={onKeyDown}
      />
      {error === undefined ? null : <p id={errorId} className="field-error" role="alert">{error}</p>}
      <p id={hintId} className="hint">{hint}</p>
      <div className="composer-actions">
        <label className="toggle">
          <input
            type="checkbox"
            checked={runtimeCommand}
            onChange={(event) => {
              setRuntimeCommand(event.currentTarget.checked)
              setError(undefined)
            }}
          />
          Runtime command
        </label>
        {sent ? <span className="hint" role="status">Sent: it waits in the conversation until the agent takes it.</span> : null}
        {stop.status === undefined ? null : <span className="hint" role="status">{stop.status}</span>}
        <span className="composer-buttons">
          {running || stop.stopping ? <StopButton stopping={stop.stopping} onStop={stop.stop} /> : null}
          <button type="submit" disabled={sending}>{sending ? "Sending…" : "Send"}</button>
        </span>
      </div>
    </form>
  )
}
