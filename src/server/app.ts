import { H3, redirect, toNodeHandler } from 'h3'
import { errorAnswerOf, toErrorResponse } from '../http/errors.js'
import { createGuard, guardPolicy } from '../http/guard.js'
import { noteRequest, requestLogger } from '../http/request-log.js'
import { registerApiRoutes } from '../api/index.js'
import { registerInspectorRoutes } from '../inspector/index.js'
import { registerInboxRoutes } from '../inbox/index.js'
import type { AppContext } from '../http/context.js'
import { route } from '../http/route.js'
import { openApiOperation } from './openapi.js'
import { type NodeHandler, withReasonPhrases } from './reason.js'

/** Wires the emulated API, the inspector and the inbox page into one h3 app. */
export function createApp(ctx: AppContext): H3 {
  const guard = createGuard(guardPolicy(ctx.config))
  const app = new H3({
    // We report unexpected errors ourselves, once, through the logger.
    silent: true,
    // One console line per request, with logs on (the CLI); nothing at all on the hot path without.
    ...(ctx.config.logs ? { onRequest: requestLogger((line) => ctx.logger.info(line)) } : {}),
    onError: (error, event) => {
      noteRequest(event, { code: errorAnswerOf(error).code })
      const response = toErrorResponse(error, (cause) =>
        ctx.logger.error('Unexpected error while handling a request', cause),
      )
      // h3 does not merge the headers a middleware set into an error answer: a --cors origin must still read it.
      for (const [name, value] of Object.entries(guard.headersFor(event)))
        response.headers.set(name, value)
      return response
    },
  })
  // Host, cross-site and password checks, before every route (and before the 404 of no route).
  app.use((event) => guard.check(event))
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
  return withReasonPhrases(toNodeHandler(createApp(ctx)))
}
