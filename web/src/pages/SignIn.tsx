import { type FormEvent, useState } from "react"
import { signIn } from "../api"

/** The API key is sent once, for a session cookie; the page keeps neither. */
export const SignInPage = ({ onSignedIn }: { readonly onSignedIn: () => void }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)

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

  return (
    <main className="signin">
      <form onSubmit={submit} noValidate aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Trellis</h1>
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
          Or open the one-time sign-in link that <code>trellis serve</code> printed. The key is exchanged for a session
          and not kept by this page.
        </p>
        <button type="submit" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
      </form>
    </main>
  )
}
