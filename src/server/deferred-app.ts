/**
 * The app, loaded once the port is open (with the templates, when `serve` compiles them then). h3, its routes and what h3's Node adapter (srvx) loads
 * as it is evaluated (Node's undici, behind the global `Request`, `Response` and `Headers`) took
 * ~45 ms of CPU of a ~230 ms start (`node --cpu-prof`, `serve --memory`) that no longer waits for
 * them. A request that arrives meanwhile waits for the app, then is answered by it.
 */
import type { ServerResponse } from 'node:http'
import type { AppContext } from '../http/context.js'
import { errorBody, JSON_CONTENT_TYPE } from '../http/error-body.js'
import type { Handler } from './connections.js'
import type { NodeHandler } from './reason.js'

export interface DeferredApp {
  /** The listener's handler: the app's own once loaded (templates too), until then a wait. */
  handler: Handler
  /** Loads the app (once); a failure is logged here, once, and each request answers 500. */
  load(): Promise<void>
}

/**
 * @example
 * const app = deferredApp(ctx, async () => {})
 * const listener = await listen(app.handler, options)
 * void app.load()
 */
export function deferredApp(ctx: AppContext, templates: () => Promise<void>): DeferredApp {
  let loaded: NodeHandler | undefined
  let loading: Promise<NodeHandler> | undefined
  const app = () =>
    (loading ??= Promise.all([import('./app.js'), templates()]).then(([{ createHandler }]) => {
      loaded = createHandler(ctx)
      return loaded
    }))
  return {
    handler(req, res) {
      if (loaded) return void loaded(req, res)
      app().then(
        (handle) => handle(req, res),
        () => unavailable(res),
      )
    },
    load: () =>
      app().then(
        () => undefined,
        (error: unknown) => ctx.logger.error('Could not load the HTTP app', error),
      ),
  }
}

/** The app could not be loaded (a broken install): the one error model, 500. */
function unavailable(res: ServerResponse): void {
  const body = JSON.stringify(
    errorBody('internal_error', 'sendbox hit an unexpected error; the details are in its console.'),
  )
  res.writeHead(500, { 'content-type': JSON_CONTENT_TYPE }).end(body)
}
