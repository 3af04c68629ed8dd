import type { H3 } from 'h3'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'
import { LIST_DEFAULT_LIMIT, parseFilter } from './query.js'

/**
 * GET /_sandbox/api/rejections: the recent rejected sends (the newest 100), newest first, with
 * the message filters (`to`, `from`, `template`, `subject`, `project`, `since`, `limit`,
 * `offset`). DELETE clears them.
 */
export function registerRejectionRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/rejections', {
    GET: (event) => {
      const { limit = LIST_DEFAULT_LIMIT, offset = 0, ...filter } = parseFilter(event, { paging: true })
      const all = ctx.rejections.list(filter)
      return { rejections: all.slice(offset, offset + limit), total: all.length }
    },
    DELETE: () => {
      ctx.rejections.clear()
      return new Response(null, { status: 204 })
    },
  })
}
