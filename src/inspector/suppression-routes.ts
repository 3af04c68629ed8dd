import type { H3, H3Event } from 'h3'
import { getRouterParam } from 'h3'
import type { AppContext } from '../core/context.js'
import { listSuppressions, removeSuppressions } from '../core/suppressions.js'
import { apiError } from '../http/errors.js'
import { route } from '../http/route.js'
import type { SuppressionFilter } from '../store/types.js'

/** `?project=` narrows every suppression route to one project (token). */
function projectFilter(event: H3Event): SuppressionFilter {
  const project = event.url.searchParams.get('project')
  return project ? { project } : {}
}

function addressParam(event: H3Event): string {
  return (getRouterParam(event, 'address', { decode: true }) ?? '').trim().toLowerCase()
}

/** The suppression list (CONTRACT §7): list, and remove one address or all. */
export function registerSuppressionRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/suppressions', {
    GET: (event) => {
      const address = event.url.searchParams.get('address')
      const suppressions = listSuppressions(ctx, { ...projectFilter(event), ...(address ? { address } : {}) })
      return { suppressions, total: suppressions.length }
    },
    DELETE: async (event) => {
      await removeSuppressions(ctx, projectFilter(event))
      return new Response(null, { status: 204 })
    },
  })
  route(app, '/_sandbox/api/suppressions/:address', {
    GET: (event) => {
      const address = addressParam(event)
      const suppressions = listSuppressions(ctx, { ...projectFilter(event), address })
      if (!suppressions.length) throw notSuppressed(address)
      return { suppressions, total: suppressions.length }
    },
    DELETE: async (event) => {
      const address = addressParam(event)
      const removed = await removeSuppressions(ctx, { ...projectFilter(event), address })
      if (!removed.length) throw notSuppressed(address)
      return new Response(null, { status: 204 })
    },
  })
}

const notSuppressed = (address: string) =>
  apiError(404, 'suppression_not_found', `${JSON.stringify(address)} is not on the suppression list (of the project asked for). GET /_sandbox/api/suppressions lists the addresses that are.`)
