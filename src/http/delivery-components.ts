import type { JsonSchema } from '../lib/schema.js'
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../core/webhook-events.js'
import { MESSAGE_STATUSES } from '../store/index.js'
import { component } from './openapi.js'

/**
 * The delivery lifecycle's shapes (CONTRACT §7) for the OpenAPI document: recipients and their
 * events, suppressions, webhook deliveries, and the payload of every webhook event.
 */

const time = (description: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  description,
})

export const RECIPIENT_STATUS = component('RecipientStatus', {
  type: 'string',
  enum: [...MESSAGE_STATUSES],
  description: "A recipient's (or a message's) delivery state.",
})

export const RECIPIENT = component('Recipient', {
  type: 'object',
  description: 'One recipient of a message, its state and what happened to it.',
  required: ['address', 'status', 'events'],
  properties: {
    address: { type: 'string', description: 'The bare address.' },
    status: RECIPIENT_STATUS,
    events: {
      type: 'array',
      description: 'Oldest first; the first is `sent`.',
      items: component('RecipientEvent', {
        type: 'object',
        required: ['type', 'at'],
        properties: {
          type: {
            type: 'string',
            enum: [
              'sent',
              'delivered',
              'deferred',
              'bounced',
              'complained',
              'suppressed',
              'opened',
              'clicked',
            ],
          },
          at: time('When it happened.'),
          url: { type: 'string', description: '`clicked`: the link.' },
          bounce: { type: 'object', properties: { type: { const: 'hard' } } },
          simulated: {
            const: true,
            description: 'Made with POST /_sandbox/api/messages/{id}/events.',
          },
        },
      }),
    },
  },
})

export const SUPPRESSION_LIST = component('SuppressionList', {
  type: 'object',
  required: ['suppressions', 'total'],
  properties: {
    suppressions: {
      type: 'array',
      items: component('Suppression', {
        type: 'object',
        description:
          'An address the project sends no more mail to: its sends are accepted and end `suppressed`.',
        required: ['address', 'project', 'reason', 'createdAt'],
        properties: {
          address: { type: 'string', description: 'Lower-cased.' },
          project: { type: 'string', pattern: '^[0-9a-f]{8}$' },
          reason: { type: 'string', enum: ['bounced', 'complained'] },
          createdAt: time('When it was added.'),
          messageId: {
            type: 'string',
            description: 'The message whose bounce or complaint added it.',
          },
          subject: {
            type: 'string',
            description:
              "That message's subject, while the log still holds it (the inbox shows it instead of the id).",
          },
        },
      }),
    },
    total: { type: 'integer', minimum: 0 },
  },
})

export const WEBHOOK_DELIVERY = component('WebhookDelivery', {
  type: 'object',
  description: 'One event posted to one --webhook URL, with every attempt.',
  required: [
    'id',
    'webhookId',
    'type',
    'url',
    'messageId',
    'recipient',
    'status',
    'createdAt',
    'nextAttemptAt',
    'request',
    'attempts',
  ],
  properties: {
    id: { type: 'string', pattern: '^whd_' },
    webhookId: {
      type: 'string',
      pattern: '^evt_',
      description: 'The `webhook-id` header: the same for every attempt and URL of one event.',
    },
    type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    url: { type: 'string' },
    messageId: { type: 'string' },
    recipient: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    createdAt: time('When the event was queued.'),
    nextAttemptAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the next retry goes out; null when none is due.',
    },
    request: {
      type: 'object',
      required: ['headers', 'body'],
      properties: {
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: { type: 'string' },
      },
    },
    attempts: {
      type: 'array',
      items: component('WebhookAttempt', {
        type: 'object',
        required: ['at', 'statusCode', 'error', 'durationMs', 'responseBody'],
        properties: {
          at: time('When it was sent.'),
          statusCode: { type: ['integer', 'null'], description: 'null when no response came.' },
          error: {
            type: ['string', 'null'],
            description: 'Why no response came: refused, timed out, …',
          },
          durationMs: { type: 'number', minimum: 0 },
          responseBody: {
            type: 'string',
            description: 'The first 1024 characters of the response body.',
          },
          manual: { const: true, description: 'Made with POST /_sandbox/api/webhooks/{id}/retry.' },
        },
      }),
    },
  },
})

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

/** The payload of one webhook event type. */
function eventSchema(type: WebhookEventType): JsonSchema {
  const status = (value: string | null): JsonSchema => (value ? { const: value } : RECIPIENT_STATUS)
  const extras: Record<WebhookEventType, [JsonSchema, Record<string, JsonSchema>, string[]]> = {
    'message.sent': [
      status('sent'),
      {
        recipients: {
          type: 'array',
          items: { type: 'string' },
          description: 'Every recipient; `recipient` is the first.',
        },
      },
      ['recipients'],
    ],
    'message.delivered': [status('delivered'), {}, []],
    'message.deferred': [status('deferred'), {}, []],
    'message.bounced': [
      status('bounced'),
      { bounce: { type: 'object', required: ['type'], properties: { type: { const: 'hard' } } } },
      ['bounce'],
    ],
    'message.complained': [status('complained'), {}, []],
    'message.suppressed': [status('suppressed'), {}, []],
    'message.opened': [status(null), {}, []],
    'message.clicked': [status(null), { url: { type: 'string' } }, ['url']],
  }
  const [state, extra, required] = extras[type]
  const name = `WebhookEvent${type.replace('message.', '').replace(/^./, (c) => c.toUpperCase())}`
  return component(name, {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: {
      type: { const: type },
      timestamp: time('When it happened.'),
      data: {
        type: 'object',
        required: ['id', 'project', 'template', 'recipient', 'subject', 'status', ...required],
        properties: {
          id: { type: 'string', pattern: '^msg_' },
          project: { type: 'string', pattern: '^[0-9a-f]{8}$' },
          template: { type: 'string' },
          recipient: { type: 'string', description: 'The bare address the event is about.' },
          subject: { type: 'string' },
          status: state,
          ...extra,
        },
      },
    },
  })
}

/** OpenAPI 3.1 top-level `webhooks`: what sendbox posts to every --webhook URL, signed per Standard Webhooks. */
export function webhookOperations(): Record<string, unknown> {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  })
  const parameters = [
    header(
      'webhook-id',
      "The event's id (`evt_…`), the same on every retry: drop duplicates by it.",
    ),
    header('webhook-timestamp', 'Unix seconds of this attempt.'),
    header(
      'webhook-signature',
      '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` with the key of the `whsec_…` secret.',
    ),
  ]
  const result: Record<string, unknown> = {}
  for (const type of WEBHOOK_EVENT_TYPES) {
    result[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: SUMMARIES[type],
        description:
          "Posted to every --webhook URL. Any other answer than a 2xx within 5 s is retried with exponential backoff (--webhook-retries, first after 1 s); one message's events reach a URL in order.",
        parameters,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: eventSchema(type) } },
        },
        responses: { '2XX': { description: 'Received; any 2xx counts.' } },
      },
    }
  }
  return result
}
