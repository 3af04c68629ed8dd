import * as v from 'valibot'
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../core/webhook-events.js'
import { component, described } from '../lib/schema.js'
import { MESSAGE_STATUSES } from '../store/index.js'
import type { WebhookDocument } from './openapi.js'

/**
 * The delivery lifecycle's shapes (docs/delivery.md) for the document: recipients and their events,
 * suppressions, webhook deliveries, and the payload of every webhook event.
 */

const time = (description: string) => described(v.pipe(v.string(), v.isoTimestamp()), description)
const count = () => v.pipe(v.number(), v.integer(), v.minValue(0))

export const RECIPIENT_STATUS = component(
  'RecipientStatus',
  v.pipe(
    v.picklist(MESSAGE_STATUSES),
    v.description("A recipient's (or a message's) delivery state."),
  ),
)

const RECIPIENT_EVENT = component(
  'RecipientEvent',
  v.object({
    type: v.picklist([
      'sent',
      'delivered',
      'deferred',
      'bounced',
      'complained',
      'suppressed',
      'opened',
      'clicked',
    ]),
    at: time('When it happened.'),
    url: v.optional(described(v.string(), '`clicked`: the link.')),
    bounce: v.optional(v.object({ type: v.literal('hard') })),
    simulated: v.optional(
      described(v.literal(true), 'Made with POST /_sandbox/api/messages/{id}/events.'),
    ),
  }),
)

export const RECIPIENT = component(
  'Recipient',
  v.pipe(
    v.object({
      address: described(v.string(), 'The bare address.'),
      status: RECIPIENT_STATUS,
      events: v.pipe(v.array(RECIPIENT_EVENT), v.description('Oldest first; the first is `sent`.')),
    }),
    v.description('One recipient of a message, its state and what happened to it.'),
  ),
)

const PROJECT = v.pipe(v.string(), v.regex(/^[0-9a-f]{8}$/))

export const SUPPRESSION_LIST = component(
  'SuppressionList',
  v.object({
    suppressions: v.array(
      component(
        'Suppression',
        v.pipe(
          v.object({
            address: described(v.string(), 'Lower-cased.'),
            project: PROJECT,
            reason: v.picklist(['bounced', 'complained']),
            createdAt: time('When it was added.'),
            messageId: v.optional(
              described(v.string(), 'The message whose bounce or complaint added it.'),
            ),
            subject: v.optional(
              described(
                v.string(),
                "That message's subject, while the log still holds it (the inbox shows it instead of the id).",
              ),
            ),
          }),
          v.description(
            'An address the project sends no more mail to: its sends are accepted and end `suppressed`.',
          ),
        ),
      ),
    ),
    total: count(),
  }),
)

const WEBHOOK_ATTEMPT = component(
  'WebhookAttempt',
  v.object({
    at: time('When it was sent.'),
    statusCode: described(
      v.nullable(v.pipe(v.number(), v.integer())),
      'null when no response came.',
    ),
    error: described(v.nullable(v.string()), 'Why no response came: refused, timed out, …'),
    durationMs: v.pipe(v.number(), v.minValue(0)),
    responseBody: described(v.string(), 'The first 1024 characters of the response body.'),
    manual: v.optional(
      described(v.literal(true), 'Made with POST /_sandbox/api/webhooks/{id}/retry.'),
    ),
  }),
)

export const WEBHOOK_DELIVERY = component(
  'WebhookDelivery',
  v.pipe(
    v.object({
      id: v.pipe(v.string(), v.regex(/^whd_[0-9A-HJKMNP-TV-Z]{26}$/)),
      webhookId: described(
        v.pipe(v.string(), v.regex(/^evt_/)),
        'The `webhook-id` header: the same for every attempt and URL of one event.',
      ),
      type: v.picklist(WEBHOOK_EVENT_TYPES),
      url: v.string(),
      project: described(v.string(), 'The project of the message the event is about.'),
      messageId: v.string(),
      recipient: v.string(),
      status: v.picklist(['pending', 'delivered', 'failed']),
      createdAt: time('When the event was queued.'),
      nextAttemptAt: described(
        v.nullable(v.pipe(v.string(), v.isoTimestamp())),
        'When the next retry goes out; null when none is due.',
      ),
      request: v.object({
        headers: v.record(v.string(), v.string()),
        body: v.string(),
      }),
      attempts: v.array(WEBHOOK_ATTEMPT),
    }),
    v.description('One event posted to one --webhook URL, with every attempt.'),
  ),
)

const SUMMARIES: Record<WebhookEventType, string> = {
  'message.sent': "Every accepted send, before any of its recipients' events.",
  'message.delivered': 'A recipient got the message.',
  'message.deferred': 'A soft bounce: delivery is retried (delivered at the next step).',
  'message.bounced': "A hard bounce; the address joins the project's suppression list.",
  'message.complained':
    'A spam complaint (after delivered); the address joins the suppression list.',
  'message.suppressed': "Not sent: the address is on the project's suppression list.",
  'message.opened': 'A simulated open.',
  'message.clicked': 'A simulated click on a link of the HTML.',
}

/** What the payload of each event type adds to the common data: its status, and more. */
const EVENT_DATA: Record<WebhookEventType, v.ObjectEntries> = {
  'message.sent': {
    status: v.literal('sent'),
    recipients: described(v.array(v.string()), 'Every recipient; `recipient` is the first.'),
  },
  'message.delivered': { status: v.literal('delivered') },
  'message.deferred': { status: v.literal('deferred') },
  'message.bounced': {
    status: v.literal('bounced'),
    bounce: v.object({ type: v.literal('hard') }),
  },
  'message.complained': { status: v.literal('complained') },
  'message.suppressed': { status: v.literal('suppressed') },
  'message.opened': { status: RECIPIENT_STATUS },
  'message.clicked': { status: RECIPIENT_STATUS, url: v.string() },
}

/** The payload of one webhook event type. */
function eventSchema(type: WebhookEventType) {
  const name = `WebhookEvent${type.replace('message.', '').replace(/^./, (c) => c.toUpperCase())}`
  return component(
    name,
    v.object({
      type: v.literal(type),
      timestamp: time('When it happened.'),
      data: v.object({
        id: v.pipe(v.string(), v.regex(/^msg_/)),
        project: PROJECT,
        template: v.string(),
        recipient: described(v.string(), 'The bare address the event is about.'),
        subject: v.string(),
        ...EVENT_DATA[type],
      }),
    }),
  )
}

/** OpenAPI 3.1 top-level `webhooks`: what sendbox posts to every --webhook URL, signed per Standard Webhooks. */
export function webhookDocuments(): Record<string, WebhookDocument> {
  const headers = {
    'webhook-id': "The event's id (`evt_…`), the same on every retry: drop duplicates by it.",
    'webhook-timestamp': 'Unix seconds of this attempt.',
    'webhook-signature':
      '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` with the key of the `whsec_…` secret.',
  }
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: SUMMARIES[type],
        description:
          "Posted to every --webhook URL. Any other answer than a 2xx within 5 s is retried with exponential backoff (--webhook-retries, first after 1 s); one message's events reach a URL in order.",
        headers,
        body: eventSchema(type),
      },
    ]),
  )
}
