/**
 * sendbox's public surface: everything a test suite imports, in one place.
 *
 * @example
 * import { startSendbox } from 'sendbox'
 *
 * const sandbox = await startSendbox({ port: 0, memory: true })
 * await fetch(`${sandbox.url}/messages`, {
 *   method: 'POST',
 *   headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
 *   body: JSON.stringify({ template: 'welcome', from: 'Acme <hello@acme.test>', to: 'ada@example.com', subject: 'Welcome', templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/app' } }),
 * })
 * const message = await sandbox.waitForMessage({ to: 'ada@example.com' })
 * await sandbox.close()
 */
import { SAMPLE_TOKEN, type SendboxConfig, type SendboxOptions } from './config.js'
import { parseFaultInput } from './core/faults.js'
import { clearMessages } from './core/messages.js'
import { parseMessageFilter } from './core/filter-input.js'
import { copyJson } from './lib/json.js'
import { parseSimulatedEvent } from './core/delivery.js'
import { listSuppressions, removeSuppressions } from './core/suppressions.js'
import { WAIT_MAX_MS, waitForMessage } from './core/wait.js'
import type { AppContext } from './http/context.js'
import { type StartDefaults, startServer } from './server/index.js'
import { createInbox } from './testkit/inbox.js'
// The record as sendbox hands it out: the stored one with its `links` and `codes` (docs/testing.md#what-a-record-carries).
import type { ReadRecord as MessageRecord } from './store/types.js'

export { ConfigError, type SendboxOptions, type SendboxConfig } from './config.js'
export { StartError } from './server/index.js'
export { WaitTimeoutError, ShuttingDownError, type WaitOptions } from './core/wait.js'
export type { Fault, FaultInput, FaultMatch, FaultStatus } from './core/faults.js'
export type { MessageRecord }
export type {
  MessageLink,
  MessageReading,
  MessageFilter,
  Address,
  Warning,
  MessageStatus,
  Recipient,
  RecipientStatus,
  RecipientEvent,
  RecipientEventType,
  Suppression,
  SuppressionFilter,
} from './store/types.js'
export {
  MessageNotFoundError,
  RecipientNotFoundError,
  UrlNotInMessageError,
  type SimulatedEvent,
  type SimulatedEventType,
} from './core/delivery.js'
export type {
  WebhookDelivery,
  WebhookAttempt,
  WebhookDeliveryStatus,
  WebhookFilter,
} from './core/webhooks.js'
export type {
  WebhookEvent,
  WebhookEventType,
  MessageEventData,
  MessageSentEvent,
  MessageDeliveredEvent,
  MessageDeferredEvent,
  MessageBouncedEvent,
  MessageComplainedEvent,
  MessageSuppressedEvent,
  MessageOpenedEvent,
  MessageClickedEvent,
} from './core/webhook-events.js'
export type { Rejection } from './core/rejections.js'
export {
  connectSendbox,
  DEFAULT_SENDBOX_URL,
  SendboxUnreachableError,
  SendboxRequestError,
  type ConnectOptions,
} from './testkit/connect.js'
import type { SendboxClient } from './testkit/types.js'
export type { SendboxClient }
export type { Inbox, InboxOptions, InboxFilter, LinkFilter } from './testkit/inbox.js'

/**
 * A running sandbox, as `startSendbox` hands it to a test suite (or the CLI): the test kit's
 * `SendboxClient` (its methods are declared there, once), and what only a sandbox of this process
 * has: its port, configuration, webhook secret and local CA.
 */
export interface Sendbox extends SendboxClient {
  readonly port: number
  readonly config: SendboxConfig
  /** The `whsec_…` secret webhooks are signed with: the `webhookSecret` option, or one generated at start. */
  readonly webhookSecret: string
  /**
   * With `https`: the local CA's certificate (PEM) that clients trust, e.g.
   * `https.request(url, { ca: sandbox.ca })`. Null without `https`, and with your own
   * certificate (`httpsCert`).
   *
   * @example
   * const sandbox = await startSendbox({ port: 0, memory: true, https: true })
   * const agent = new https.Agent({ ca: sandbox.ca })
   */
  readonly ca: string | null
  /** The file `ca` is in (for NODE_EXTRA_CA_CERTS, SSL_CERT_FILE, REQUESTS_CA_BUNDLE); null when `ca` is. */
  readonly caFile: string | null
}

/**
 * Starts a sandbox in this process: loads the templates, opens the log, listens. Resolves once
 * the server answers requests. Options mirror the command-line flags, camelCased; unlike the
 * CLI it neither opens a browser nor prints unless asked (`open`, `logs`).
 *
 * @example
 * const sandbox = await startSendbox({ port: 0, templates: './templates', memory: true })
 * sandbox.url   // 'http://127.0.0.1:54321'
 * sandbox.token // a token it accepts
 */
export async function startSendbox(
  options: SendboxOptions = {},
  defaults?: StartDefaults,
): Promise<Sendbox> {
  const server = await startServer(options, defaults)
  const { ctx } = server
  const sandbox: Sendbox = {
    url: server.url,
    inboxUrl: `${server.url}/_sandbox/`,
    port: server.port,
    token: ctx.config.projects?.sampleToken ?? ctx.config.tokens[0] ?? SAMPLE_TOKEN,
    config: ctx.config,
    webhookSecret: ctx.config.webhookSecret,
    ca: server.tls?.ca ?? null,
    caFile: server.tls?.caFile ?? null,
    ...messageMethods(ctx),
    ...deliveryMethods(ctx),
    inbox: (inboxOptions) => createInbox({ ...sandbox, ...inboxSource(ctx) }, inboxOptions),
    close: server.close,
  }
  return sandbox
}

/** Reading, waiting for and clearing messages, in this process. */
function messageMethods(
  ctx: AppContext,
): Pick<Sendbox, 'messages' | 'waitForMessage' | 'cursor' | 'rejections' | 'clear'> {
  return {
    // Records are copies (strings shared): the store's caches assume its own never change.
    messages: async (filter) =>
      (await ctx.log.list(parseMessageFilter(filter, 'sandbox.messages()'))).messages.map(
        (record) => ctx.reader.read(copyJson(record)),
      ),
    waitForMessage: async (options = {}) => {
      const { timeout, after: _after, signal: _signal, ...filter } = options
      parseMessageFilter(filter, 'sandbox.waitForMessage()')
      if (timeout !== undefined && !(typeof timeout === 'number' && timeout >= 0))
        throw new TypeError(
          `sandbox.waitForMessage(): timeout must be a number of milliseconds (0 or more, at most ${WAIT_MAX_MS} are waited); got ${JSON.stringify(timeout) ?? String(timeout)}.`,
        )
      return ctx.reader.read(copyJson(await waitForMessage(ctx, options)))
    },
    cursor: async () => ctx.log.cursor(),
    rejections: async (filter) =>
      ctx.rejections.list(parseMessageFilter(filter, 'sandbox.rejections()')),
    clear: async (filter) => {
      await clearMessages(ctx, parseMessageFilter(filter, 'sandbox.clear()'))
    },
  }
}

/** Faults, simulated delivery events, webhooks and suppressions, in this process. */
function deliveryMethods(
  ctx: AppContext,
): Pick<Sendbox, 'fail' | 'simulate' | 'webhooks' | 'suppressions' | 'unsuppress'> {
  return {
    fail: async (fault) => {
      const parsed = parseFaultInput(fault)
      if (!parsed.ok)
        throw new TypeError(
          `sandbox.fail(): the fault is not valid: ${parsed.problems.map((p) => p.message).join(' ')}`,
        )
      return ctx.faults.arm(parsed.value)
    },
    simulate: async (id, event) => {
      const parsed = parseSimulatedEvent(event)
      if (!parsed.ok)
        throw new TypeError(
          `sandbox.simulate(): the event is not valid: ${parsed.problems.map((p) => p.message).join(' ')}`,
        )
      return ctx.reader.read(copyJson(await ctx.delivery.simulate(id, parsed.value)))
    },
    // Copies: a delivery still pending goes on changing inside sendbox.
    webhooks: async (filter = {}) => copyJson((await ctx.webhooks.list(filter)).deliveries),
    suppressions: async (filter = {}) => listSuppressions(ctx, filter),
    unsuppress: (filter = {}) => removeSuppressions(ctx, filter),
  }
}

/** What an inbox of this process reads: pages of the log, and the moment a wait counts from. */
function inboxSource(ctx: AppContext) {
  return {
    page: async (filter: Parameters<typeof parseMessageFilter>[0]) => {
      const page = await ctx.log.list(parseMessageFilter(filter, 'inbox'))
      const messages = page.messages.map((record) => ctx.reader.read(copyJson(record)))
      return { messages, cursor: page.cursor }
    },
    // In this process the log's cursor is read synchronously: exactly the call's moment. A
    // database answers later: then the call's time on this clock, as connectSendbox does.
    now: () => {
      const cursor = ctx.log.cursor()
      if (typeof cursor === 'string') return { after: cursor }
      cursor.catch(() => undefined)
      return { since: new Date().toISOString() }
    },
  }
}
