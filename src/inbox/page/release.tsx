import type { MessageRecord } from './api.js'
import { plural } from './format.js'
import type { ReleaseModel } from './release-model.js'
import { RelativeTime } from './ui.js'

/**
 * "Send to a real inbox": the button in a message's actions, and the form it opens under them,
 * with the relay and the allowed patterns shown (never its credentials: the server does not
 * give them), the last addresses remembered, and what the relay said.
 */
export function ReleaseButton({ model }: { model: ReleaseModel }) {
  return (
    <button
      type="button"
      class="btn"
      id="release-toggle"
      aria-expanded={model.open.value ? 'true' : 'false'}
      aria-controls="release-form"
      onClick={() => model.toggle()}
    >
      Send to a real inbox
    </button>
  )
}

export function ReleaseForm({ model, record }: { model: ReleaseModel; record: MessageRecord }) {
  if (!model.open.value) return null
  const relay = model.relay.value
  const error = model.relayError.value
  return (
    <form
      class="release"
      id="release-form"
      aria-labelledby="release-title"
      onSubmit={(event) => {
        event.preventDefault()
        void model.send(record.id)
      }}
    >
      <h3 id="release-title">Send to a real inbox</h3>
      {error ? (
        <p class="release-note" data-state="error">
          Could not ask sendbox about its relay: {error}
        </p>
      ) : !relay ? (
        <p class="release-note">Loading…</p>
      ) : !relay.configured ? (
        <NotConfigured url={relay.url} />
      ) : (
        <Configured model={model} url={relay.url!} allow={relay.allow} />
      )}
      <Releases record={record} />
    </form>
  )
}

function NotConfigured({ url }: { url: string | null }) {
  return (
    <p class="release-note" id="release-help">
      {url ? (
        <>
          The relay <code>{url}</code> may send to no one yet: start sendbox with{' '}
          <code>--relay-allow</code> and your own address (or <code>*@your-domain</code>).
        </>
      ) : (
        <>
          No relay is set up. Start sendbox with <code>--relay smtp://user:password@host:port</code>{' '}
          and <code>--relay-allow</code> with your own address, and a message can go on to a real
          mailbox from here, once, when you ask.
        </>
      )}
    </p>
  )
}

function Configured({ model, url, allow }: { model: ReleaseModel; url: string; allow: string[] }) {
  const result = model.result.value
  const sending = result.state === 'sending'
  return (
    <>
      <p class="release-note" id="release-help">
        Goes out through <code>{url}</code>, as it is, to{' '}
        {allow.map((pattern, i) => (
          <span key={pattern}>
            {i ? ', ' : ''}
            <code>{pattern}</code>
          </span>
        ))}{' '}
        only.
      </p>
      <label for="release-to">To</label>
      <div class="save-row">
        <input
          id="release-to"
          class="text-input"
          type="text"
          inputMode="email"
          autocomplete="email"
          spellcheck={false}
          placeholder={allow.find((p) => !p.startsWith('*')) ?? `you${allow[0]!.slice(1)}`}
          aria-describedby="release-help release-result"
          aria-invalid={
            result.state === 'failed' && result.code !== 'relay_failed' ? 'true' : undefined
          }
          value={model.to.value}
          onInput={(event) => {
            model.to.value = (event.target as HTMLInputElement).value
          }}
        />
        <button type="submit" class="btn" id="release-send" disabled={sending}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
      <div class="release-result" id="release-result" aria-live="polite" data-state={result.state}>
        {result.state === 'sent' ? (
          <p>
            Sent to {result.result.accepted.join(', ')}
            {result.result.rejected.length
              ? `; refused for ${result.result.rejected.join(', ')}`
              : ''}
            . The relay said: <code>{result.result.response}</code>
          </p>
        ) : result.state === 'failed' ? (
          <p>{result.message}</p>
        ) : null}
      </div>
    </>
  )
}

/** The times this message went out already. */
function Releases({ record }: { record: MessageRecord }) {
  const releases = record.releases ?? []
  if (releases.length === 0) return null
  return (
    <div class="release-history">
      <p class="release-note">Released {plural(releases.length, 'time')}:</p>
      <ul class="plain" id="release-history">
        {releases.map((r, i) => (
          <li key={`${r.at} ${i}`}>
            to {r.to.join(', ')}, <RelativeTime iso={r.at} />
          </li>
        ))}
      </ul>
    </div>
  )
}
