import type {
  Address,
  MessageRecord,
  MessageStatus,
  Recipient,
  RecipientEvent,
  RecipientEventEntry,
  RecipientEventType,
  RecipientStatus,
} from './types.js'

/**
 * How a record's recipients fold their events into states (docs/delivery.md). The log replays event
 * lines through this, and the running server applies new events through it, so a restart
 * lands on the same states the server showed.
 */

/** Every overall status; after `sent` and `delivered`, in the order the overall status picks them. */
export const MESSAGE_STATUSES = [
  'sent',
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'deferred',
] as const satisfies readonly MessageStatus[]

/** The state an event puts its recipient in; engagement (`opened`, `clicked`) leaves it as it was. */
const STATE_OF: Record<RecipientEventType, RecipientStatus | null> = {
  sent: 'sent',
  delivered: 'delivered',
  deferred: 'deferred',
  bounced: 'bounced',
  complained: 'complained',
  suppressed: 'suppressed',
  opened: null,
  clicked: null,
}

/** Worst first: the overall status is the first of these any recipient is in. */
const PRECEDENCE: readonly RecipientStatus[] = ['bounced', 'complained', 'suppressed', 'deferred']

/**
 * The overall status: `sent` while any recipient is, `delivered` when all are, else the first
 * of bounced, complained, suppressed, deferred that a recipient is in.
 *
 * @example
 * overallStatus([{ status: 'delivered' }, { status: 'bounced' }]) // 'bounced'
 * overallStatus([{ status: 'delivered' }, { status: 'sent' }])    // 'sent'
 */
export function overallStatus(recipients: ReadonlyArray<Pick<Recipient, 'status'>>): MessageStatus {
  if (recipients.length === 0 || recipients.some((r) => r.status === 'sent')) return 'sent'
  for (const status of PRECEDENCE) if (recipients.some((r) => r.status === status)) return status
  return 'delivered'
}

/** The recipients of a new message: each `sent`, with that one event. */
export function initialRecipients(to: readonly Address[], at: string): Recipient[] {
  return to.map((a) => ({ address: a.address, status: 'sent', events: [{ type: 'sent', at }] }))
}

/**
 * Applies events to a record in place (the log's replay owns its records); events naming a
 * recipient the record does not have are skipped. A record from before recipients existed gets
 * them first.
 */
export function applyEventsInPlace(
  record: MessageRecord,
  events: readonly RecipientEventEntry[],
): void {
  record.recipients ??= initialRecipients(record.to ?? [], record.createdAt)
  for (const { recipient: index, ...event } of events) {
    const recipient = record.recipients[index]
    if (!recipient) continue
    recipient.events.push(event as RecipientEvent)
    recipient.status = STATE_OF[event.type] ?? recipient.status
  }
  record.status = overallStatus(record.recipients)
}

/**
 * The record with the events applied, as a new object; `record` itself is left as it was, so
 * whoever holds it (a waiter, a test) keeps what it saw.
 *
 * @example
 * const next = withEvents(record, [{ recipient: 0, type: 'delivered', at: new Date().toISOString() }])
 * next.status // 'delivered' (for a single recipient)
 */
export function withEvents(
  record: MessageRecord,
  events: readonly RecipientEventEntry[],
): MessageRecord {
  const recipients = (
    record.recipients ?? initialRecipients(record.to ?? [], record.createdAt)
  ).map((r) => ({ ...r, events: r.events.slice() }))
  const next = { ...record, recipients }
  applyEventsInPlace(next, events)
  return next
}
