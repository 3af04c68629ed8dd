import type { Fault, FaultInput } from '../core/faults.js'
import type { SimulatedEvent } from '../core/delivery.js'
import type { Rejection } from '../core/rejection-types.js'
import type { WaitOptions } from '../core/wait.js'
import type { WebhookDelivery, WebhookFilter } from '../core/webhook-types.js'
import type { MessageFilter, ReadRecord, Suppression, SuppressionFilter } from '../store/types.js'
import type { Inbox, InboxOptions } from './inbox.js'

/**
 * What a test uses of a sandbox, wherever it runs: started in this process (`startSendbox`, whose
 * `Sendbox` adds what only a sandbox of this process has) or reached over HTTP (`connectSendbox`).
 * The test-runner fixtures hand one over. Each method is declared here once, for both.
 */
export interface SendboxClient {
  /** API base URL, e.g. `http://127.0.0.1:5025`. */
  readonly url: string
  /** The inbox page. */
  readonly inboxUrl: string
  /**
   * A token the sandbox accepts: in this process one of its own; for a connected one the
   * `token` given to `connectSendbox`, else `SENDBOX_TOKEN`, else a `sandbox_` token.
   */
  readonly token: string
  /**
   * Stored messages, newest first (all of them unless `limit` is given), each with its `links`
   * and `codes`. The records are copies, yours to change: what the inspector and the inbox serve
   * stays as it was.
   *
   * @example
   * const [latest] = await sandbox.messages({ template: 'welcome', limit: 1 })
   */
  messages(filter?: MessageFilter): Promise<ReadRecord[]>
  /**
   * The newest message matching, waiting for one to arrive; with `after: 'now'`, only one stored
   * after this call (start it before the action). Rejects with `WaitTimeoutError` naming the
   * filter, earlier matches it left out and recent rejected sends that match, on timeout.
   *
   * @example
   * const reset = sandbox.waitForMessage({ to: 'ada@example.com', template: 'password-reset', after: 'now' })
   * await app.requestPasswordReset('ada@example.com')
   * const message = await reset
   */
  waitForMessage(filter?: WaitOptions): Promise<ReadRecord>
  /**
   * Where the sandbox's log stands, as the sandbox hands it out: a wait (or a list) with
   * `after: cursor` counts only messages stored since, whenever the wait itself is sent. In
   * this process `after: 'now'` is the same, read at the call.
   *
   * @example
   * const from = await sandbox.cursor()
   * await app.requestPasswordReset('ada@example.com')
   * const reset = await sandbox.waitForMessage({ to: 'ada@example.com', after: from })
   */
  cursor(): Promise<string>
  /**
   * Recent sends that were refused (the newest 100, in memory), newest first: status, error
   * code and message, and what was read of the request (template, recipients, subject). Never
   * the token or the body.
   *
   * @example
   * const [last] = await sandbox.rejections({ to: 'ada@example.com' })
   * last?.code // 'missing_variables'
   */
  rejections(filter?: MessageFilter): Promise<Rejection[]>
  /**
   * Clears the log, or only the messages matching the filter (a full clear also forgets the
   * recent rejected sends). A filter it cannot read (an unknown key, a `since` that is no time)
   * rejects with a `TypeError` and deletes nothing; so do `messages()`, `rejections()` and
   * `waitForMessage()` with one.
   *
   * @example
   * beforeEach(() => sandbox.clear())
   */
  clear(filter?: MessageFilter): Promise<void>
  /**
   * Arms a fault: the next `count` matching sends fail with `status`. Throws a `TypeError`
   * listing what is wrong with an invalid fault.
   *
   * @example
   * await sandbox.fail({ status: 503, count: 2, match: { template: 'welcome' } })
   */
  fail(fault: FaultInput): Promise<Fault>
  /**
   * Simulates engagement or an outcome for a recipient (the first when none is named): appends
   * the event, updates the states, fires its webhook. Resolves with the message after it.
   * Rejects with a `TypeError` for an invalid event, `MessageNotFoundError`,
   * `RecipientNotFoundError`, or `UrlNotInMessageError` (a click on a link the HTML lacks).
   *
   * @example
   * const message = await sandbox.simulate(sent.id, { type: 'clicked', url: 'https://acme.test/dashboard' })
   */
  simulate(id: string, event: SimulatedEvent): Promise<ReadRecord>
  /**
   * Webhook deliveries with their attempts, newest first.
   *
   * @example
   * const [delivery] = await sandbox.webhooks({ type: 'message.bounced' })
   * delivery.attempts[0].statusCode // 200
   */
  webhooks(filter?: WebhookFilter): Promise<WebhookDelivery[]>
  /**
   * The suppression list, newest first (all projects unless `project` is given).
   *
   * @example
   * expect(await sandbox.suppressions()).toContainEqual(expect.objectContaining({ address: 'ada+bounce@example.com' }))
   */
  suppressions(filter?: SuppressionFilter): Promise<Suppression[]>
  /**
   * Takes addresses off the suppression list: the matching ones, or all; resolves with those
   * removed. Clearing messages leaves the list alone.
   *
   * @example
   * beforeEach(() => sandbox.unsuppress())
   */
  unsuppress(filter?: SuppressionFilter): Promise<Suppression[]>
  /**
   * A fresh inbox (docs/testing.md#inboxes): a unique address (`inbox-<id>@example.com`, or
   * `options.address` with `{id}` where the unique part goes) and, scoped to it, `messages`,
   * `waitForMessage`, `waitForLink`, `waitForCode` and `clear`. Tests side by side each take one
   * and never see each other's mail.
   *
   * @example
   * const inbox = sandbox.inbox()
   * await app.requestPasswordReset(inbox.address)
   * const link = await inbox.waitForLink({ text: 'Reset' })
   */
  inbox(options?: InboxOptions): Inbox
  /**
   * Started in this process: stops the server, flushes the log and frees the port and the lock.
   * Connected: ends this client's pending requests and leaves the sandbox running. Idempotent.
   */
  close(): Promise<void>
}
