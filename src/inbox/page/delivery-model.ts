import {
  api,
  type MessageRecord,
  type Recipient,
  type RecipientEvent,
  type SimulatedEvent,
  type StatusChange,
} from './api.js'
import type { Page } from './page.js'

/**
 * A message's delivery, as the inbox says it: the words for each state and event, the record
 * after a `status` event, the links a simulated click may follow, and which simulate buttons a
 * recipient is offered. No DOM: delivery.tsx draws it.
 */

export const LABELS: Readonly<Record<string, string>> = {
  sent: 'Sent',
  delivered: 'Delivered',
  deferred: 'Deferred',
  bounced: 'Bounced',
  complained: 'Complained',
  suppressed: 'Suppressed',
  opened: 'Opened',
  clicked: 'Clicked',
  pending: 'Pending',
  retrying: 'Retrying',
  failed: 'Failed',
}

export const EXPLAIN: Readonly<Record<string, string>> = {
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
 * A status badge's words: its label, and what it means as its tooltip. The badge component and
 * the message list's hand-filled rows both say a status so.
 *
 * @example
 * statusWords('bounced') // { label: 'Bounced', title: 'A hard bounce: the address is now on the suppression list.' }
 */
export const statusWords = (status: string): { label: string; title: string } => ({
  label: LABELS[status] ?? status,
  title: EXPLAIN[status] ?? '',
})

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

/** What an event adds after its name in a timeline: the link clicked, the kind of bounce. */
export function eventDetail(event: RecipientEvent): string {
  if (event.type === 'clicked' && event.url) return event.url
  if (event.type === 'bounced') return 'hard bounce'
  return ''
}

export const SIMULATE: ReadonlyArray<{ type: SimulatedEvent['type']; label: string }> = [
  { type: 'delivered', label: 'Delivered' },
  { type: 'opened', label: 'Opened' },
  { type: 'clicked', label: 'Clicked' },
  { type: 'bounced', label: 'Bounced' },
  { type: 'complained', label: 'Complained' },
]

/**
 * The simulate buttons a recipient is offered: none once its mail cannot have reached anyone (a
 * hard bounce, a suppressed address): a Delivered or an Opened after a bounce would only make a
 * test believe something no mail server does.
 *
 * @example
 * simulations({ status: 'bounced' }) // []
 * simulations({ status: 'delivered' }).map((s) => s.type) // ['delivered', 'opened', 'clicked', 'bounced', 'complained']
 */
export function simulations(recipient: Pick<Recipient, 'status'>): typeof SIMULATE {
  return recipient.status === 'bounced' || recipient.status === 'suppressed' ? [] : SIMULATE
}

/**
 * Posts a simulated event and says how it went: the one path for every simulate button (the
 * Delivery tab's and the Links tab's "Simulate a click"). The page follows through SSE `status`.
 *
 * @example
 * await simulateEvent(page, id, { type: 'clicked', url: 'https://acme.test/help', recipient: 'bob@example.com' })
 */
export async function simulateEvent(page: Page, id: string, event: SimulatedEvent): Promise<void> {
  try {
    await api.simulate(id, event)
    page.announce(`${LABELS[event.type]} recorded for ${event.recipient ?? 'the first recipient'}`)
  } catch (error) {
    page.toast(`Could not simulate ${event.type}: ${(error as Error).message}`)
  }
}
