import type { Session } from './api.js'
import { SessionBadge } from './sign-in.js'
import { useEffect, useRef } from 'preact/hooks'
import { usePage } from './context.js'
import type { LogState } from './inbox.js'
import { href } from './router.js'
import { useRevealed, useScrollCue } from './ui.js'

/**
 * What surrounds every view: the top bar (sections, the stream's state), the banner while the
 * log cannot be written, the toast, and the confirmation dialog.
 */

export interface Section {
  id: string
  label: string
  /** A count after the label (a view that wants one, e.g. changes to review); null: none. */
  count: number | null
}

const STATUS_WORDS = {
  connecting: 'Connecting…',
  live: 'Live',
  offline: 'Reconnecting…',
  unavailable: 'Store unavailable',
}

const STATUS_TITLES = {
  connecting: 'Waiting for sendbox; the page catches up when it is back',
  live: 'New messages and template changes show up by themselves',
  offline: 'Waiting for sendbox; the page catches up when it is back',
  unavailable: 'sendbox cannot reach its database; the page catches up when it is back',
}

/**
 * The top bar. `storeDown`: sendbox answers, but cannot reach its store (a database away): the
 * stream is open, yet nothing new can come, so the page must not say "Live".
 */
export function TopBar({
  sections,
  current,
  session = null,
  storeDown = false,
}: {
  sections: Section[]
  current: string
  session?: Session | null
  storeDown?: boolean
}) {
  const live = usePage().live.value
  const state = storeDown && live === 'live' ? 'unavailable' : live
  const row = useRef<HTMLUListElement>(null)
  useRevealed(row, '[aria-current="page"]', current)
  useScrollCue(row)
  return (
    <header class="topbar">
      <p class="brand">
        <a href="#/" aria-label="sendbox, messages">
          <span class="brand-mark" aria-hidden="true" />
          <span class="brand-name">sendbox</span>
        </a>
      </p>
      <div class="corner">
        <SessionBadge session={session} />
        <p class="status" id="status" data-state={state} title={STATUS_TITLES[state]}>
          <span class="status-dot" aria-hidden="true" />
          <span id="status-text">{STATUS_WORDS[state]}</span>
        </p>
      </div>
      <nav class="sections" aria-label="Sections">
        <ul ref={row}>
          {sections.map((s) => (
            <li key={s.id}>
              <a
                href={href(s.id)}
                id={`nav-${s.id}`}
                aria-current={s.id === current ? 'page' : undefined}
              >
                {s.label}
                {s.count ? (
                  <span class="nav-count">
                    <span class="visually-hidden">, </span>
                    {s.count}
                  </span>
                ) : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </header>
  )
}

/**
 * The banner the inbox shows while the message log cannot be written, or while a database store
 * cannot be reached (docs/log-faults.md).
 */
export function LogBanner({ log }: { log: LogState }) {
  if (log.state === 'unavailable')
    return (
      <div id="log-banner" class="log-banner" role="alert">
        sendbox cannot reach its database{log.reason ? ` (${log.reason})` : ''}: sends and reads are
        refused with 503 store_unavailable, and the messages shown are from before. This page
        catches up by itself once the database is back.
      </div>
    )
  if (log.state !== 'write_failed') return null
  return (
    <div id="log-banner" class="log-banner" role="alert">
      The message log cannot be written ({log.reason ?? 'unknown'}): new sends are refused with 507
      log_write_failed and nothing unwritten is acknowledged. {log.message ?? ''}
    </div>
  )
}

/** A visible, assertive notice for failures (a request that did not go through). */
export function Toast() {
  const text = usePage().toastText.value
  return (
    <div id="toast" class="toast" role="alert" hidden={text === null}>
      {text}
    </div>
  )
}

/**
 * The page's modal confirmation: Cancel has the focus, Escape (the dialog's own "cancel") counts
 * as no, and the focus goes back where it was.
 */
export function ConfirmDialog() {
  const request = usePage().confirmation.value
  const dialog = useRef<HTMLDialogElement>(null)
  const cancel = useRef<HTMLButtonElement>(null)
  const opener = useRef<HTMLElement | null>(null)
  useEffect(() => {
    const element = dialog.current
    if (!element) return
    if (request && !element.open) {
      opener.current = document.activeElement as HTMLElement | null
      element.showModal()
      cancel.current?.focus()
    } else if (!request && element.open) {
      element.close()
      if (opener.current?.isConnected) opener.current.focus()
    }
  }, [request])
  return (
    <dialog
      id="confirm"
      ref={dialog}
      aria-labelledby="confirm-title"
      aria-describedby="confirm-text"
      onClose={() => request?.answer(false)}
    >
      <h2 id="confirm-title">{request?.title ?? 'Delete?'}</h2>
      <p id="confirm-text">{request?.text}</p>
      <div class="dialog-actions">
        <button
          type="button"
          class="btn"
          id="confirm-cancel"
          ref={cancel}
          onClick={() => request?.answer(false)}
        >
          Cancel
        </button>
        <button
          type="button"
          class="btn btn-danger"
          id="confirm-ok"
          onClick={() => request?.answer(true)}
        >
          {request?.confirm ?? 'Delete'}
        </button>
      </div>
    </dialog>
  )
}
