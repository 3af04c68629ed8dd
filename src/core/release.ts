import type { Address, MessageLog, MessageRecord, Release } from '../store/types.js'
import type { RelayConfig } from './settings.js'
import type { EventBus } from './events.js'
import type { Logger } from './logger.js'

/**
 * Release: a stored message sent on through `--relay` to addresses `--relay-allow` allows, only
 * when asked. The SMTP client is a `RelayTransport` handed in (src/server/relay.ts): no I/O here.
 */

/** What goes to the relay: the stored message as it is, to the given addresses. */
export interface RelayMail {
  from: Address
  to: string[]
  subject: string
  html: string
  text: string
  /** The sandbox's id of the message, carried in an `X-Sendbox-Message-Id` header. */
  id: string
}

/** What the relay said: the addresses it accepted and refused, and its last reply. */
export interface RelayResult {
  accepted: string[]
  rejected: string[]
  response: string
}

/** The SMTP client: resolves when the server took at least one recipient, else rejects with a `RelayFailure` (never holding the password). */
export interface RelayTransport {
  send(mail: RelayMail): Promise<RelayResult>
}

/** The relay refused the message, could not be reached, or did not answer in time. */
export class RelayFailure extends Error {
  override name = 'RelayFailure'
  constructor(
    message: string,
    /** The server's reply (`535 5.7.8 Authentication failed`), when it gave one. */
    readonly response: string | null,
  ) {
    super(message)
  }
}

/** No `--relay`, or no `--relay-allow`. */
export class RelayNotConfiguredError extends Error {
  override name = 'RelayNotConfiguredError'
}

/** Addresses no `--relay-allow` pattern allows: nothing was sent. */
export class RelayNotAllowedError extends Error {
  override name = 'RelayNotAllowedError'
  constructor(
    readonly addresses: string[],
    readonly patterns: string[],
  ) {
    super(
      `${addresses.map((a) => JSON.stringify(a)).join(', ')} ${addresses.length === 1 ? 'is' : 'are'} not allowed by --relay-allow (${patterns.join(', ')}); nothing was sent.`,
    )
  }
}

/**
 * The same address, or `*@domain` for that domain (not its subdomains), case-insensitively.
 *
 * @example
 * relayAllows(['*@acme.test'], 'Me@ACME.test') // true
 * relayAllows(['*@acme.test'], 'me@mail.acme.test') // false
 */
export function relayAllows(patterns: readonly string[], address: string): boolean {
  const lower = address.toLowerCase()
  const domain = lower.slice(lower.lastIndexOf('@') + 1)
  return patterns.some((pattern) => pattern === lower || pattern === `*@${domain}`)
}

/** What a release needs of the sandbox. */
export interface ReleaseDeps {
  log: Pick<MessageLog, 'addRelease'>
  events: EventBus
  logger: Pick<Logger, 'info'>
  relay: RelayConfig | null
  relayAllow: readonly string[]
  transport: RelayTransport | null
}

/**
 * Sends a stored message on to `to`, keeps the release on its record and emits it. Throws
 * `RelayNotConfiguredError`, `RelayNotAllowedError` (nothing sent) or `RelayFailure`.
 *
 * @example
 * const { result } = await releaseMessage(deps, record, ['me@acme.test'])
 * result.accepted // ['me@acme.test']
 */
export async function releaseMessage(
  deps: ReleaseDeps,
  record: MessageRecord,
  to: readonly string[],
): Promise<{ result: RelayResult; release: Release }> {
  if (!deps.relay || !deps.transport || deps.relayAllow.length === 0)
    throw new RelayNotConfiguredError(
      deps.relay
        ? 'No recipient is allowed: start sendbox with --relay-allow (an address or *@domain) beside --relay.'
        : 'No relay is configured: start sendbox with --relay smtp://user:password@host:port and --relay-allow (an address or *@domain).',
    )
  const addresses = [...new Set(to)]
  const refused = addresses.filter((address) => !relayAllows(deps.relayAllow, address))
  if (refused.length > 0) throw new RelayNotAllowedError(refused, [...deps.relayAllow])
  const { from, subject, html, text, id } = record
  const result = await deps.transport.send({ from, to: addresses, subject, html, text, id })
  const release: Release = {
    to: addresses,
    at: new Date().toISOString(),
    rejected: result.rejected,
    response: result.response,
  }
  deps.logger.info(
    `Released ${id} to ${result.accepted.join(', ')} through ${deps.relay.url}: ${result.response}`,
  )
  // A message deleted while it was sent: it went all the same, with nothing left to record it on.
  const next = await deps.log.addRelease(id, release)
  if (next) deps.events.emit({ type: 'release', record: next, release })
  return { result, release }
}
