import type { SendboxConfig } from '../core/settings.js'
import type { EventBus } from '../core/events.js'
import type { MessageStore } from '../store/types.js'
import type { TemplateCatalog } from '../templates/types.js'
import type { TextParts } from '../templates/text-parts.js'
import type { FaultRegistry } from '../core/faults.js'
import type { RejectionLog } from '../core/rejections.js'
import type { DeliveryEngine } from '../core/delivery.js'
import type { WebhookDispatcher } from '../core/webhooks.js'
import type { Logger } from '../core/logger.js'
import type { PreviewStore } from '../core/previews.js'
import type { FrameBatches } from './frame-batch.js'
import type { MessageReader } from '../core/reading.js'
import type { SnapshotBook } from '../core/snapshots.js'
import type { RelayTransport } from '../core/release.js'
import type { SpamScores } from '../core/spam.js'

export type { Logger } from '../core/logger.js'

/**
 * Everything a route may use. Built once by `startSendbox`, passed down, never reached back up.
 * All of a sandbox's state lives here, none at a module's top level (test/module-state.test.ts):
 * two sandboxes in one process share nothing.
 */
export interface AppContext {
  config: SendboxConfig
  version: string
  catalog: TemplateCatalog
  /** The text parts of sends, on a worker thread while sends overlap. */
  texts: TextParts
  /** The messages and suppressions: the JSON Lines log or a database (the domain does not know which). */
  log: MessageStore
  events: EventBus
  faults: FaultRegistry
  /** Recent rejected sends (bounded, in memory). */
  rejections: RejectionLog
  /** Delivery states and simulated engagement (docs/delivery.md). */
  delivery: DeliveryEngine
  /** Signed webhook deliveries, their queues and history. */
  webhooks: WebhookDispatcher
  logger: Logger
  /** Live previews, the newest few, by id (POST /_sandbox/api/previews). */
  previews: PreviewStore
  /** The event streams' shared frame batches, one per kind (GET /_sandbox/api/events). */
  frames: FrameBatches
  /** Links and codes of records as they leave sendbox (docs/testing.md#what-a-record-carries), each computed once. */
  reader: MessageReader
  /** Every case's snapshot status, live, and accepting renders (docs/snapshots.md#while-you-edit-the-server). */
  snapshots: SnapshotBook
  /** The SMTP client of `--relay` (loaded at the first release), or null without one. */
  relay: RelayTransport | null
  /** Spam scores by `--spamassassin`'s spamd, each message's asked once and kept (in this process). */
  spam: SpamScores
  /**
   * The OpenAPI document last written, as text, and what it was written for (the templates'
   * version and the address): the same document is not written again until either changes.
   */
  openApi?: { key: string; text: string }
  /** Registers cleanup to run when the server closes (open SSE streams, pending waits). */
  onClose(fn: () => void): () => void
}
