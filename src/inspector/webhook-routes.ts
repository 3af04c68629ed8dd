import type { H3, H3Event } from 'h3'
import { getRouterParam } from 'h3'
import type { AppContext } from '../core/context.js'
import { HISTORY_ATTEMPTS, type WebhookDelivery, type WebhookDeliveryStatus, type WebhookFilter } from '../core/webhooks.js'
import { WEBHOOK_EVENT_TYPES } from '../core/webhook-events.js'
import { apiError } from '../http/errors.js'
import { route } from '../http/route.js'
import { badParameter, integer } from './query.js'

export const WEBHOOK_LIST_DEFAULT_LIMIT = 100
export const WEBHOOK_LIST_MAX_LIMIT = 1000
const DELIVERY_STATUSES: WebhookDeliveryStatus[] = ['pending', 'delivered', 'failed']

function parseWebhookFilter(event: H3Event): WebhookFilter {
  const params = event.url.searchParams
  const filter: WebhookFilter = { limit: integer(params, 'limit', 1, WEBHOOK_LIST_MAX_LIMIT) ?? WEBHOOK_LIST_DEFAULT_LIMIT }
  const message = params.get('message')
  if (message) filter.message = message
  const type = params.get('type')
  if (type) {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) throw badParameter('type', `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')} (got ${JSON.stringify(type)})`)
    filter.type = type
  }
  const status = params.get('status')
  if (status) {
    if (!DELIVERY_STATUSES.includes(status as WebhookDeliveryStatus)) throw badParameter('status', `must be one of ${DELIVERY_STATUSES.join(', ')} (got ${JSON.stringify(status)})`)
    filter.status = status as WebhookDeliveryStatus
  }
  return filter
}

function findDelivery(event: H3Event, ctx: AppContext): WebhookDelivery {
  const id = getRouterParam(event, 'id') ?? ''
  const delivery = ctx.webhooks.get(id)
  if (!delivery) throw apiError(404, 'webhook_delivery_not_found', `There is no webhook delivery "${id}"; only the newest ${HISTORY_ATTEMPTS} attempts are kept. GET /_sandbox/api/webhooks lists them.`)
  return delivery
}

/** The webhook deliveries (CONTRACT §7): list, one, and a manual retry. */
export function registerWebhookRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/webhooks', {
    GET: (event) => {
      const { deliveries, total } = ctx.webhooks.list(parseWebhookFilter(event))
      return { endpoints: ctx.webhooks.endpoints, deliveries, total, pending: ctx.webhooks.pending() }
    },
  })
  route(app, '/_sandbox/api/webhooks/:id', {
    GET: (event) => findDelivery(event, ctx),
  })
  route(app, '/_sandbox/api/webhooks/:id/retry', {
    // Sends it once more now and answers with the delivery after that attempt (at most the 5 s timeout).
    POST: async (event) => (await ctx.webhooks.retry(findDelivery(event, ctx).id))!,
  })
}
