import type { WebhookEventType } from './webhook-events.js'

/**
 * The shapes of webhook deliveries, as GET /_sandbox/api/webhooks, the SSE `webhook` event and
 * `sandbox.webhooks()` show them. Types only, so that the inbox page can share them.
 */

export interface WebhookAttempt {
  /** ISO time the attempt started. */
  at: string
  /** The response's status code; null when none came. */
  statusCode: number | null
  /** Why there was no 2xx response body to speak of: refused, timed out, … ; null when a response came. */
  error: string | null
  durationMs: number
  /** The start of the response body (at most 1024 characters). */
  responseBody: string
  /** Made with POST /_sandbox/api/webhooks/:id/retry. */
  manual?: true
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed'

/** One event on its way to one URL, with every attempt so far. */
export interface WebhookDelivery {
  /** `whd_…`: this delivery (POST /_sandbox/api/webhooks/:id/retry). */
  id: string
  /** The `webhook-id` header: the same for every attempt and every URL of one event, so receivers can drop duplicates. */
  webhookId: string
  type: WebhookEventType
  url: string
  /** The project of the message the event is about. */
  project: string
  messageId: string
  recipient: string
  /** `pending` while attempts remain (or it waits its turn), then `delivered` or `failed`. */
  status: WebhookDeliveryStatus
  createdAt: string
  /** When the next automatic attempt is due, while it waits for a retry. */
  nextAttemptAt: string | null
  /** What was sent: the headers of the latest attempt (each is signed anew) and the body. */
  request: { headers: Record<string, string>; body: string }
  attempts: WebhookAttempt[]
}

export interface WebhookFilter {
  message?: string
  /** Only this project's deliveries. */
  project?: string
  type?: string
  status?: WebhookDeliveryStatus
  url?: string
  limit?: number
}
