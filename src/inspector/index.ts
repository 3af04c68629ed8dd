import type { H3 } from 'h3'
import type { AppContext } from '../http/context.js'
import { registerOperations, type Operation } from '../http/define.js'
import { healthOperation } from './health.js'
import { eventOperation } from './events.js'
import { faultOperations } from './fault-routes.js'
import { messageOperations } from './messages.js'
import { rejectionOperations } from './rejections.js'
import { deliveryOperations } from './delivery-routes.js'
import { suppressionOperations } from './suppression-routes.js'
import { webhookOperations } from './webhook-routes.js'
import { templatePreviewOperations } from './templates.js'
import { snapshotOperations } from './snapshots.js'
import { spamOperations } from './spam-routes.js'
import { releaseOperations } from './release-routes.js'
import { sessionOperations } from './session.js'

/**
 * The inspector: sendbox's own API under /_sandbox/api, open on one machine; with projects, each
 * route reaches what its `security` says (src/http/viewer.ts).
 */
export const inspectorOperations: Operation[] = [
  healthOperation,
  ...sessionOperations,
  ...messageOperations,
  eventOperation,
  ...faultOperations,
  ...rejectionOperations,
  ...deliveryOperations,
  ...releaseOperations,
  ...spamOperations,
  ...webhookOperations,
  ...suppressionOperations,
  ...templatePreviewOperations,
  ...snapshotOperations,
]

export function registerInspectorRoutes(
  app: H3,
  ctx: AppContext,
  extra: readonly Operation[] = [],
): void {
  registerOperations(app, ctx, [...inspectorOperations, ...extra])
}
