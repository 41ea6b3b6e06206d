import { Either } from "effect"
import { ALWAYS_ANSWER, type Interaction } from "../../../catalog/domain/Interaction.js"
import { type ReactNode, useEffect, useId, useState } from "react"
import { answerInteraction } from "./interactionRoutes"
import { type QuestionView, readRequest, type RequestView } from "./interactionRequest"
import "./Interactions.css"

/** Whether the request's own expiry has passed on this clock (the server will say so too, on the next read). */
const useExpiredByClock = (expiresAt: string | null): boolean => {
  const deadline = expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(expiresAt)
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!Number.isFinite(deadline) || deadline <= now) return
    const timer = setTimeout(() => setNow(Date.now()), Math.min(deadline - now + 50, 2_147_483_647))
    return () => clearTimeout(timer)
  }, [deadline, now])
  return deadline <= now
}

const answerText = (answer: unknown): string =>
  Array.isArray(answer)
    ? answer.map((one) => (Array.isArray(one) ? one.map(String).join(", ") : String(one))).join("; ")
    : ""

/** The person chose Allow always (`{always: true}`). */
const allowedAlways = (answer: unknown): boolean =>
  typeof answer === "object" && answer !== null && "always" in answer && answer.always === true

const denialMessage = (answer: unknown): string | undefined => {
  if (typeof answer !== "object" || answer === null || !("message" in answer)) return undefined
  return typeof answer.message === "string" && answer.message !== "" ? answer.message : undefined
}

/** How a settled interaction ended, in words: an expiry is never called a refusal. */
const Outcome = ({ interaction, view, mine }: {
  readonly interaction: Interaction
  readonly view: RequestView
  readonly mine: "allow" | "deny" | undefined
}) => {
  const isQuestion = view._tag === "Question"
  const late = mine !== undefined && (mine === "deny") !== (interaction.status === "denied") && interaction.status !== "expired"
  switch (interaction.status) {
    case "expired":
      return (
        <p className="outcome expired" role="status">
          <span className="badge">Expired</span> Nobody answered in time; the agent was told it expired, not that you refused.
        </p>
      )
    case "answered":
      return (
        <p className="outcome" role="status">
          <span className="badge done">
            {isQuestion
              ? "Answered"
              : view._tag === "Plan"
              ? "Plan approved"
              : allowedAlways(interaction.answer)
              ? "Allowed always"
              : "Allowed"}
          </span>
          {view._tag === "Permission" && view.standingRule !== undefined && allowedAlways(interaction.answer)
            ? ` ${view.standingRule}`
            : null}
          {isQuestion && answerText(interaction.answer) !== "" ? ` ${answerText(interaction.answer)}` : null}
          {late ? " (it was already answered: the first answer stands)" : null}
        </p>
      )
    case "denied": {
      const message = denialMessage(interaction.answer)
      return (
        <p className="outcome" role="status">
          <span className="badge status-failed">{isQuestion ? "Declined" : "Denied"}</span>
          {message === undefined ? null : ` “${message}”`}
          {late ? " (it was already answered: the first answer stands)" : null}
        </p>
      )
    }
    case "pending":
      return null
  }
}

const QuestionField = ({ question, chosen, onChoose, other, onOther, disabled }: {
  readonly question: QuestionView
  readonly chosen: ReadonlyArray<string>
  readonly onChoose: (labels: ReadonlyArray<string>) => void
  readonly other: string
  readonly onOther: (text: string) => void
  readonly disabled: boolean
}) => {
  const name = useId()
  return (
    <fieldset className="question" disabled={disabled}>
      <legend>
        {question.header === undefined ? null : <span className="question-header">{question.header}</span>}
        {question.question}
      </legend>
      {question.options.map((option) => (
        <label key={option.label} className="choice">
          <input
            type={question.multiple ? "checkbox" : "radio"}
            name={name}
            checked={chosen.includes(option.label)}
            onChange={(event) =>
              onChoose(
                question.multiple
                  ? (event.currentTarget.checked ? [...chosen, option.label] : chosen.filter((label) => label !== option.label))
                  : [option.label]
              )}
          />
          <span>
            <span className="choice-label">{option.label}</span>
            {option.description === undefined ? null : <span className="hint choice-description">{option.description}</span>}
          </span>
        </label>
      ))}
      {question.freeText ?
        (
          <label className="other">
            <span>{question.options.length === 0 ? "Your answer" : "Or your own answer"}</span>
            <input type="text" value={other} onChange={(event) => onOther(event.currentTarget.value)} />
          </label>
        ) :
        null}
    </fieldset>
  )
}

const RequestBody = ({ view }: { readonly view: RequestView }) => {
  switch (view._tag) {
    case "Plan":
      return <div className="plan text">{view.plan}</div>
    case "Question":
      return null
    case "Permission":
      return (
        <>
          {view.description === undefined ? null : <p className="request-description">{view.description}</p>}
          {view.command === undefined ? null : (
            <>
              <h3>Command</h3>
              <pre className="command">{view.command}</pre>
            </>
          )}
          {view.cwd === undefined ? null : (
            <p className="hint">
              In <code>{view.cwd}</code>
            </p>
          )}
          {view.blockedPath === undefined ? null : (
            <p className="hint">
              Path: <code>{view.blockedPath}</code>
            </p>
          )}
          {view.patterns.length === 0 ? null : (
            <>
              <h3>On</h3>
              <pre>{view.patterns.join("\n")}</pre>
            </>
          )}
          {view.details === "" ? null : (
            <>
              <h3>{view.command === undefined ? "Input" : "More input"}</h3>
              <pre>{view.details}</pre>
            </>
          )}
          {view.extras === "" ? null : (
            <details className="request-extras">
              <summary>What the runtime sent</summary>
              <pre>{view.extras}</pre>
            </details>
          )}
        </>
      )
  }
}

const headingOf = (view: RequestView): string =>
  view._tag === "Plan" ? "Approve the plan?" : view._tag === "Question" ? "A question for you" : view.heading

/**
 * One interaction, answerable in place: a permission with Allow / Deny (and an optional message
 * that reaches the agent with the denial), a plan with its text, a question with its options and
 * free text where the runtime accepts it. Where the runtime offers a standing rule, "Allow always"
 * is a second choice, with the rule's words above it. The server keeps the first answer, and replies to a
 * later one with it, so a second tab shows what stands instead of an error.
 */
export const InteractionCard = ({ interaction, onSettled, context }: {
  readonly interaction: Interaction
  readonly onSettled: (interaction: Interaction) => void
  /** Where it comes from, shown under the heading (the thread, on a list across threads). */
  readonly context?: ReactNode
}) => {
  const view = readRequest(interaction.kind, interaction.request)
  const expired = useExpiredByClock(interaction.expiresAt)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const [mine, setMine] = useState<"allow" | "deny" | undefined>(undefined)
  const [denying, setDenying] = useState(false)
  const [message, setMessage] = useState("")
  const [choices, setChoices] = useState<Record<string, ReadonlyArray<string>>>({})
  const [others, setOthers] = useState<Record<string, string>>({})
  const headingId = useId()
  const messageId = useId()
  const errorId = useId()
  const ruleId = useId()

  const shown: Interaction = expired && interaction.status === "pending" ? { ...interaction, status: "expired" } : interaction
  const settled = shown.status !== "pending"

  const send = (deny: boolean, answer?: unknown) => {
    setBusy(true)
    setError(undefined)
    setMine(deny ? "deny" : "allow")
    void answerInteraction(interaction.interactionId, answer === undefined ? { deny } : { deny, answer }).then((result) => {
      setBusy(false)
      if (Either.isRight(result)) onSettled(result.right)
      else setError(result.left)
    })
  }

  const standingRule = view._tag === "Permission" ? view.standingRule : undefined
  const questions = view._tag === "Question" ? view.questions : []
  const answers = questions.map((question) => {
    const other = (others[question.key] ?? "").trim()
    return [...(choices[question.key] ?? []), ...(other === "" ? [] : [other])]
  })
  const unanswered = answers.some((labels) => labels.length === 0)

  return (
    <section className={`interaction${settled ? " settled" : ""}`} aria-labelledby={headingId}>
      <h2 id={headingId} className="interaction-title">{headingOf(view)}</h2>
      {context}
      {settled ? <Outcome interaction={shown} view={view} mine={mine} /> : null}
      {!settled || view._tag !== "Question" ? <RequestBody view={view} /> : null}
      {settled ? null : view._tag === "Question" ?
        (
          <form
            className="interaction-form"
            onSubmit={(event) => {
              event.preventDefault()
              if (!unanswered) send(false, answers)
            }}
          >
            {questions.map((question) => (
              <QuestionField
                key={question.key}
                question={question}
                chosen={choices[question.key] ?? []}
                onChoose={(labels) => setChoices({ ...choices, [question.key]: labels })}
                other={others[question.key] ?? ""}
                onOther={(text) => setOthers({ ...others, [question.key]: text })}
                disabled={busy}
              />
            ))}
            {questions.length === 0 ? <p className="hint">The agent asked without saying what; you can only decline.</p> : null}
            <div className="actions">
              {questions.length === 0 ? null : <button type="submit" disabled={busy || unanswered}>Send answer</button>}
              <button type="button" className="quiet" disabled={busy} onClick={() => send(true)}>Decline</button>
            </div>
          </form>
        ) :
        (
          <form
            className="interaction-form"
            onSubmit={(event) => {
              event.preventDefault()
              send(true, message.trim() === "" ? undefined : { message: message.trim() })
            }}
          >
            {denying ?
              (
                <label className="deny-message" htmlFor={messageId}>
                  <span>Why (optional; the agent reads it)</span>
                  <textarea id={messageId} rows={2} autoFocus value={message} onChange={(event) => setMessage(event.currentTarget.value)} />
                </label>
              ) :
              null}
            {standingRule === undefined || denying ? null : (
              <p id={ruleId} className="standing-rule">
                <strong>Allow always:</strong> {standingRule}
              </p>
            )}
            {/* Two sets of buttons, keyed apart: were "Deny…" reused as the submit button, the click that opened the message would also send it. */}
            {denying ?
              (
                <div className="actions" key="denying">
                  <button type="submit" className="danger" disabled={busy}>Deny</button>
                  <button type="button" className="quiet" disabled={busy} onClick={() => setDenying(false)}>Cancel</button>
                </div>
              ) :
              (
                <div className="actions" key="asking">
                  <button type="button" disabled={busy} onClick={() => send(false)}>Allow</button>
                  {standingRule === undefined ?
                    null :
                    (
                      <button type="button" disabled={busy} aria-describedby={ruleId} onClick={() => send(false, ALWAYS_ANSWER)}>
                        Allow always
                      </button>
                    )}
                  <button type="button" className="quiet" disabled={busy} onClick={() => setDenying(true)}>Deny…</button>
                </div>
              )}
          </form>
        )}
      {error === undefined ? null : <p id={errorId} className="field-error" role="alert">Not sent: {error}</p>}
    </section>
  )
}
