import { type FormEvent, useState } from "react"
import type { SignInLinkReason } from "../../../catalog/domain/SignIn.js"
import { signIn } from "../lib/api"
import "./SignIn.css"

const FRESH_LINK = "trellis admin signin-link"

/** What the person is told when a one-time link opened nothing, and what to do instead. */
const refusals: Record<SignInLinkReason, { readonly title: string; readonly text: string; readonly command: string }> = {
  used: {
    title: "This sign-in link was already used",
    text: "A link signs in one browser, once. Sign in with your API key below, or print a fresh link where Trellis runs:",
    command: FRESH_LINK
  },
  expired: {
    title: "This sign-in link has expired",
    text: "A link works for 10 minutes after it is printed. Sign in with your API key below, or print a fresh link where Trellis runs:",
    command: FRESH_LINK
  },
  revoked: {
    title: "This sign-in link's API key was revoked",
    text: "It can no longer sign anyone in. Sign in below with another key, or create one where Trellis runs:",
    command: "trellis admin key create"
  },
  unknown: {
    title: "This sign-in link is not valid",
    text:
      "It may have been cut short when copied, or come from another server. Sign in with your API key below, or print a fresh link where Trellis runs:",
    command: FRESH_LINK
  }
}

/**
 * The API key is sent once, for a session cookie; the page keeps neither. `reason`: why the
 * one-time link that brought the person here opened nothing (often a second click on a link that
 * already signed this browser in).
 */
export const SignInPage = ({ reason, next, onSignedIn }: {
  readonly reason?: SignInLinkReason | undefined
  /** Where signing in leads; a refused link offers it too, for a browser that is signed in already. */
  readonly next: string
  readonly onSignedIn: () => void
}) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const refusal = reason === undefined ? undefined : refusals[reason]

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const input = form.elements.namedItem("apiKey")
    const apiKey = input instanceof HTMLInputElement ? input.value.trim() : ""
    if (!apiKey.startsWith("trellis_")) {
      setError("Enter a Trellis API key: it starts with trellis_")
      return
    }
    setBusy(true)
    void signIn(apiKey).then((refused) => {
      setBusy(false)
      if (refused === undefined) {
        form.reset()
        onSignedIn()
      } else {
        setError(refused)
      }
    })
  }

  const FormTitle = refusal === undefined ? "h1" : "h2"
  return (
    <main className="signin">
      <div className="signin-card">
        <p className="signin-brand" aria-hidden="true">Trellis</p>
        {refusal !== undefined ?
          (
            <section className="signin-refusal" aria-labelledby="refusal-title">
              <h1 id="refusal-title">{refusal.title}</h1>
              <p>{refusal.text}</p>
              <pre><code>{refusal.command}</code></pre>
              <p className="hint">
                Signed in already in this browser? <a href={next}>Continue to Trellis</a>.
              </p>
            </section>
          ) :
          null}
        <form onSubmit={submit} noValidate aria-labelledby="signin-title">
          <FormTitle id="signin-title">Sign in to Trellis</FormTitle>
          <label htmlFor="api-key">API key</label>
          <input
            id="api-key"
            name="apiKey"
            type="password"
            autoComplete="current-password"
            spellCheck={false}
            required
            aria-invalid={error !== undefined}
            aria-describedby={error !== undefined ? "api-key-error api-key-hint" : "api-key-hint"}
            onInput={() => setError(undefined)}
          />
          {error !== undefined ? <p id="api-key-error" className="field-error" role="alert">{error}</p> : null}
          <p id="api-key-hint" className="hint">
            Or open a one-time sign-in link: <code>trellis serve</code> prints one at start, and <code>{FRESH_LINK}</code>{" "}
            prints a fresh one. The key is exchanged for a session and not kept by this page.
          </p>
          <button type="submit" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
        </form>
      </div>
    </main>
  )
}
