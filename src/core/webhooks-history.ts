import type { WebhookDelivery, WebhookFilter } from './webhook-types.js'

/** Attempts of finished deliveries that are kept (pending ones always are). */
export const HISTORY_ATTEMPTS = 1000
/** Trimmed in batches, so that the walk past pending deliveries at the front is paid rarely. */
const TRIM_BATCH = 100

export interface DeliveryHistory {
  add(delivery: WebhookDelivery): void
  get(id: string): WebhookDelivery | undefined
  /** Newest first; `total` counts the matches before `limit`. */
  list(filter?: WebhookFilter): { deliveries: WebhookDelivery[]; total: number }
  /**
   * Counts attempts of settled deliveries (all of one that just settled, or the one manual
   * attempt made on one already settled), and drops the oldest settled deliveries past the limit.
   */
  settled(attempts: number): void
}

/**
 * Every delivery, oldest first, bounded by the attempts of settled ones: the newest
 * `limit` (and up to a batch more) are kept; pending deliveries are never dropped.
 *
 * @example
 * const history = createHistory()
 * history.add(delivery)                       // pending: kept whatever the count
 * history.settled(delivery.attempts.length)   // once it is delivered or failed
 * history.list({ status: 'failed', limit: 10 })
 */
export function createHistory(limit = HISTORY_ATTEMPTS): DeliveryHistory {
  const deliveries = new Map<string, WebhookDelivery>()
  let settledAttempts = 0

  function trim(): void {
    if (settledAttempts <= limit + TRIM_BATCH) return
    for (const [id, delivery] of deliveries) {
      if (settledAttempts <= limit) break
      if (delivery.status === 'pending') continue
      deliveries.delete(id)
      settledAttempts -= delivery.attempts.length
    }
  }

  return {
    add: (delivery) => void deliveries.set(delivery.id, delivery),
    get: (id) => deliveries.get(id),
    list(filter = {}) {
      const found: WebhookDelivery[] = []
      let total = 0
      const max = filter.limit ?? Infinity
      const all = [...deliveries.values()]
      for (let i = all.length - 1; i >= 0; i--) {
        const d = all[i]!
        if (filter.message !== undefined && d.messageId !== filter.message) continue
        if (filter.project !== undefined && d.project !== filter.project) continue
        if (filter.type !== undefined && d.type !== filter.type) continue
        if (filter.status !== undefined && d.status !== filter.status) continue
        if (filter.url !== undefined && d.url !== filter.url) continue
        total++
        if (found.length < max) found.push(d)
      }
      return { deliveries: found, total }
    },
    settled(attempts) {
      settledAttempts += attempts
      trim()
    },
  }
}
