import type { H3 } from 'h3'
import type { AppContext } from '../http/context.js'
import { registerOperations, type Operation } from '../http/define.js'
import { sendOperation } from './messages.js'
import { refuseResolvedSlugs, templateOperations } from './templates.js'

/** The emulated service's operations: POST /messages, GET /templates[/:slug] (docs/api.md#the-api). */
export const apiOperations: Operation[] = [sendOperation, ...templateOperations]

/** Registers the emulated service. */
export function registerApiRoutes(app: H3, ctx: AppContext): void {
  let routes: ReturnType<typeof registerOperations> | undefined
  refuseResolvedSlugs(app, () => routes?.get('/templates/:slug')?.GET)
  // More than one segment (`a/b`) is an invalid slug, not an unknown route.
  routes = registerOperations(app, ctx, apiOperations, { '/templates/**': '/templates/:slug' })
}
