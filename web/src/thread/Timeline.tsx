import { type ComposedMessage, type MessagePart } from "../../../catalog/events/compose.js"
import type { ResultOf } from "../api"

export type Message = ResultOf<"list_thread_messages">["messages"][number]

const toolStateLabel = { running: "Running", completed: "Done", error: "Failed" } as const

const pretty = (json: string): string => {
  try {
    return JSON.stringify(JSON.parse(json), null, 2)
  } catch {
    return json
  }
}

const Part = ({ part }: { readonly part: MessagePart }) => {
  switch (part.type) {
    case "text":
      return <div className="text">{part.text}</div>
    case "reasoning":
      return (
        <details className="reasoning">
          <summary>Thinking</summary>
          <div className="text">{part.text}</div>
        </details>
      )
    case "tool":
      return (
        <details className={`tool tool-${part.state}`}>
          <summary>
            <span className="tool-name">{part.toolName}</span>
            <span className={`badge tool-state-${part.state}`}>{toolStateLabel[part.state]}</span>
          </summary>
          <div className="tool-body">
            <h3>Input</h3>
            <pre>{pretty(part.inputJson)}</pre>
            {part.outputJson !== undefined ? <><h3>Output</h3><pre>{pretty(part.outputJson)}</pre></> : null}
            {part.errorMessage !== undefined ? <><h3>Error</h3><pre>{part.errorMessage}</pre></> : null}
          </div>
        </details>
      )
    case "notice":
      return <p className="notice">{part.message}</p>
    case "warning":
      return <p className="notice warning">{part.message}</p>
    case "compaction":
      return <p className="notice">Context compacted{part.preTokens === undefined ? "" : ` (${part.preTokens} tokens before)`}</p>
  }
}

const AssistantMessage = ({ composed, fallback, status }: {
  readonly composed: ComposedMessage | undefined
  readonly fallback: string
  readonly status: string | undefined
}) => (
  <li className="message assistant" aria-label="Agent">
    {composed !== undefined && composed.parts.length > 0
      ? composed.parts.map((part, i) => <Part key={i} part={part} />)
      : <div className="text">{fallback}</div>}
    {status === "streaming" || status === "pending" ? <p className="hint" role="status">Working…</p> : null}
    {status === "failed" ? <p className="notice warning">This run failed.</p> : null}
  </li>
)

const UserMessage = ({ message }: { readonly message: Message }) => (
  <li className="message user" aria-label={message.sentBy === undefined ? "You" : `From ${message.sentBy.title}`}>
    {message.sentBy !== undefined ? <p className="hint">From {message.sentBy.title}</p> : null}
    <div className="text">{message.text}</div>
    {message.status === "pending" ? <p className="hint">Waiting for the agent</p> : null}
  </li>
)

/** The conversation: the listed messages in order, then the turns the event stream named before the list caught up. */
export const Timeline = ({ messages, composed, unseen }: {
  readonly messages: ReadonlyArray<Message>
  readonly composed: ReadonlyMap<string, ComposedMessage>
  readonly unseen: ReadonlyArray<string>
}) => (
  <ol className="conversation" aria-label="Conversation">
    {messages.map((message) =>
      message.role === "user"
        ? <UserMessage key={message.messageId} message={message} />
        : <AssistantMessage key={message.messageId} composed={composed.get(message.messageId)} fallback={message.text} status={message.status} />
    )}
    {unseen.map((messageId) => <AssistantMessage key={messageId} composed={composed.get(messageId)} fallback="" status="streaming" />)}
  </ol>
)
