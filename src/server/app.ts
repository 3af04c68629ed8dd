import { H3, redirect } from 'h3'
import { errorAnswerOf, toErrorResponse } from '../http/errors.js'
import { noteRequest, requestLogger } from '../http/request-log.js'
import { registerApiRoutes } from '../api/index.js'
import { registerInspectorRoutes } from '../inspector/index.js'
import { registerInboxRoutes } from '../inbox/index.js'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'

/** Wires the emulated API, the inspector and the inbox page into one h3 app. */
export function createApp(ctx: AppContext): H3 {
  const app = new H3({
    // We report unexpected errors ourselves, once, through the logger.
    silent: true,
    // One console line per request, with logs on (the CLI); nothing at all on the hot path without.
    ...(ctx.config.logs ? { onRequest: requestLogger((line) => ctx.logger.info(line)) } : {}),
    onError: (error, event) => {
      noteRequest(event, { code: errorAnswerOf(error).code })
      return toErrorResponse(error, (cause) => ctx.logger.error('Unexpected error while handling a request', cause))
    },
  })
  route(app, '/', { GET: (event) => redirect('/_sandbox/', 302) })
  registerApiRoutes(app, ctx)
  registerInspectorRoutes(app, ctx)
  registerInboxRoutes(app)
  return app
}
