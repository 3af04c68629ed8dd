import type { H3 } from 'h3'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'
import { sendMessage } from './messages.js'
import { registerTemplateRoutes } from './templates.js'

/** The emulated service: POST /messages, GET /templates[/:slug] (CONTRACT §1). */
export function registerApiRoutes(app: H3, ctx: AppContext): void {
  route(app, '/messages', { POST: (event) => sendMessage(event, ctx) })
  registerTemplateRoutes(app, ctx)
}
