import { H3, toNodeHandler } from 'h3'
import { errorAnswerOf, toErrorResponse } from '../http/errors.js'
import { createGuard, guardPolicy } from '../http/guard.js'
import { noteRequest, requestLogger } from '../http/request-log.js'
import type { AppContext } from '../http/context.js'
import { type NodeHandler, withReasonPhrases } from './reason.js'

/**
 * An h3 app with no route yet: the guard before every route (and before the 404 of no route),
 * the one error model, the per-request console line. The whole app (./app.ts) and the health
 * app a start answers with first (./health-app.ts) are each this, with their routes, so a
 * route answers the same from either.
 *
 * @example
 * const app = createAppShell(ctx)
 * registerOperations(app, ctx, [healthOperation])
 */
export function createAppShell(ctx: AppContext): H3 {
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
  return app
}

/**
 * An app as Node's request handler, every status line with its reason phrase: what the
 * listener hands each request once the app is loaded (./deferred-app.ts).
 *
 * @example
 * createServer(nodeHandlerOf(createApp(ctx))).listen(0)
 */
export function nodeHandlerOf(app: H3): NodeHandler {
  return withReasonPhrases(toNodeHandler(app))
}
