import type { AppContext } from '../http/context.js'
import { registerOperations } from '../http/define.js'
import { healthOperation } from '../inspector/health.js'
import { createAppShell, nodeHandlerOf } from './app-shell.js'
import type { NodeHandler } from './reason.js'

/**
 * The health route alone, on the same shell as the whole app (guard, errors, console line), so
 * it answers exactly as the whole app would: what a start answers health with while the whole
 * app and the templates load (./deferred-app.ts). A CI step's wait-on, and a load balancer, poll
 * health; they need neither Liquid nor the other routes' modules and schemas.
 *
 * @example
 * createServer(createHealthHandler(ctx)).listen(0)
 */
export function createHealthHandler(ctx: AppContext): NodeHandler {
  const app = createAppShell(ctx)
  registerOperations(app, ctx, [healthOperation])
  return nodeHandlerOf(app)
}
