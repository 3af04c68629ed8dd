import type { MessageRecord, RecipientEvent, RecipientStatus } from '../store/types.js'

/**
 * The JSON bodies sendbox posts to webhook URLs (docs/delivery.md), one type per event. An
 * application's handler can import these to type what it receives:
 *
 * @example
 * import type { WebhookEvent } from 'sendbox'
 * function handle(event: WebhookEvent) {
 *   if (event.type === 'message.bounced') markUndeliverable(event.data.recipient)
 * }
 */

export const WEBHOOK_EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.deferred',
  'message.bounced',
  'message.complained',
  'message.suppressed',
  'message.opened',
  'message.clicked',
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** What every event's `data` holds. */
export interface MessageEventData {
  /** The message (`msg_…`). */
  id: string
  /** 8 hex characters of the sending token's SHA-256. */
  project: string
  template: string
  /** The bare address this event is about (`message.sent`: the first recipient). */
  recipient: string
  subject: string
  /** The recipient's status after the event. */
  status: RecipientStatus
}

interface Envelope<T extends WebhookEventType, D extends MessageEventData> {
  type: T
  /** When it happened (ISO time); the same as the recipient event's `at`. */
  timestamp: string
  data: D
}

/** Fired once for every accepted send, before any of its recipients' events. */
export type MessageSentEvent = Envelope<
  'message.sent',
  MessageEventData & { status: 'sent' /** Every recipient's address. */; recipients: string[] }
>
export type MessageDeliveredEvent = Envelope<
  'message.delivered',
  MessageEventData & { status: 'delivered' }
>
/** A soft bounce: delivery is retried (here: delivered at the next step). */
export type MessageDeferredEvent = Envelope<
  'message.deferred',
  MessageEventData & { status: 'deferred' }
>
/** A hard bounce: the address is now on the project's suppression list. */
export type MessageBouncedEvent = Envelope<
  'message.bounced',
  MessageEventData & { status: 'bounced'; bounce: { type: 'hard' } }
>
/** A spam complaint: the address is now on the project's suppression list. */
export type MessageComplainedEvent = Envelope<
  'message.complained',
  MessageEventData & { status: 'complained' }
>
/** Not sent: the address is on the project's suppression list. */
export type MessageSuppressedEvent = Envelope<
  'message.suppressed',
  MessageEventData & { status: 'suppressed' }
>
export type MessageOpenedEvent = Envelope<'message.opened', MessageEventData>
export type MessageClickedEvent = Envelope<
  'message.clicked',
  MessageEventData & { /** The link that was clicked. */ url: string }
>

export type WebhookEvent =
  | MessageSentEvent
  | MessageDeliveredEvent
  | MessageDeferredEvent
  | MessageBouncedEvent
  | MessageComplainedEvent
  | MessageSuppressedEvent
  | MessageOpenedEvent
  | MessageClickedEvent

function base(record: MessageRecord, recipient: string, status: RecipientStatus): MessageEventData {
  return {
    id: record.id,
    project: record.project,
    template: record.template,
    recipient,
    subject: record.subject,
    status,
  }
}

/**
 * `message.sent` for a record just accepted.
 *
 * @example
 * sentEvent(record) // { type: 'message.sent', timestamp: record.createdAt, data: { id, …, status: 'sent', recipients: ['ada@example.com'] } }
 */
export function sentEvent(record: MessageRecord): MessageSentEvent {
  const recipients = record.recipients.map((r) => r.address)
  return {
    type: 'message.sent',
    timestamp: record.createdAt,
    data: { ...base(record, recipients[0] ?? '', 'sent'), status: 'sent', recipients },
  }
}

/**
 * The webhook for one recipient event of `record` (the record as it is after the event).
 * `sent` has none of its own (see `sentEvent`).
 *
 * @example
 * recipientEvent(record, 0, { type: 'bounced', at, bounce: { type: 'hard' } }) // { type: 'message.bounced', data: { …, bounce: { type: 'hard' } } }
 */
export function recipientEvent(
  record: MessageRecord,
  index: number,
  event: RecipientEvent,
): WebhookEvent | null {
  const recipient = record.recipients[index]
  if (!recipient || event.type === 'sent') return null
  const data = base(record, recipient.address, recipient.status)
  const timestamp = event.at
  switch (event.type) {
    case 'bounced':
      return {
        type: 'message.bounced',
        timestamp,
        data: { ...data, status: 'bounced', bounce: { type: 'hard' } },
      }
    case 'clicked':
      return { type: 'message.clicked', timestamp, data: { ...data, url: event.url ?? '' } }
    case 'opened':
      return { type: 'message.opened', timestamp, data }
    default:
      return { type: `message.${event.type}`, timestamp, data } as WebhookEvent
  }
}
