/**
 * The app, loaded once the port is open (with the templates, when `serve` compiles them then). h3, its routes and what h3's Node adapter (srvx) loads
 * as it is evaluated (Node's undici, behind the global `Request`, `Response` and `Headers`) took
 * ~45 ms of CPU of a ~230 ms start (`node --cpu-prof`, `serve --memory`) that no longer waits for
 * them. A request that arrives meanwhile waits for the app, then is answered by it.
 *
 * Health comes first: what a CI step's wait-on and the test kit poll. A small app of that route
 * alone (./health-app.ts) loads before the rest and answers it until the whole app is in; it
 * needs neither the templates (the catalog counts the files it listed until they are compiled)
 * nor Liquid, nor the other routes' modules and schemas, which took about as long again as h3.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AppContext } from '../http/context.js'
import { errorBody, JSON_CONTENT_TYPE } from '../http/error-body.js'
import { HEALTH_PATH } from '../inspector/health-path.js'
import type { Handler } from './connections.js'
import type { NodeHandler } from './reason.js'

export interface DeferredApp {
  /** The listener's handler: the app's own once loaded (templates too), until then a wait. */
  handler: Handler
  /** Loads the health app, then the whole app (once); a failure is logged here, once, and each request answers 500. */
  load(): Promise<void>
  /** Resolves once the health app is in (or could not be loaded): what loads after it waits for it. */
  healthFirst(): Promise<void>
}

export interface DeferredAppOptions {
  /**
   * What loads after the health app starts a turn of the event loop later (`serve`), so a health
   * request that came meanwhile is answered first: the CLI loads its CommonJS bundles
   * (bin/sendbox.js), where an `import()` is a `require` run at once. Without this turn its CPU
   * until the first health answer was 1.26x and until the first send 1.20x (11 rounds), even
   * with each bundle's load a turn later (src/lib/code-cache.ts). The library's ES modules read
   * their files before they run: it needs no such turn, and takes none.
   */
  turnAfterHealth?: boolean
}

/**
 * @example
 * const app = deferredApp(ctx, async () => {})
 * const listener = await listen(app.handler, options)
 * void app.load()
 */
export function deferredApp(
  ctx: AppContext,
  templates: () => Promise<void>,
  { turnAfterHealth = false }: DeferredAppOptions = {},
): DeferredApp {
  let loaded: NodeHandler | undefined
  let health: NodeHandler | undefined
  let loadingHealth: Promise<NodeHandler> | undefined
  let loading: Promise<NodeHandler> | undefined
  // Once the whole app could not be loaded, health says so too (500), as every route does.
  let broken = false
  const healthApp = () =>
    (loadingHealth ??= import('./health-app.js').then(({ createHealthHandler }) => {
      health = createHealthHandler(ctx)
      return health
    }))
  const healthFirst = () =>
    healthApp()
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => (turnAfterHealth ? new Promise<void>((done) => setImmediate(done)) : undefined))
  const app = () =>
    (loading ??= healthFirst()
      .then(() => Promise.all([import('./app.js'), templates()]))
      .then(([{ createHandler }]) => {
        loaded = createHandler(ctx)
        return loaded
      })
      .catch((error: unknown) => {
        broken = true
        throw error
      }))
  const answer = (app: () => Promise<NodeHandler>, req: IncomingMessage, res: ServerResponse) =>
    void app().then(
      (handle) => handle(req, res),
      () => unavailable(res),
    )
  return {
    handler(req, res) {
      if (loaded) return void loaded(req, res)
      if (broken || !isHealth(req)) return answer(app, req, res)
      if (health) return void health(req, res)
      // Should the health app not load, the whole app answers it, as before there was one.
      answer(() => healthApp().catch(app), req, res)
    },
    load: () =>
      app().then(
        () => undefined,
        (error: unknown) => ctx.logger.error('Could not load the HTTP app', error),
      ),
    healthFirst,
  }
}

/** A request for the health route: its path exactly, any method or query (the route answers those). */
function isHealth(req: IncomingMessage): boolean {
  const url = req.url ?? ''
  return (
    url.startsWith(HEALTH_PATH) &&
    (url.length === HEALTH_PATH.length || url[HEALTH_PATH.length] === '?')
  )
}

/** The app could not be loaded (a broken install): the one error model, 500. */
function unavailable(res: ServerResponse): void {
  const body = JSON.stringify(
    errorBody('internal_error', 'sendbox hit an unexpected error; the details are in its console.'),
  )
  res.writeHead(500, { 'content-type': JSON_CONTENT_TYPE }).end(body)
}
