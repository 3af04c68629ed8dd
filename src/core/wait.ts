import type { MessageFilter, MessageRecord } from '../store/types.js'
import type { AppContext } from './context.js'
import { rejectionHint } from './rejections.js'

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
  if (after !== undefined && (typeof after !== 'string' || !/^(?:now|\d{1,15})$/.test(after)))
    return Promise.reject(
      new TypeError(
        `waitForMessage: after must be "now" or a cursor (from sandbox.cursor()), got ${JSON.stringify(after)}.`,
      ),
    )
  // The moment the wait counts from is the call's: a cursor taken now. The log hands it out at
  // once; a database answers later, and what is heard till then is judged once it has (an older
  // message's state changing meanwhile is not a new message).
  const taken = after === 'now' ? ctx.log.cursor() : after
  let counted: MessageFilter = filter
  const countFrom = (from: string | undefined) => {
    counted = from === undefined ? filter : { ...filter, after: from }
  }
  if (typeof taken !== 'object') countFrom(taken)
  const began = new Date().toISOString()
  // What the wait really lasts, and so what its error reports: at most WAIT_MAX_MS.
  const waited = Math.min(Math.max(timeout, 0), WAIT_MAX_MS)
  const timedOut = async () => {
    const earlier = after === undefined ? 0 : (await ctx.log.list({ ...filter, limit: 1 })).total
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
    // Records heard while the cursor is on its way; null once it has come.
    let heard: MessageRecord[] | null = typeof taken === 'object' ? [] : null
    const consider = (record: MessageRecord) => {
      if (ctx.log.matches(record, counted)) finish(() => resolve(record))
    }
    cleanups.push(
      ctx.events.subscribe((event) => {
        // A message matches when it arrives, or later when its status changes (?status=bounced);
        // with `after`, only one stored after the cursor: an older one's delivery settling is not it.
        if (event.type !== 'message' && event.type !== 'status') return
        if (heard) heard.push(event.record)
        else consider(event.record)
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
    // Without `after`, the newest match already stored answers (docs/ci.md#waits-and-old-mail);
    // with it, the newest stored after the cursor (none, for `now`). Asked once subscribed: a
    // match stored while a database answers is heard, not missed.
    const lookUp = () =>
      Promise.resolve(ctx.log.latest(counted)).then(
        (existing) => existing && finish(() => resolve(existing)),
        fail,
      )
    if (typeof taken === 'object')
      taken.then((from) => {
        countFrom(from)
        const pending = heard ?? []
        heard = null
        for (const record of pending) consider(record)
        return lookUp()
      }, fail)
    else void lookUp()
  })
}
