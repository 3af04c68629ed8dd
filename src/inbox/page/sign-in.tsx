import { useState } from 'preact/hooks'
import { ApiError, api, type Session } from './api.js'

/**
 * With projects, the page asks for a token once (docs/team.md#projects-each-teams-mail-behind-its-own-tokens). The server keeps it in
 * an HttpOnly cookie for the browser session, so after the sign-in no script holds it, and it is
 * never in a URL. The page then loads again, signed in.
 *
 * @example render(<SignIn />, document.getElementById('app')!)
 */
export function SignIn() {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  async function submit(event: Event) {
    event.preventDefault()
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem(
      'token',
    ) as HTMLInputElement
    setBusy(true)
    try {
      await api.signIn(input.value.trim())
      location.reload()
    } catch (caught) {
      setBusy(false)
      setError(caught instanceof ApiError ? caught.message : String(caught))
      input.focus()
    }
  }
  return (
    <main class="sign-in" id="main">
      <form onSubmit={submit} aria-describedby="sign-in-about">
        <h1>Sign in to sendbox</h1>
        <p id="sign-in-about">
          This sandbox is shared: each project sees its own mail. Give your project's token (or an
          admin token); it is kept for this browser session only.
        </p>
        <label for="token">Token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'sign-in-error' : undefined}
        />
        {error ? (
          <p id="sign-in-error" class="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="btn" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  )
}

/**
 * The project the page shows, and the way out: in the top bar, with projects only.
 *
 * @example <SessionBadge session={{ projects: true, signedIn: true, project: 'acme', admin: false }} />
 */
export function SessionBadge({ session }: { session: Session | null }) {
  if (!session?.projects) return null
  async function signOut() {
    await api.signOut().catch(() => undefined)
    location.reload()
  }
  return (
    <p class="session" id="session">
      <span>
        {session.project === null ? (
          <strong>All projects</strong>
        ) : (
          <>
            Project <strong>{session.project}</strong>
          </>
        )}
      </span>
      <button type="button" class="link-button" onClick={signOut}>
        Sign out
      </button>
    </p>
  )
}
