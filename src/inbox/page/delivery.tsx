import { useState } from 'preact/hooks'
import type { MessageRecord, Recipient } from './api.js'
import { usePage } from './context.js'
import {
  clickableLinks,
  EXPLAIN,
  eventDetail,
  LABELS,
  simulateEvent,
  simulations,
} from './delivery-model.js'
import { RelativeTime, Select, StatusBadge } from './ui.js'

/**
 * The Delivery tab of a message: the overall status with what it means, then each recipient
 * with its status, the simulate buttons that still make sense for it, and a timeline of its
 * events. The server's SSE `status` events keep it live.
 *
 * @example
 * <DeliveryTab record={record} />
 */
export function DeliveryTab({ record }: { record: MessageRecord }) {
  const links = clickableLinks(record)
  return (
    <div class="details delivery" id="delivery">
      <p class="delivery-summary">
        <StatusBadge status={record.status} />{' '}
        <span class="muted">{EXPLAIN[record.status] ?? ''}</span>
      </p>
      <p class="hint">
        The outcome comes from each address: <code>+bounce</code>, <code>+softbounce</code>,{' '}
        <code>+complaint</code> (or those words as the local part); anything else is delivered. The
        buttons add an event by hand and fire its webhook.
      </p>
      {(record.recipients ?? []).map((recipient, index) => (
        <RecipientSection
          key={recipient.address}
          record={record}
          recipient={recipient}
          index={index}
          links={links}
        />
      ))}
    </div>
  )
}

interface RecipientProps {
  record: MessageRecord
  recipient: Recipient
  /** Its place among the message's recipients, for ids. */
  index: number
  /** The message's links, which a simulated click may follow. */
  links: string[]
}

/** One recipient: its address and state, the simulate buttons it is offered, its timeline. */
function RecipientSection({ record, recipient, index, links }: RecipientProps) {
  const page = usePage()
  const labelId = `recipient-${index}`
  const [url, setUrl] = useState(links[0] ?? '')
  const actions = simulations(recipient)
  const canClick = actions.some((a) => a.type === 'clicked')
  return (
    <section class="recipient" data-recipient={recipient.address} aria-labelledby={labelId}>
      <header class="recipient-head">
        <h3 id={labelId} class="recipient-address">
          {recipient.address}
        </h3>
        <StatusBadge status={recipient.status} />
      </header>
      {actions.length ? (
        <div
          class="simulate"
          role="group"
          aria-label={`Simulate an event for ${recipient.address}`}
        >
          <span class="simulate-label">Simulate</span>
          {actions.map(({ type, label }) => (
            <button
              key={type}
              type="button"
              class="btn btn-small"
              data-simulate={type}
              disabled={type === 'clicked' && links.length === 0}
              aria-describedby={labelId}
              onClick={() =>
                void simulateEvent(page, record.id, {
                  type,
                  recipient: recipient.address,
                  ...(type === 'clicked' ? { url } : {}),
                })
              }
            >
              {label}
            </button>
          ))}
          {canClick ? (
            <LinkToClick id={`click-url-${index}`} links={links} url={url} onPick={setUrl} />
          ) : null}
        </div>
      ) : (
        <NothingToSimulate status={recipient.status} />
      )}
      <Timeline recipient={recipient} />
    </section>
  )
}

/** Why a recipient is offered no simulate button: its mail cannot have reached anyone. */
function NothingToSimulate({ status }: { status: Recipient['status'] }) {
  return (
    <p class="hint simulate-none">
      {status === 'bounced'
        ? 'Bounced: the mail never arrived, so there is nothing more to simulate for this address.'
        : 'Suppressed: nothing was sent, so there is nothing to simulate for this address.'}
    </p>
  )
}

/** Which of the message's links a simulated click follows. */
function LinkToClick({
  id,
  links,
  url,
  onPick,
}: {
  id: string
  links: string[]
  url: string
  onPick: (url: string) => void
}) {
  return (
    <span class="field click-field">
      <label for={id}>Link to click</label>
      <Select
        id={id}
        class="click-url"
        disabled={links.length === 0}
        value={url}
        options={links.map((link) => [link, link])}
        onPick={onPick}
      >
        {links.length ? null : <option value="">The message has no links</option>}
      </Select>
    </span>
  )
}

/** A recipient's events, oldest first, each marked when a simulate button made it. */
function Timeline({ recipient }: { recipient: Recipient }) {
  return (
    <ol class="timeline" aria-label={`Events for ${recipient.address}`}>
      {recipient.events.map((event, i) => (
        <li key={`${event.type} ${event.at} ${i}`} class="timeline-event" data-type={event.type}>
          <span class="timeline-dot" aria-hidden="true" />
          <span class="timeline-type">{LABELS[event.type] ?? event.type}</span>
          {eventDetail(event) ? <span class="timeline-detail">{eventDetail(event)}</span> : null}
          {event.simulated ? (
            <span
              class="tag"
              title="Made with a simulate button or POST /_sandbox/api/messages/:id/events"
            >
              simulated
            </span>
          ) : null}
          <RelativeTime iso={event.at} class="timeline-time" />
        </li>
      ))}
    </ol>
  )
}
