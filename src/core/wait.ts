import { matchesFilter } from '../store/index.js'
import type { MessageFilter, MessageRecord } from '../store/types.js'
import type { AppContext } from './context.js'
import { rejectionHint } from './rejections.js'

export interface WaitOptions extends MessageFilter {
  /** Milliseconds to wait for a match (default 5000, max 60000). */
  timeout?: number
  /**
   * `'now'`: only a message stored after the wait began counts, never one already in the log (a
   * match from an earlier test cannot satisfy it). Start the wait before the action:
   * `const next = sandbox.waitForMessage({ to, after: 'now' }); await signUp(); await next`.
   * Without it, the newest stored match answers at once.
   */
  after?: 'now'
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
    const parts = [`No message matching ${shown} arrived within ${timeout} ms.`]
    const { earlier = 0, hints = [] } = context
    if (earlier > 0)
      parts.push(
        `${earlier === 1 ? '1 matching message was' : `${earlier} matching messages were`} already in the log before the wait began and did not count (after: now).`,
      )
    parts.push(...hints)
    super(parts.join(' '))
  }
}

/**
 * The newest message matching `filter`, or the first one to arrive before `timeout`.
 * Shared by GET /_sandbox/api/messages/wait and `sandbox.waitForMessage`.
 */
export function waitForMessage(
  ctx: Pick<AppContext, 'log' | 'events' | 'onClose' | 'rejections'>,
  options: WaitOptions,
): Promise<MessageRecord> {
  const {
    timeout = WAIT_DEFAULT_MS,
    signal,
    after,
    limit: _limit,
    offset: _offset,
    ...filter
  } = options
  if (after !== undefined && after !== 'now')
    return Promise.reject(
      new TypeError(`waitForMessage: after must be "now", got ${JSON.stringify(after)}.`),
    )
  const began = new Date().toISOString()
  // What the wait really lasts, and so what its error reports: at most WAIT_MAX_MS.
  const waited = Math.min(Math.max(timeout, 0), WAIT_MAX_MS)
  const timedOut = async () => {
    const earlier = after === 'now' ? (await ctx.log.list({ ...filter, limit: 1 })).total : 0
    // Rejected sends that may be the one waited for; with after=now, only those since it began.
    const laterSince = filter.since !== undefined && Date.parse(filter.since) > Date.parse(began)
    const hints = rejectionHint(
      ctx,
      after === 'now' && !laterSince ? { ...filter, since: began } : filter,
    )
    return new WaitTimeoutError(filter, waited, { earlier, hints })
  }
  return new Promise((resolve, reject) => {
    const cleanups: Array<() => void> = []
    let done = false
    const finish = (settle: () => void) => {
      if (done) return
      done = true
      for (const cleanup of cleanups) cleanup()
      settle()
    }
    const fail = (error: unknown) => finish(() => reject(error))
    cleanups.push(
      ctx.events.subscribe((event) => {
        // A message matches when it arrives, or later when its status changes (?status=bounced).
        if (
          (event.type === 'message' || event.type === 'status') &&
          matchesFilter(event.record, filter)
        )
          finish(() => resolve(event.record))
      }),
    )
    const timer = setTimeout(() => timedOut().then(fail, fail), waited)
    cleanups.push(() => clearTimeout(timer))
    // An HTTP wait pending at shutdown gets a clean 503, not a 500.
    cleanups.push(ctx.onClose(() => finish(() => reject(new ShuttingDownError()))))
    if (signal) {
      const onAbort = () =>
        finish(() => reject(signal.reason ?? new Error('The wait was aborted.')))
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      cleanups.push(() => signal.removeEventListener('abort', onAbort))
    }
    // Without `after`, the newest match already stored answers (CONTRACT §3); with it, only new
    // ones. Asked once subscribed: a match stored while a database answers is heard, not missed.
    if (after !== 'now')
      Promise.resolve(ctx.log.latest(filter)).then(
        (existing) => existing && finish(() => resolve(existing)),
        fail,
      )
  })
}
