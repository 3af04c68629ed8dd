import { useEffect, useRef, useState } from 'preact/hooks'
import type { MessageRecord, Recipient } from './api.js'
import { usePage } from './context.js'
import { clickableLinks, simulateEvent } from './delivery-model.js'
import { Select } from './ui.js'

/**
 * The Links tab of a message: what a test reads in it (docs/testing.md#what-a-record-carries), as the server read it: the
 * record's `codes` (copy) and `links` (text, URL, copy, simulate a click). Nothing is parsed
 * here: one extraction, on the server (src/core/links.ts, codes.ts). Click counts follow the
 * record live, in place: the focus stays on the button that was pressed.
 */

/** How long a Copy button says "Copied" (long enough to be seen, short enough to copy again). */
const COPIED_MS = 2000

type Link = MessageRecord['links'][number]

/**
 * A link's text as the panel shows it: the text, or words for "none" (`""`: an anchor without
 * text or alt; `null`: a URL only the text part has).
 *
 * @example
 * linkLabel({ href: 'https://x.test', text: null }) // '(from the text part)'
 */
export function linkLabel(link: Link): string {
  if (link.text === null) return '(from the text part)'
  return link.text === '' ? '(no text)' : link.text
}

/** How many simulated or real clicks each URL has had, over all recipients. */
export function clickCounts(record: MessageRecord): Map<string, number> {
  const counts = new Map<string, number>()
  for (const recipient of record.recipients ?? [])
    for (const event of recipient.events)
      if (event.type === 'clicked' && event.url)
        counts.set(event.url, (counts.get(event.url) ?? 0) + 1)
  return counts
}

const clicksText = (count: number): string =>
  count ? `Clicked ${count === 1 ? 'once' : `${count} times`}` : ''

/** A Copy button: its name says what it copies; it says "Copied", visibly and to screen readers. */
function CopyButton({ value, name }: { value: string; name: string }) {
  const page = usePage()
  const [copied, setCopied] = useState(false)
  const timer = useRef(0)
  useEffect(() => () => window.clearTimeout(timer.current), [])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
    } catch (error) {
      page.toast(`Could not copy: ${(error as Error).message}`)
      return
    }
    setCopied(true)
    page.announce(`Copied ${name}`)
    window.clearTimeout(timer.current)
    timer.current = window.setTimeout(() => setCopied(false), COPIED_MS)
  }
  return (
    <button
      type="button"
      class="btn btn-small copy"
      aria-label={copied ? `Copied ${name}` : `Copy ${name}`}
      data-copied={copied ? '' : undefined}
      onClick={() => void copy()}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  )
}

/** The one-time codes of the text part, each with Copy. */
function Codes({ codes }: { codes: string[] }) {
  return (
    <>
      <h3 id="codes-heading">Codes ({codes.length})</h3>
      {codes.length ? (
        <ul class="code-list" aria-labelledby="codes-heading">
          {codes.map((code) => (
            <li class="code-row" key={code}>
              <code class="otp">{code}</code>
              <CopyButton value={code} name={`code ${code}`} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">
          No one-time code in the text part (order numbers, dates, times and amounts never count).
        </p>
      )}
    </>
  )
}

/** Which recipient a simulated click is by (a message to several). */
function ClicksBy({
  recipients,
  by,
  onPick,
}: {
  recipients: Recipient[]
  by: string
  onPick: (address: string) => void
}) {
  return (
    <p class="field">
      <label for="links-recipient">Clicks by</label>
      <Select
        id="links-recipient"
        value={by}
        options={recipients.map((r) => [r.address, r.address])}
        onPick={onPick}
      />
    </p>
  )
}

/**
 * The Links tab: every code (Copy) first, the shortest and most often wanted, then every link
 * (text, URL, Copy, Simulate a click).
 *
 * @example
 * <LinksTab record={record} />
 */
export function LinksTab({ record }: { record: MessageRecord }) {
  const page = usePage()
  const links = record.links ?? []
  const clickable = new Set(clickableLinks(record))
  const counts = clickCounts(record)
  const recipients = record.recipients ?? []
  const [by, setBy] = useState(recipients[0]?.address ?? '')
  const click = (url: string) =>
    simulateEvent(page, record.id, {
      type: 'clicked',
      url,
      ...(recipients.length > 1 && by ? { recipient: by } : {}),
    })
  return (
    <div class="details links" id="links">
      <Codes codes={record.codes ?? []} />
      <h3 id="links-heading">Links ({links.length})</h3>
      {links.length ? (
        <>
          <p class="hint">
            In document order, then the URLs only the text part has. A simulated click records a{' '}
            <code>clicked</code> event and fires its webhook, as the Delivery tab does.
          </p>
          {recipients.length > 1 ? (
            <ClicksBy recipients={recipients} by={by} onPick={setBy} />
          ) : null}
          <ol class="link-list" aria-labelledby="links-heading">
            {links.map((link, i) => (
              <li class="link-row" key={`${link.href} ${i}`}>
                <span class="link-head">
                  <span class={link.text ? 'link-text' : 'link-text muted'}>{linkLabel(link)}</span>
                  <span class="link-clicks status-badge" data-status="clicked">
                    {clicksText(counts.get(link.href) ?? 0)}
                  </span>
                </span>
                <code class="link-href">{link.href}</code>
                <span class="link-actions">
                  <CopyButton value={link.href} name={link.href} />
                  {clickable.has(link.href) ? (
                    <button
                      type="button"
                      class="btn btn-small"
                      data-simulate-link={link.href}
                      aria-label={`Simulate a click on ${link.text ? `“${link.text}”` : link.href}`}
                      onClick={() => void click(link.href)}
                    >
                      Simulate a click
                    </button>
                  ) : null}
                </span>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p class="muted">The message has no links.</p>
      )}
    </div>
  )
}
