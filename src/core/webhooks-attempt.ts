import { newId } from '../lib/ids.js'
import type { WebhookEvent } from './webhook-events.js'
import type { WebhookAttempt, WebhookDelivery } from './webhook-types.js'
import type { Poster } from './webhook-poster.js'
import type { Signer } from './webhooks-signing.js'

/** How much of a receiver's answer is kept with an attempt. */
export const BODY_START = 1024

export interface AttemptOptions {
  poster: Poster
  sign: Signer
  timeoutMs: number
  /** Made by hand (POST /_sandbox/api/webhooks/:id/retry), outside the automatic retries. */
  manual: boolean
  /** Holds the attempt's abort while it is in flight, for close(). */
  inFlight: Set<() => void>
}

export const isOk = (a: WebhookAttempt) =>
  a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300

/**
 * One attempt: signs the delivery anew, posts it, and records the attempt on it (a 2xx makes
 * it `delivered`). Never rejects: a failure is an attempt with an `error`.
 *
 * @example
 * const attempt = await attemptDelivery(delivery, { poster, sign, timeoutMs: 5000, manual: false, inFlight })
 * attempt // { at: '2026-11-21T10:00:00.000Z', statusCode: 204, error: null, durationMs: 1.2, responseBody: '' }
 */
export async function attemptDelivery(
  delivery: WebhookDelivery,
  options: AttemptOptions,
): Promise<WebhookAttempt> {
  const headers = options.sign(delivery.webhookId, delivery.request.body)
  delivery.request.headers = headers
  const at = new Date().toISOString()
  const call = options.poster.post(delivery.url, delivery.request.body, {
    headers,
    timeoutMs: options.timeoutMs,
    bodyLimit: BODY_START,
  })
  options.inFlight.add(call.abort)
  const result = await call.done
  options.inFlight.delete(call.abort)
  const attempt: WebhookAttempt = {
    at,
    statusCode: result.status,
    error: result.error,
    durationMs: result.durationMs,
    responseBody: result.body,
    ...(options.manual ? { manual: true as const } : {}),
  }
  delivery.attempts.push(attempt)
  if (isOk(attempt)) {
    delivery.status = 'delivered'
    delivery.nextAttemptAt = null
  }
  return attempt
}

/**
 * After an automatic attempt: `settled` when it got through or ran out of retries (then it is
 * `failed`), else the milliseconds to wait before the next one (`backoffMs`, doubling each
 * time; `nextAttemptAt` says when). Manual attempts do not count against the retries.
 *
 * @example
 * afterAutomaticAttempt(delivery, { retries: 5, backoffMs: 1000 }) // 1000, then 2000, 4000, …, then 'settled'
 */
export function afterAutomaticAttempt(
  delivery: WebhookDelivery,
  policy: { retries: number; backoffMs: number },
  nowMs = Date.now(),
): 'settled' | number {
  if (delivery.status === 'delivered') return 'settled'
  const made = delivery.attempts.filter((a) => !a.manual).length
  if (made > policy.retries) {
    delivery.status = 'failed'
    delivery.nextAttemptAt = null
    return 'settled'
  }
  const wait = policy.backoffMs * 2 ** (made - 1)
  delivery.nextAttemptAt = new Date(nowMs + wait).toISOString()
  return wait
}

/**
 * A new delivery of an event to one URL: pending, no attempt yet.
 *
 * @example
 * newDelivery(event, { messageId: 'msg_1', webhookId: 'evt_1', url: 'http://127.0.0.1:4000/hooks', createdAt })
 */
export function newDelivery(
  event: WebhookEvent,
  at: { messageId: string; webhookId: string; url: string; createdAt: string },
): WebhookDelivery {
  return {
    id: newId('whd_'),
    webhookId: at.webhookId,
    type: event.type,
    url: at.url,
    project: event.data.project,
    messageId: at.messageId,
    recipient: event.data.recipient,
    status: 'pending',
    createdAt: at.createdAt,
    nextAttemptAt: null,
    request: { headers: {}, body: JSON.stringify(event) },
    attempts: [],
  }
}
