import type { SendboxConfig } from './config.js'
import type { EventBus } from './events.js'
import type { MessageLog } from '../store/types.js'
import type { TemplateCatalog } from '../templates/types.js'
import type { FaultRegistry } from './faults.js'
import type { RejectionLog } from './rejections.js'
import type { DeliveryEngine } from './delivery.js'
import type { WebhookDispatcher } from './webhooks.js'
import type { Logger } from './logger.js'
import type { MessageReader } from './reading.js'

export type { Logger } from './logger.js'

/** Everything a route may use. Built once by `startSendbox`, passed down, never reached back up. */
export interface AppContext {
  config: SendboxConfig
  version: string
  catalog: TemplateCatalog
  log: MessageLog
  events: EventBus
  faults: FaultRegistry
  /** Recent rejected sends (bounded, in memory). */
  rejections: RejectionLog
  /** Delivery states and simulated engagement (CONTRACT §7). */
  delivery: DeliveryEngine
  /** Signed webhook deliveries, their queues and history. */
  webhooks: WebhookDispatcher
  logger: Logger
  /** Links and codes of records as they leave sendbox (CONTRACT §9), each computed once. */
  reader: MessageReader
  /** Registers cleanup to run when the server closes (open SSE streams, pending waits). */
  onClose(fn: () => void): () => void
}
