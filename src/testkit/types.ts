import type { Fault, FaultInput } from '../core/faults.js'
import type { SimulatedEvent } from '../core/delivery.js'
import type { Rejection } from '../core/rejection-types.js'
import type { WaitOptions } from '../core/wait.js'
import type { WebhookDelivery, WebhookFilter } from '../core/webhook-types.js'
import type { MessageFilter, ReadRecord, Suppression, SuppressionFilter } from '../store/types.js'
import type { Inbox, InboxOptions } from './inbox.js'

/**
 * What a test uses of a sandbox, wherever it runs: started in this process (`startSendbox`) or
 * reached over HTTP (`connectSendbox`). The test-runner fixtures hand one over.
 */
export interface SendboxClient {
  /** API base URL, e.g. `http://127.0.0.1:5025`. */
  readonly url: string
  /** The inbox page. */
  readonly inboxUrl: string
  /** A token the sandbox accepts (for a connected one: `SENDBOX_TOKEN`, else a `sandbox_` token). */
  readonly token: string
  /** Stored messages, newest first, each with its `links` and `codes`. */
  messages(filter?: MessageFilter): Promise<ReadRecord[]>
  /** The newest message matching, or the first to arrive before `timeout`; `WaitTimeoutError` else. */
  waitForMessage(filter?: WaitOptions): Promise<ReadRecord>
  /**
   * Where the sandbox's log stands, as the sandbox hands it out: a wait (or a list) with
   * `after: cursor` counts only messages stored since, whenever the wait itself is sent.
   *
   * @example
   * const from = await sandbox.cursor()
   * await app.requestPasswordReset('ada@example.com')
   * const reset = await sandbox.waitForMessage({ to: 'ada@example.com', after: from })
   */
  cursor(): Promise<string>
  /** Recent refused sends, newest first. */
  rejections(filter?: MessageFilter): Promise<Rejection[]>
  /** Clears the log, or only the messages matching the filter. */
  clear(filter?: MessageFilter): Promise<void>
  /** Arms a fault: the next `count` matching sends fail with `status`. */
  fail(fault: FaultInput): Promise<Fault>
  /** Simulates engagement or an outcome for a recipient; resolves with the message after it. */
  simulate(id: string, event: SimulatedEvent): Promise<ReadRecord>
  /** Webhook deliveries with their attempts, newest first. */
  webhooks(filter?: WebhookFilter): Promise<WebhookDelivery[]>
  /** The suppression list, newest first. */
  suppressions(filter?: SuppressionFilter): Promise<Suppression[]>
  /** Takes addresses off the suppression list; resolves with those removed. */
  unsuppress(filter?: SuppressionFilter): Promise<Suppression[]>
  /**
   * A fresh inbox: a unique address (`inbox-<id>@example.com`, or `options.address` with `{id}`)
   * and its mail only (docs/testing.md).
   *
   * @example
   * const inbox = sandbox.inbox()
   * await signUp(inbox.address)
   * const link = await inbox.waitForLink({ text: 'Confirm' })
   */
  inbox(options?: InboxOptions): Inbox
  close(): Promise<void>
}
