import { type H3, redirect } from 'h3'
import { registerApiRoutes } from '../api/index.js'
import { registerInspectorRoutes } from '../inspector/index.js'
import { registerInboxRoutes } from '../inbox/index.js'
import type { AppContext } from '../http/context.js'
import { route } from '../http/route.js'
import { openApiOperation } from './openapi.js'
import { createAppShell, nodeHandlerOf } from './app-shell.js'
import type { NodeHandler } from './reason.js'

/** Wires the emulated API, the inspector and the inbox page into one h3 app. */
export function createApp(ctx: AppContext): H3 {
  const app = createAppShell(ctx)
  route(app, '/', { GET: () => redirect('/_sandbox/', 302) })
  registerApiRoutes(app, ctx)
  registerInspectorRoutes(app, ctx, [openApiOperation])
  registerInboxRoutes(app)
  return app
}

/**
 * The app as Node's request handler, every status line with its reason phrase: what the
 * listener hands each request once the app is loaded (./deferred-app.ts).
 *
 * @example
 * createServer(createHandler(ctx)).listen(0)
 */
export function createHandler(ctx: AppContext): NodeHandler {
  return nodeHandlerOf(createApp(ctx))
}
