import { newId } from '../lib/ids.js'
import type {
  ClaimedWork,
  StoredWebhook,
  WebhookTable,
  WorkItem,
  WorkQueue,
} from '../store/types.js'
import type { WebhookDelivery } from './webhook-types.js'
import { afterAutomaticAttempt, attemptDelivery, newDelivery } from './webhooks-attempt.js'
import type { Poster } from './webhook-poster.js'
import type { Signer } from './webhooks-signing.js'
import { servesProject, urlsOf, type WebhookDispatcher, type WebhookEndpoint } from './webhooks.js'
import type { WorkRunner } from './work-runner.js'

/** The kind of work one webhook attempt is (its key the delivery's id). */
export const WEBHOOK_WORK = 'webhook'

export interface SharedWebhookParts {
  endpoints: readonly WebhookEndpoint[]
  /** Every project's URLs (`--webhook`). */
  urls: readonly string[]
  /** The signer of an endpoint (its own secret, or the sandbox's). */
  signerOf(endpoint: WebhookEndpoint | undefined): Signer
  poster: Poster
  policy: { retries: number; backoffMs: number }
  timeoutMs: number
  publish(delivery: WebhookDelivery): void
  table: WebhookTable
  work: WorkQueue
  runner: WorkRunner
}

const stored = (delivery: WebhookDelivery) => delivery as unknown as StoredWebhook
const deliveryOf = (row: StoredWebhook) => row as unknown as WebhookDelivery

/**
 * The first attempt of a delivery: due now, in its message's lane for its URL, asked leased to
 * this process for `leaseMs` (the table grants it when nothing comes before it in its lane, and
 * this process runs it at once; a claim takes it otherwise, or once the lease ran out).
 */
const firstAttempt =
  (leaseMs: number) =>
  (row: StoredWebhook): WorkItem => ({
    kind: WEBHOOK_WORK,
    key: row.id,
    lane: `${row.messageId} ${row.url}`,
    dueAt: Date.now(),
    payload: {},
    leaseMs,
  })

type Attempt = (delivery: WebhookDelivery, manual: boolean) => Promise<unknown>

/**
 * A claimed attempt: posts the delivery, then writes the outcome and finishes the row of work or
 * puts it back for the retry's time, both in one write (`settle`).
 *
 * @example
 * await attemptClaimed(parts, attempt, item, () => false, undefined)
 */
async function attemptClaimed(
  parts: SharedWebhookParts,
  attempt: Attempt,
  item: ClaimedWork,
  isClosed: () => boolean,
  /** The delivery as this process just added it, when the attempt was leased to it then. */
  held?: StoredWebhook,
): Promise<void> {
  const row = held ?? (await parts.table.get(item.key))
  if (row?.status !== 'pending') return void (await parts.work.done(item))
  const delivery = deliveryOf(row)
  await attempt(delivery, false)
  if (isClosed()) return
  const next = afterAutomaticAttempt(delivery, parts.policy)
  await parts.table.settle(stored(delivery), item, next === 'settled' ? null : Date.now() + next)
  parts.publish(delivery)
}

/**
 * A manual retry: one attempt now, in this process, written back; a delivery that got through
 * while it waited for an automatic retry leaves its lane.
 *
 * @example
 * await retryNow(parts, attempt, 'whd_…', () => false)
 */
async function retryNow(
  parts: SharedWebhookParts,
  attempt: Attempt,
  id: string,
  isClosed: () => boolean,
): Promise<WebhookDelivery | undefined> {
  const row = await parts.table.get(id)
  if (!row || isClosed()) return row && deliveryOf(row)
  const delivery = deliveryOf(row)
  const wasPending = delivery.status === 'pending'
  await attempt(delivery, true)
  if (delivery.status === 'delivered') delivery.nextAttemptAt = null
  await parts.table.save(stored(delivery))
  if (wasPending && delivery.status === 'delivered')
    await parts.work.drop({ kind: WEBHOOK_WORK, key: id })
  parts.publish(delivery)
  return delivery
}

/**
 * Handles the claimed attempts of this process, and answers how to run at once those leased to
 * it as it added them (`firstOf`, the row each was added with), from the deliveries in hand (no
 * read of them).
 *
 * @example
 * const runLeased = handleAttempts(parts, attempt, () => false, firstAttempt(10_000))
 * runLeased(leased)
 */
function handleAttempts(
  parts: SharedWebhookParts,
  attempt: Attempt,
  isClosed: () => boolean,
  firstOf: (row: StoredWebhook) => WorkItem,
) {
  const fresh = new Map<string, StoredWebhook>()
  parts.runner.handle(WEBHOOK_WORK, (item) => {
    const held = fresh.get(item.key)
    fresh.delete(item.key)
    return attemptClaimed(parts, attempt, item, isClosed, held)
  })
  return (leased: readonly StoredWebhook[]) => {
    for (const row of leased) {
      // A copy: the attempt changes the delivery it is given, and `row` was just published.
      fresh.set(row.id, structuredClone(row))
      parts.runner.run({ ...firstOf(row), attempts: 0 })
    }
  }
}

/**
 * Webhooks on a store several processes share (docs/team.md): every delivery is a row of
 * `WebhookTable`, one per event and URL (an event queued twice for a URL is kept once), and each
 * attempt a row of work in its message's lane for that URL, claimed by whichever process is
 * free. The history, `list` and `get`, is the table's: every process answers the same.
 *
 * @example
 * const webhooks = createSharedWebhookDispatcher(parts)
 * await webhooks.enqueue(sentEvent(record), record.id)
 */
export function createSharedWebhookDispatcher(parts: SharedWebhookParts): WebhookDispatcher {
  const inFlight = new Set<() => void>()
  let closed = false
  const endpointOf = (delivery: WebhookDelivery) =>
    parts.endpoints.find((e) => e.url === delivery.url && servesProject(e, delivery.project))
  const attempt = (delivery: WebhookDelivery, manual: boolean) =>
    attemptDelivery(delivery, {
      poster: parts.poster,
      sign: parts.signerOf(endpointOf(delivery)),
      timeoutMs: parts.timeoutMs,
      manual,
      inFlight,
    })

  const firstOf = firstAttempt(parts.runner.leaseMs)
  const runLeased = handleAttempts(parts, attempt, () => closed, firstOf)

  return {
    endpoints: parts.urls,
    endpointsOf: (project) => urlsOf(parts.endpoints, project),
    async enqueue(event, messageId, webhookId = newId('evt_')) {
      const createdAt = new Date().toISOString()
      const deliveries = parts.endpoints
        .filter((e) => servesProject(e, event.data.project))
        .map((e) => stored(newDelivery(event, { messageId, webhookId, url: e.url, createdAt })))
      if (closed || deliveries.length === 0) return
      // A failure (the store away) is the caller's: a delivery step left to its lease is redone.
      const { added, leased } = await parts.table.add(deliveries, firstOf)
      // Those leased here run now; a claim takes the others (behind an earlier one of their lane).
      if (leased.length < added.length) parts.runner.wake()
      for (const row of added) parts.publish(deliveryOf(row))
      runLeased(leased)
    },
    list: async (filter) => {
      const { deliveries, total } = await parts.table.list(filter)
      return { deliveries: deliveries.map(deliveryOf), total }
    },
    get: async (id) => {
      const row = await parts.table.get(id)
      return row && deliveryOf(row)
    },
    retry: (id) => retryNow(parts, attempt, id, () => closed),
    pending: (project) => parts.table.pending(project),
    close() {
      closed = true
      for (const abort of inFlight) abort()
      inFlight.clear()
      parts.poster.close()
    },
  }
}
