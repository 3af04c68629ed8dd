import { newId } from '../lib/ids.js'
import type { Awaitable } from '../store/types.js'
import { ProjectTally } from '../store/index.js'
import type { EventBus } from './events.js'
import type { WebhookEvent } from './webhook-events.js'
import type { WebhookDelivery, WebhookFilter } from './webhook-types.js'
import { afterAutomaticAttempt, attemptDelivery, newDelivery } from './webhooks-attempt.js'
import type { Poster } from './webhook-poster.js'
import { createHistory, type DeliveryHistory } from './webhooks-history.js'
import { createEndpointQueue, type EndpointQueue, type LaneHooks } from './webhooks-lanes.js'
import { createSigner, type Signer } from './webhooks-signing.js'

export type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookFilter,
} from './webhook-types.js'
export { HISTORY_ATTEMPTS } from './webhooks-history.js'

/**
 * Webhook delivery (docs/delivery.md), off the send path: every event goes to every `--webhook` URL
 * as JSON signed per Standard Webhooks. The parts, each tested on its own:
 * - `webhooks-lanes.ts`: one queue per URL, in which the events of one message form a lane,
 *   delivered strictly in order, while different messages' lanes go out side by side;
 * - `webhooks-attempt.ts`: one attempt (sign, post, record), and the retry policy;
 * - `webhooks-signing.ts`: the Standard Webhooks signature;
 * - `webhooks-history.ts`: every delivery with its attempts, the newest 1000 attempts kept;
 * - the HTTP client (`Poster`, webhook-poster.ts), handed in by the server, which builds it on
 *   undici (src/server/webhooks-client.ts);
 * - `webhooks-shared.ts`: the same on a store several processes share (deliveries and attempts
 *   in the database, claimed by any process).
 * A send only ever adds to a queue: an unreachable or slow URL costs it nothing.
 */

/** A URL events are posted to: every project's (`--webhook`), or one project's with its own secret. */
export interface WebhookEndpoint {
  url: string
  /** Only this project's events (a projects file's `webhooks`); absent: every project's. */
  project?: string
  /** Signs this endpoint's requests instead of the sandbox's secret. */
  secret?: string
}

export interface WebhookDispatcher {
  /** Every project's URLs (`--webhook`). */
  readonly endpoints: readonly string[]
  /** The URLs one project's events go to: every project's, then its own. */
  endpointsOf(project: string): string[]
  /**
   * Queues the event for every endpoint (nothing when there is none); resolves once queued (on a
   * shared store, once written: it rejects only when the store could not be written). `webhookId` names the event when it must be the
   * same each time it is queued (an event queued twice for one URL then goes out once).
   */
  enqueue(event: WebhookEvent, messageId: string, webhookId?: string): Promise<void>
  /** Newest first; `total` counts the matches before `limit`. */
  list(filter?: WebhookFilter): Awaitable<{ deliveries: WebhookDelivery[]; total: number }>
  get(id: string): Awaitable<WebhookDelivery | undefined>
  /** Sends the delivery once more, now; resolves after that attempt. Undefined for an unknown id. */
  retry(id: string): Promise<WebhookDelivery | undefined>
  /** Deliveries queued or waiting for a retry: of one project (its token reads its own), or of all. */
  pending(project?: string): Awaitable<number>
  /** Stops every timer and request in flight; later events are dropped. */
  close(): void
}

export interface WebhookOptions {
  endpoints: readonly string[]
  /** Projects' own endpoints (docs/team.md#projects-each-teams-mail-behind-its-own-tokens). */
  projectEndpoints?: readonly WebhookEndpoint[]
  secret: string
  retries: number
  /** Milliseconds before the first retry; each further one waits twice as long. */
  backoffMs: number
  timeoutMs: number
  userAgent: string
  events: EventBus
  /** The HTTP client (src/server builds it, on undici). */
  poster: Poster
}

/** Whether an endpoint takes a project's events: every project's does, a project's own its own. */
export const servesProject = (endpoint: WebhookEndpoint, project: string) =>
  endpoint.project === undefined || endpoint.project === project

/**
 * The URLs one project's events go to.
 *
 * @example
 * urlsOf([{ url: 'http://a.test/h' }, { url: 'http://b.test/h', project: 'billing' }], 'acme') // ['http://a.test/h']
 */
export const urlsOf = (endpoints: readonly WebhookEndpoint[], project: string) =>
  endpoints.filter((e) => servesProject(e, project)).map((e) => e.url)

/** An endpoint with its signer and its queue. */
interface Route {
  endpoint: WebhookEndpoint
  sign: Signer
  queue: EndpointQueue
}

/**
 * Each endpoint with its signer (its own secret's, or the sandbox's) and its queue.
 *
 * @example
 * const routes = routesOf(endpoints, sign, 'sendbox/1.0', { maxInFlight: 64, attempt, decide, settled })
 */
function routesOf(
  endpoints: readonly WebhookEndpoint[],
  sign: Signer,
  userAgent: string,
  hooks: LaneHooks,
): Route[] {
  return endpoints.map((endpoint) => ({
    endpoint,
    sign: endpoint.secret ? createSigner(endpoint.secret, userAgent) : sign,
    queue: createEndpointQueue(endpoint.url, hooks),
  }))
}

/**
 * A manual retry (POST /_sandbox/api/webhooks/:id/retry): one attempt now, outside the
 * automatic ones. Resolves with the delivery after it; undefined for an unknown id.
 *
 * @example
 * await retryNow('whd_…', { history, attempt, publish, isClosed, routeOf })
 */
async function retryNow(
  id: string,
  parts: {
    history: DeliveryHistory
    attempt(delivery: WebhookDelivery, manual: boolean): Promise<unknown>
    publish(delivery: WebhookDelivery): void
    isClosed(): boolean
    routeOf: WeakMap<WebhookDelivery, Route>
  },
): Promise<WebhookDelivery | undefined> {
  const delivery = parts.history.get(id)
  if (!delivery || parts.isClosed()) return delivery
  const wasSettled = delivery.status !== 'pending'
  await parts.attempt(delivery, true)
  if (parts.isClosed()) return delivery
  // It was waiting for an automatic retry and got through: its lane moves on (which
  // publishes it and files it as settled).
  const queue = parts.routeOf.get(delivery)?.queue
  if (delivery.status === 'delivered' && !wasSettled && queue?.delivered(delivery)) return delivery
  if (delivery.status === 'delivered' && wasSettled) delivery.nextAttemptAt = null
  parts.publish(delivery)
  parts.history.settled(wasSettled ? 1 : 0)
  return delivery
}

/**
 * Attempts in flight per URL; the client runs 16 at once per origin (one per keep-alive
 * connection, no pipelining) and holds the rest for a free connection.
 */
const MAX_IN_FLIGHT = 64

/**
 * @example
 * const webhooks = createWebhookDispatcher({ endpoints: ['http://127.0.0.1:4000/hooks'], secret, retries: 5, backoffMs: 1000, timeoutMs: 5000, userAgent: 'sendbox/1.0', events })
 * webhooks.enqueue(sentEvent(record), record.id)
 */
// Long because it composes what one dispatcher shares (history, the queues, the pending count,
// the pump after the current request): the parts are their own modules (lanes, attempt,
// history, signing), and what is left is the object that wires them.
export function createWebhookDispatcher(options: WebhookOptions): WebhookDispatcher {
  const endpoints: WebhookEndpoint[] = [
    ...options.endpoints.map((url) => ({ url })),
    ...(options.projectEndpoints ?? []),
  ]
  const { poster } = options
  const sign = createSigner(options.secret, options.userAgent)
  // Each delivery is signed with its endpoint's secret, and retried on its endpoint's queue.
  const routeOf = new WeakMap<WebhookDelivery, Route>()
  const history = createHistory()
  const inFlight = new Set<() => void>()
  const policy = { retries: options.retries, backoffMs: options.backoffMs }
  // Per project and in all: a project's token reads its own (docs/team.md).
  const pendingCount = new ProjectTally()
  let closed = false
  let pumpScheduled = false

  const publish = (delivery: WebhookDelivery) => options.events.emit({ type: 'webhook', delivery })
  const attempt = (delivery: WebhookDelivery, manual: boolean) =>
    attemptDelivery(delivery, {
      poster,
      sign: routeOf.get(delivery)?.sign ?? sign,
      timeoutMs: options.timeoutMs,
      manual,
      inFlight,
    })

  const queues = routesOf(endpoints, sign, options.userAgent, {
    maxInFlight: MAX_IN_FLIGHT,
    attempt: (delivery) => attempt(delivery, false),
    decide(delivery) {
      const next = afterAutomaticAttempt(delivery, policy)
      // Waiting for a retry: say when.
      if (next !== 'settled') publish(delivery)
      return next
    },
    settled(delivery) {
      pendingCount.add(delivery.project, -1)
      publish(delivery)
      history.settled(delivery.attempts.length)
    },
  })

  function schedulePump(): void {
    if (pumpScheduled || closed) return
    pumpScheduled = true
    // After the current request is answered: a send's 201 goes out before its first webhook.
    setImmediate(() => {
      pumpScheduled = false
      for (const { queue } of queues) queue.pump()
    })
  }

  return {
    endpoints: options.endpoints,

    endpointsOf: (project) => urlsOf(endpoints, project),

    enqueue(event, messageId, webhookId = newId('evt_')) {
      if (closed || queues.length === 0) return Promise.resolve()
      const createdAt = new Date().toISOString()
      const project = event.data.project
      for (const route of queues) {
        if (!servesProject(route.endpoint, project)) continue
        const { queue } = route
        const delivery = newDelivery(event, { messageId, webhookId, url: queue.url, createdAt })
        routeOf.set(delivery, route)
        history.add(delivery)
        pendingCount.add(project, 1)
        queue.push(delivery)
        publish(delivery)
      }
      schedulePump()
      return Promise.resolve()
    },

    list: (filter) => history.list(filter),

    get: (id) => history.get(id),

    retry: (id) => retryNow(id, { history, attempt, publish, isClosed: () => closed, routeOf }),

    pending: (project) => pendingCount.of(project),

    close() {
      if (closed) return
      closed = true
      for (const { queue } of queues) queue.close()
      for (const abort of inFlight) abort()
      inFlight.clear()
      poster.close()
    },
  }
}
