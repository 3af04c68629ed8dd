import type { AppContext } from '../http/context.js'
import { WEBHOOK_EVENT_TYPES } from '../core/webhook-events.js'
import { HISTORY_ATTEMPTS, type WebhookDelivery, type WebhookFilter } from '../core/webhooks.js'
import { WEBHOOK_DELIVERY } from '../http/delivery-components.js'
import * as v from 'valibot'
import { count } from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { described } from '../lib/schema.js'
import { apiError } from '../http/errors.js'
import { enumParam, intParam, noNul, pathParam, textParam } from '../http/params.js'
import { PROJECT_ACCESS, sees, type Viewer } from '../http/viewer.js'

export const WEBHOOK_LIST_DEFAULT_LIMIT = 100
export const WEBHOOK_LIST_MAX_LIMIT = 1000

const ONE = {
  id: pathParam(
    'A webhook delivery id, as GET /_sandbox/api/webhooks lists it.',
    v.pipe(
      v.string(),
      noNul,
      v.metadata({ pattern: '^whd_[0-9A-HJKMNP-TV-Z]{26}$' }),
      v.examples(['whd_01KAPXVZ5Q3K8T1V7W9Y2B4C6D']),
    ),
  ),
}

async function findDelivery(ctx: AppContext, id: string, viewer: Viewer): Promise<WebhookDelivery> {
  const delivery = await ctx.webhooks.get(id)
  // Another project's delivery is not found, as if it did not exist.
  if (!delivery || !sees(viewer, delivery.project))
    throw apiError(
      404,
      'webhook_delivery_not_found',
      `There is no webhook delivery "${id}"; only the newest ${HISTORY_ATTEMPTS} attempts are kept. GET /_sandbox/api/webhooks lists them.`,
    )
  return delivery
}

/** The webhook deliveries (docs/delivery.md): list, one, and a manual retry. */
export const webhookOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/webhooks',
    operationId: 'listWebhookDeliveries',
    tag: 'inspector',
    summary: 'Webhook deliveries, newest first, with every attempt.',
    description:
      'Every event posted to every --webhook URL (the newest 1000 attempts of finished deliveries, and every pending one): status code or error, duration and the start of the response body per attempt, the signed request.',
    query: {
      message: textParam('Only the deliveries of this message (its id).', {
        examples: ['msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D'],
      }),
      type: enumParam(WEBHOOK_EVENT_TYPES, 'Only this event type.'),
      status: enumParam(['pending', 'delivered', 'failed'], 'Only deliveries in this state.'),
      limit: intParam(
        { minimum: 1, maximum: WEBHOOK_LIST_MAX_LIMIT, default: WEBHOOK_LIST_DEFAULT_LIMIT },
        'How many deliveries to answer with, newest first.',
      ),
    },
    success: {
      status: 200,
      description: 'The deliveries.',
      schema: v.object({
        endpoints: described(
          v.array(v.string()),
          "The --webhook URLs (and with projects, the caller's project's own).",
        ),
        deliveries: v.array(WEBHOOK_DELIVERY),
        total: count(),
        pending: count(
          "Deliveries queued or waiting for a retry (with a project's token, the project's).",
        ),
      }),
    },
    security: PROJECT_ACCESS,
    async handler({ ctx, query, caller }) {
      const filter: WebhookFilter = {
        limit: query.limit,
        ...(caller.project === null ? {} : { project: caller.project }),
        ...(query.message ? { message: query.message } : {}),
        ...(query.type ? { type: query.type } : {}),
        ...(query.status ? { status: query.status } : {}),
      }
      const [{ deliveries, total }, pending] = await Promise.all([
        ctx.webhooks.list(filter),
        // A project's token counts its own: another project's backlog is none of its figures.
        ctx.webhooks.pending(caller.project ?? undefined),
      ])
      return {
        endpoints:
          caller.project === null
            ? [...ctx.webhooks.endpoints]
            : ctx.webhooks.endpointsOf(caller.project),
        deliveries,
        total,
        pending,
      }
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/webhooks/:id',
    operationId: 'getWebhookDelivery',
    tag: 'inspector',
    summary: 'One webhook delivery with its attempts.',
    description: 'As listed by GET /_sandbox/api/webhooks.',
    params: ONE,
    success: { status: 200, description: 'The delivery.', schema: WEBHOOK_DELIVERY },
    errors: [[404, 'webhook_delivery_not_found']],
    security: PROJECT_ACCESS,
    handler: ({ ctx, params, caller }) => findDelivery(ctx, params.id, caller),
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/webhooks/:id/retry',
    operationId: 'retryWebhookDelivery',
    tag: 'inspector',
    summary: 'Send a webhook delivery once more, now.',
    description:
      'Same `webhook-id` and body, a fresh timestamp and signature. Answers with the delivery after that attempt (at most the 5 s timeout later).',
    params: ONE,
    success: {
      status: 200,
      description: 'The delivery after the attempt.',
      schema: WEBHOOK_DELIVERY,
    },
    errors: [[404, 'webhook_delivery_not_found']],
    security: PROJECT_ACCESS,
    handler: async ({ ctx, params, caller }) =>
      (await ctx.webhooks.retry((await findDelivery(ctx, params.id, caller)).id))!,
  }),
]
