import { randomBytes } from 'node:crypto'
import { WAIT_DEFAULT_MS, WaitTimeoutError, type WaitOptions } from '../core/wait-types.js'
import type { MessageFilter, MessageLink, ReadRecord } from '../store/types.js'

/**
 * Inboxes (docs/testing.md#inboxes): an address of a test's own, and its mail. One implementation for a
 * sandbox in this process and one reached over HTTP, over the few operations both have.
 */

/** What an inbox needs of a sandbox: its messages, its wait, its clear. */
export interface MessageSource {
  messages(filter: MessageFilter): Promise<ReadRecord[]>
  /** A page of messages, and the log's cursor when it was read. */
  page(filter: MessageFilter): Promise<{ messages: ReadRecord[]; cursor: string }>
  waitForMessage(filter: WaitOptions): Promise<ReadRecord>
  clear(filter: MessageFilter): Promise<void>
  /**
   * What `after: 'now'` means at this instant, read synchronously: the log's cursor in this
   * process; over HTTP, the time on this machine's clock (a cursor would take a round trip,
   * which the action it comes before can overtake).
   */
  now(): Pick<MessageFilter, 'after' | 'since'>
}

export interface InboxOptions {
  /**
   * The address, with `{id}` where the unique part goes (`ada+{id}@acme.test`); default
   * `inbox-{id}@example.com`. One without `{id}` is used as it is.
   */
  address?: string
}

/** A message filter for an inbox: the address is the inbox's own. */
export type InboxFilter = Omit<WaitOptions, 'recipient' | 'to' | 'limit' | 'offset'>

/** A link wanted: `text` and `href` each a substring (case-insensitive) or a RegExp. */
export interface LinkFilter extends InboxFilter {
  text?: string | RegExp
  href?: string | RegExp
}

export interface Inbox {
  /** This inbox's address: send to it. */
  readonly address: string
  /** Its messages, newest first. */
  messages(filter?: Omit<MessageFilter, 'recipient' | 'to'>): Promise<ReadRecord[]>
  /** Its newest message matching, or the first to arrive; `WaitTimeoutError` naming the address. */
  waitForMessage(filter?: InboxFilter): Promise<ReadRecord>
  /**
   * The `href` of the first link whose text or href matches (any link without `text`/`href`),
   * in its newest message that has one, or in the first such to arrive.
   */
  waitForLink(filter?: LinkFilter): Promise<string>
  /** The first code of its newest message that has one, or of the first such to arrive. */
  waitForCode(filter?: InboxFilter): Promise<string>
  /** Deletes this inbox's mail only. */
  clear(): Promise<void>
}

/** `inbox-k3x9q2m7ab`: ten base-36 characters from 64 random bits. */
function uniqueId(): string {
  return randomBytes(8).readBigUInt64BE().toString(36).padStart(10, '0').slice(-10)
}

/** The address an inbox gets for `options`. */
export function inboxAddress(options: InboxOptions = {}): string {
  const pattern = options.address ?? 'inbox-{id}@example.com'
  if (typeof pattern !== 'string' || !/@/.test(pattern.replaceAll('{id}', 'x')))
    throw new TypeError(
      `sandbox.inbox(): address must be an e-mail address, with {id} where the unique part goes (e.g. "ada+{id}@acme.test"), not ${JSON.stringify(pattern)}.`,
    )
  return pattern.replaceAll('{id}', uniqueId())
}

const matches = (value: string, wanted: string | RegExp | undefined) =>
  wanted === undefined ||
  (typeof wanted === 'string'
    ? value.toLowerCase().includes(wanted.toLowerCase())
    : new RegExp(wanted.source, wanted.flags.replace(/[gy]/g, '')).test(value))

/** The first link of a record that `filter` wants. */
function findLink(record: ReadRecord, filter: LinkFilter): MessageLink | undefined {
  return record.links.find(
    (link) => matches(link.text ?? '', filter.text) && matches(link.href, filter.href),
  )
}

/** `a link (text Reset)`, `a link`: what a waitForLink wants, in words. */
const describeLinkFilter = ({ text, href }: LinkFilter) => {
  const parts = [
    text !== undefined ? `text ${String(text)}` : '',
    href !== undefined ? `href ${String(href)}` : '',
  ].filter(Boolean)
  return parts.length ? `a link (${parts.join(' and ')})` : 'a link'
}

/** An inbox's address and what it reads its mail from: what every helper below works on. */
interface Scope {
  readonly source: MessageSource
  readonly address: string
}

const scoped = <F extends object>(scope: Scope, filter: F) => ({
  ...filter,
  recipient: scope.address,
})

/** What arrived for the address, in a sentence for a timeout. */
async function arrived({ source, address }: Scope, wanted: string): Promise<string> {
  const all = await source.messages({ recipient: address, limit: 5 }).catch(() => [])
  if (all.length === 0) return `Nothing arrived for ${address}.`
  const shown = all.map((m) => `"${m.subject}" (${m.template}, ${m.createdAt})`).join(', ')
  return `${address} received ${all.length === 5 ? 'at least 5 messages' : `${all.length} message${all.length === 1 ? '' : 's'}`}${wanted ? `, none with ${wanted}` : ''}: ${shown}.`
}

/** A timeout that names the address and what did arrive (and the server's hints: rejected sends). */
async function timedOut(
  scope: Scope,
  filter: InboxFilter,
  error: WaitTimeoutError,
  wanted: string,
): Promise<WaitTimeoutError> {
  const { timeout = WAIT_DEFAULT_MS, after: _after, signal: _signal, ...rest } = filter
  // The messages that came matched the filter: the sentence says what they lacked.
  return new WaitTimeoutError(scoped(scope, rest), timeout, {
    ...error.context,
    ...(wanted ? { holding: wanted } : {}),
    hints: [await arrived(scope, wanted), ...(error.context.hints ?? [])],
  })
}

/** The inbox's own wait: a timeout names the address and what came. */
async function waitScoped(scope: Scope, filter: InboxFilter): Promise<ReadRecord> {
  try {
    return await scope.source.waitForMessage(scoped(scope, filter))
  } catch (error) {
    if (error instanceof WaitTimeoutError) throw await timedOut(scope, filter, error, '')
    throw error
  }
}

/**
 * The newest message (stored, or arriving before the timeout) that `pick` finds something in.
 * Between looks it waits for the next message to the address stored after the cursor the last
 * look was read at, so none arriving in between is missed, even in the same millisecond.
 */
async function waitFor<T>(
  scope: Scope,
  filter: InboxFilter,
  pick: (record: ReadRecord) => T | undefined,
  wanted: string,
): Promise<T> {
  const { timeout = WAIT_DEFAULT_MS, signal, after, ...rest } = filter
  const deadline = Date.now() + timeout
  // Read at the call, before the first await: the moment the wait counts from.
  let from: Pick<MessageFilter, 'after' | 'since'> =
    after === 'now' ? scope.source.now() : after !== undefined ? { after } : {}
  for (;;) {
    const page = await scope.source.page(scoped(scope, { ...rest, ...from, limit: 100 }))
    for (const record of page.messages) {
      const found = pick(record)
      if (found !== undefined) return found
    }
    // A `since` the moment was read as stays: the cursor only narrows it.
    from = { ...from, after: page.cursor }
    try {
      await scope.source.waitForMessage(
        scoped(scope, {
          ...rest,
          ...from,
          timeout: Math.max(0, deadline - Date.now()),
          ...(signal ? { signal } : {}),
        }),
      )
    } catch (error) {
      if (error instanceof WaitTimeoutError) throw await timedOut(scope, filter, error, wanted)
      throw error
    }
  }
}

/**
 * An inbox over a source.
 *
 * @example
 * const inbox = createInbox(source, { address: 'ada+{id}@acme.test' })
 * await signUp(inbox.address)
 * const link = await inbox.waitForLink({ text: /confirm/i })
 */
export function createInbox(source: MessageSource, options: InboxOptions = {}): Inbox {
  const scope: Scope = { source, address: inboxAddress(options) }
  return {
    address: scope.address,
    messages: (filter = {}) => source.messages(scoped(scope, filter)),
    waitForMessage: (filter = {}) => waitScoped(scope, filter),
    waitForLink(filter = {}) {
      const { text: _text, href: _href, ...rest } = filter
      const pick = (record: ReadRecord) => findLink(record, filter)?.href
      return waitFor(scope, rest, pick, describeLinkFilter(filter))
    },
    waitForCode: (filter = {}) => waitFor(scope, filter, (record) => record.codes[0], 'a code'),
    clear: () => source.clear({ recipient: scope.address }),
  }
}
