import type { MessageFilter } from '../store/types.js'

/**
 * What a wait takes and how it fails: its options, limits and errors, apart from the wait itself
 * (wait.ts) so that the test kit and `sendbox mcp` read them without the domain's modules.
 */

export interface WaitOptions extends Omit<MessageFilter, 'after'> {
  /** Milliseconds to wait for a match (default 5000, max 60000). */
  timeout?: number
  /**
   * `'now'`: only a message stored after the call counts, never one already in the log (a
   * match from an earlier test cannot satisfy it, nor can its delivery settling later). Start
   * the wait before the action:
   * `const next = sandbox.waitForMessage({ to, after: 'now' }); await signUp(); await next`.
   * A cursor (`await sandbox.cursor()`, a list's `cursor`): only a message stored after it
   * counts, the newest such at once. Without it, the newest stored match answers at once.
   */
  after?: 'now' | (string & {})
  signal?: AbortSignal
}

export const WAIT_DEFAULT_MS = 5000
export const WAIT_MAX_MS = 60_000

/** The sandbox closed while a wait was pending; the inspector answers it 503 shutting_down. */
export class ShuttingDownError extends Error {
  override name = 'ShuttingDownError'
  constructor() {
    super('sendbox closed while this wait was pending; no message will arrive on it.')
  }
}

/** What a timed-out wait knows beyond its filter, to say why nothing came. */
export interface WaitTimeoutContext {
  /** Matches already in the log that the wait left out (`after: 'now'`). */
  earlier?: number
  /** Sentences about recent rejected sends that matched the filter. */
  hints?: string[]
  /**
   * What a match had to hold beyond the filter (an inbox's `a link (text Reset)`): messages
   * matching the filter may have come, without it.
   */
  holding?: string
}

/** No matching message arrived in time. `filter` says what was waited for. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError'
  constructor(
    readonly filter: MessageFilter,
    readonly timeout: number,
    readonly context: WaitTimeoutContext = {},
  ) {
    const shown = Object.keys(filter).length ? JSON.stringify(filter) : 'any message'
    const { earlier = 0, hints = [], holding } = context
    const parts = [
      `No message matching ${shown}${holding ? ` with ${holding}` : ''} arrived within ${timeout} ms.`,
    ]
    if (earlier > 0)
      parts.push(
        `${earlier === 1 ? '1 matching message was' : `${earlier} matching messages were`} already in the log before the wait began and did not count (after: now).`,
      )
    parts.push(...hints)
    super(parts.join(' '))
  }
}
