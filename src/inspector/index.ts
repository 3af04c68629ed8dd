import type { H3 } from 'h3'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'
import { registerEventRoutes } from './events.js'
import { registerFaultRoutes } from './fault-routes.js'
import { registerMessageRoutes } from './messages.js'
import { registerOpenApiRoute } from './openapi.js'
import { registerTemplatePreviewRoutes } from './templates.js'
import { registerDeliveryRoutes } from './delivery-routes.js'
import { registerWebhookRoutes } from './webhook-routes.js'
import { registerSuppressionRoutes } from './suppression-routes.js'

/** The inspector: sendbox's own API under /_sandbox/api, unauthenticated (CONTRACT §3). */
export function registerInspectorRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/health', {
    GET: () => ({
      status: 'ok',
      version: ctx.version,
      templates: ctx.catalog.count(),
      messages: ctx.log.count(),
      dropped: ctx.log.dropped(),
      // Open event streams and pending waits: a leak shows up here.
      subscribers: ctx.events.size(),
      // What a client needs to show a working example; never a token given with --token.
      auth: { tokenPrefixes: ctx.config.tokenPrefixes, exactTokens: ctx.config.tokens.length > 0 },
    }),
  })
  registerMessageRoutes(app, ctx)
  registerEventRoutes(app, ctx)
  registerFaultRoutes(app, ctx)
  registerTemplatePreviewRoutes(app, ctx)
  registerOpenApiRoute(app, ctx)
  registerDeliveryRoutes(app, ctx)
  registerWebhookRoutes(app, ctx)
  registerSuppressionRoutes(app, ctx)
}
