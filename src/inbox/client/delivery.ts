import {
  api,
  type MessageRecord,
  type MessageStatus,
  type Recipient,
  type RecipientEvent,
  type SimulatedEvent,
  type StatusChange,
} from './api.js'
import { announce, h, replace, toast } from './dom.js'
import { fullTime, timeAgo } from './format.js'

/**
 * A message's delivery, in the inbox: status badges, each recipient's timeline of events, and
 * buttons that simulate what a recipient (or their mail server) does. The server's SSE `status`
 * events keep it live (`applyStatus`).
 */

const LABELS: Record<string, string> = {
  sent: 'Sent',
  delivered: 'Delivered',
  deferred: 'Deferred',
  bounced: 'Bounced',
  complained: 'Complained',
  suppressed: 'Suppressed',
  opened: 'Opened',
  clicked: 'Clicked',
}

const EXPLAIN: Record<string, string> = {
  sent: 'Accepted; nothing has happened to it yet.',
  delivered: "The recipient's server took it.",
  deferred: 'A soft bounce: delivery is being retried.',
  bounced: 'A hard bounce: the address is now on the suppression list.',
  complained: 'Marked as spam: the address is now on the suppression list.',
  suppressed: 'Not sent: the address is on the suppression list.',
  opened: 'The recipient opened it.',
  clicked: 'The recipient clicked a link.',
}

/**
 * A status as a coloured pill with words (never colour alone).
 *
 * @example
 * statusBadge('bounced') // <span class="status-badge" data-status="bounced">Bounced</span>
 */
export function statusBadge(
  status: MessageStatus | string,
  label = LABELS[status] ?? status,
): HTMLElement {
  return h(
    'span',
    { class: 'status-badge', 'data-status': status, title: EXPLAIN[status] ?? '' },
    label,
  )
}

/** The record after a `status` event, as a new object (the event says all that changed). */
export function applyStatus(record: MessageRecord, change: StatusChange): MessageRecord {
  const recipients = (record.recipients ?? []).map((r, i) =>
    i === change.recipientIndex &&
    !r.events.some((e) => e.at === change.event.at && e.type === change.event.type)
      ? { ...r, status: change.recipientStatus, events: [...r.events, change.event] }
      : r,
  )
  return { ...record, status: change.status, recipients }
}

/**
 * The links a simulated click may follow: the hrefs of the record's `links`, as the server read
 * them (one parser for both, src/core/links.ts), without repeats, in-page anchors or scripts.
 *
 * @example
 * clickableLinks({ links: [{ href: 'https://x.test/a', text: 'A' }, { href: '#top', text: 'Top' }] }) // ['https://x.test/a']
 */
export function clickableLinks(record: Pick<MessageRecord, 'links'>): string[] {
  const links = new Set<string>()
  for (const { href } of record.links ?? [])
    if (href && !href.startsWith('#') && !/^javascript:/i.test(href)) links.add(href)
  return [...links]
}

function eventDetail(event: RecipientEvent): string {
  if (event.type === 'clicked' && event.url) return event.url
  if (event.type === 'bounced') return 'hard bounce'
  return ''
}

function timeline(recipient: Recipient): HTMLElement {
  return h(
    'ol',
    { class: 'timeline', 'aria-label': `Events for ${recipient.address}` },
    recipient.events.map((event) =>
      h(
        'li',
        { class: 'timeline-event', 'data-type': event.type },
        h('span', { class: 'timeline-dot', 'aria-hidden': 'true' }),
        h('span', { class: 'timeline-type' }, LABELS[event.type] ?? event.type),
        eventDetail(event) ? h('span', { class: 'timeline-detail' }, eventDetail(event)) : null,
        event.simulated
          ? h(
              'span',
              {
                class: 'tag',
                title: 'Made with a simulate button or POST /_sandbox/api/messages/:id/events',
              },
              'simulated',
            )
          : null,
        h(
          'time',
          {
            class: 'timeline-time',
            datetime: event.at,
            title: fullTime(event.at),
            'data-relative': '',
          },
          timeAgo(event.at),
        ),
      ),
    ),
  )
}

const SIMULATE: Array<{ type: SimulatedEvent['type']; label: string }> = [
  { type: 'delivered', label: 'Delivered' },
  { type: 'opened', label: 'Opened' },
  { type: 'clicked', label: 'Clicked' },
  { type: 'bounced', label: 'Bounced' },
  { type: 'complained', label: 'Complained' },
]

/**
 * Posts a simulated event and says how it went: the one path for every simulate button (the
 * Delivery tab's and the Links tab's "Simulate a click"). The page follows through SSE `status`.
 *
 * @example
 * await simulateEvent(id, { type: 'clicked', url: 'https://acme.test/help', recipient: 'bob@example.com' })
 */
export async function simulateEvent(id: string, event: SimulatedEvent): Promise<void> {
  try {
    await api.simulate(id, event)
    announce(`${LABELS[event.type]} recorded for ${event.recipient ?? 'the first recipient'}`)
  } catch (error) {
    toast(`Could not simulate ${event.type}: ${(error as Error).message}`)
  }
}

/** One recipient: status, simulate buttons (a click needs one of the message's links), timeline. */
function recipientSection(
  record: MessageRecord,
  recipient: Recipient,
  index: number,
  links: string[],
): HTMLElement {
  const labelId = `recipient-${index}`
  const linkSelect = h(
    'select',
    {
      id: `click-url-${index}`,
      class: 'click-url',
      'aria-label': `Link to click, for ${recipient.address}`,
      disabled: links.length === 0,
    },
    links.length
      ? links.map((url) => h('option', { value: url }, url))
      : h('option', { value: '' }, 'The message has no links'),
  )
  const buttons = SIMULATE.map(({ type, label }) =>
    h(
      'button',
      {
        type: 'button',
        class: 'btn btn-small',
        'data-simulate': type,
        disabled: type === 'clicked' && links.length === 0,
        'aria-describedby': labelId,
        onclick: () =>
          void simulateEvent(record.id, {
            type,
            recipient: recipient.address,
            ...(type === 'clicked' ? { url: linkSelect.value } : {}),
          }),
      },
      label,
    ),
  )
  return h(
    'section',
    { class: 'recipient', 'data-recipient': recipient.address, 'aria-labelledby': labelId },
    h(
      'header',
      { class: 'recipient-head' },
      h('h3', { id: labelId, class: 'recipient-address' }, recipient.address),
      statusBadge(recipient.status),
    ),
    h(
      'div',
      {
        class: 'simulate',
        role: 'group',
        'aria-label': `Simulate an event for ${recipient.address}`,
      },
      h('span', { class: 'simulate-label' }, 'Simulate'),
      buttons,
      h('label', { class: 'visually-hidden', for: `click-url-${index}` }, 'Link to click'),
      linkSelect,
    ),
    timeline(recipient),
  )
}

/**
 * The Delivery tab: the overall status with what it means, then every recipient.
 *
 * @example
 * replace(panel, deliveryTab(record))
 */
export function deliveryTab(record: MessageRecord): HTMLElement {
  const links = clickableLinks(record)
  const recipients = record.recipients ?? []
  return h(
    'div',
    { class: 'details delivery', id: 'delivery' },
    h(
      'p',
      { class: 'delivery-summary' },
      statusBadge(record.status),
      ' ',
      h('span', { class: 'muted' }, EXPLAIN[record.status] ?? ''),
    ),
    h(
      'p',
      { class: 'hint' },
      'The outcome comes from each address: ',
      h('code', null, '+bounce'),
      ', ',
      h('code', null, '+softbounce'),
      ', ',
      h('code', null, '+complaint'),
      ' (or those words as the local part); anything else is delivered. The buttons add an event by hand and fire its webhook.',
    ),
    recipients.map((recipient, index) => recipientSection(record, recipient, index, links)),
  )
}

/** Updates the message header's badge in place (the frame below is left alone). */
export function updateHeaderBadge(container: HTMLElement | null, status: MessageStatus): void {
  const slot = container?.querySelector<HTMLElement>('#message-status')
  if (slot) replace(slot, statusBadge(status))
}
