import type { MessageFilter, MessageRecord, MessageStore } from '../store/types.js'
import type { EventBus } from './events.js'
import { type RejectionLog, rejectionHint } from './rejections.js'
import {
  ShuttingDownError,
  WAIT_DEFAULT_MS,
  WAIT_MAX_MS,
  WaitTimeoutError,
  type WaitOptions,
} from './wait-types.js'

/** What a wait needs of a sandbox: its store and events, its rejections (for the timeout's hint), and its close. */
export interface WaitContext {
  log: MessageStore
  events: EventBus
  rejections: RejectionLog
  /** Registers cleanup to run when the server closes; returns its removal. */
  onClose(fn: () => void): () => void
}

export {
  ShuttingDownError,
  WAIT_DEFAULT_MS,
  WAIT_MAX_MS,
  WaitTimeoutError,
  type WaitOptions,
  type WaitTimeoutContext,
} from './wait-types.js'

/** A wait under way: it settles once, and then runs every cleanup registered on it. */
interface PendingWait {
  resolve(record: MessageRecord): void
  reject(error: unknown): void
  onSettle(cleanup: () => void): void
}

/**
 * @example const pending = pendingWait(resolve, reject); pending.onSettle(() => clearTimeout(timer))
 */
function pendingWait(
  resolve: (record: MessageRecord) => void,
  reject: (error: unknown) => void,
): PendingWait {
  const cleanups: Array<() => void> = []
  let done = false
  const finish = (settle: () => void) => {
    if (done) return
    done = true
    for (const cleanup of cleanups) cleanup()
    settle()
  }
  return {
    resolve: (record) => finish(() => resolve(record)),
    reject: (error) => finish(() => reject(error)),
    onSettle: (cleanup) => void cleanups.push(cleanup),
  }
}

/**
 * The error a wait that saw nothing ends with: how many matches it left out (with `after`) and
 * the recent rejected sends that may be the one waited for (with after=now, only those since it
 * began).
 */
async function timeoutError(
  ctx: WaitContext,
  filter: MessageFilter,
  after: string | undefined,
  began: string,
  waited: number,
): Promise<WaitTimeoutError> {
  const earlier = after === undefined ? 0 : (await ctx.log.list({ ...filter, limit: 1 })).total
  const laterSince = filter.since !== undefined && Date.parse(filter.since) > Date.parse(began)
  // Rejected sends that may be the one waited for; with after=now, only those since it began.
  const hints = await rejectionHint(
    ctx,
    after === 'now' && !laterSince ? { ...filter, since: began } : filter,
  )
  return new WaitTimeoutError(filter, waited, { earlier, hints })
}

/**
 * Ends `pending` on what stops a wait besides a match: its timeout, the sandbox closing (an HTTP
 * wait pending at shutdown gets a clean 503, not a 500) and the caller's signal. False when the
 * signal had already aborted it.
 */
function endWaitOn(
  ctx: WaitContext,
  pending: PendingWait,
  waited: number,
  timedOut: () => Promise<WaitTimeoutError>,
  signal: AbortSignal | undefined,
): boolean {
  const timer = setTimeout(() => timedOut().then(pending.reject, pending.reject), waited)
  pending.onSettle(() => clearTimeout(timer))
  pending.onSettle(ctx.onClose(() => pending.reject(new ShuttingDownError())))
  if (!signal) return true
  const onAbort = () => pending.reject(signal.reason ?? new Error('The wait was aborted.'))
  if (signal.aborted) {
    onAbort()
    return false
  }
  signal.addEventListener('abort', onAbort, { once: true })
  pending.onSettle(() => signal.removeEventListener('abort', onAbort))
  return true
}

/**
 * What a wait counts: `filter`, from the moment `taken` says (a cursor now, or one on its way
 * from a database). What is heard before a cursor on its way has come is held, and judged once it
 * has: an older message's state changing meanwhile is not a new message. With a cursor on its
 * way, a message heard stored is new whatever the cursor says, before it has come or after:
 * heard after the call, it was stored after it (or announced after it, a send under way at the
 * call), and a database may answer the cursor after storing it (a send on another of its
 * connections, under load: the cursor then counted the message as older, and the wait timed out).
 */
function countingFrom(
  ctx: WaitContext,
  filter: MessageFilter,
  taken: string | undefined | Promise<string>,
  onMatch: (record: MessageRecord) => void,
) {
  let counted: MessageFilter = filter
  const late = typeof taken === 'object'
  // Changes of state heard while the cursor is on its way; null once it has come.
  let heard: MessageRecord[] | null = late ? [] : null
  const countFrom = (from: string | undefined) => {
    counted = from === undefined ? filter : { ...filter, after: from }
  }
  const consider = (record: MessageRecord) => {
    if (ctx.log.matches(record, counted)) onMatch(record)
  }
  if (typeof taken !== 'object') countFrom(taken)
  return {
    filter: () => counted,
    /** An event's record: `stored`, a message just stored; else a change of its state. */
    hear(record: MessageRecord, stored: boolean) {
      if (stored && late) {
        if (ctx.log.matches(record, filter)) onMatch(record)
      } else if (heard) heard.push(record)
      else consider(record)
    },
    /** The cursor has come: the changes of state heard meanwhile are judged by it. */
    arrived(from: string) {
      countFrom(from)
      const early = heard ?? []
      heard = null
      for (const record of early) consider(record)
    },
  }
}

/**
 * The newest message matching `filter`, or the first one to arrive before `timeout`.
 * Shared by GET /_sandbox/api/messages/wait and `sandbox.waitForMessage`.
 *
 * @example const record = await waitForMessage(ctx, { to: 'ada@example.com', timeout: 2000 })
 */
export function waitForMessage(ctx: WaitContext, options: WaitOptions): Promise<MessageRecord> {
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
  // once; a database answers later (see countingFrom).
  const taken = after === 'now' ? ctx.log.cursor() : after
  const began = new Date().toISOString()
  // What the wait really lasts, and so what its error reports: at most WAIT_MAX_MS.
  const waited = Math.min(Math.max(timeout, 0), WAIT_MAX_MS)
  return new Promise((resolve, reject) => {
    const pending = pendingWait(resolve, reject)
    const counting = countingFrom(ctx, filter, taken, pending.resolve)
    pending.onSettle(
      ctx.events.subscribe((event) => {
        // A message matches when it arrives, or later when its status changes (?status=bounced);
        // with `after`, only one stored after the cursor: an older one's delivery settling is not it.
        if (event.type === 'message' || event.type === 'status')
          counting.hear(event.record, event.type === 'message')
      }),
    )
    // The timeout ends the wait only once the look-up below has answered: a match already
    // stored answers whatever the timeout (on a database the look-up is a query, and a timer of
    // 0 ms fired before it and answered 404 for a message that was there).
    let looked: Promise<unknown> = Promise.resolve()
    const timedOut = () => looked.then(() => timeoutError(ctx, filter, after, began, waited))
    if (!endWaitOn(ctx, pending, waited, timedOut, signal)) return
    // Without `after`, the newest match already stored answers (docs/ci.md#waits-and-old-mail);
    // with it, the newest stored after the cursor (none, for `now`). Asked once subscribed: a
    // match stored while a database answers is heard, not missed.
    const lookUp = () =>
      Promise.resolve(ctx.log.latest(counting.filter())).then(
        (existing) => existing && pending.resolve(existing),
        pending.reject,
      )
    looked =
      typeof taken === 'object'
        ? taken.then((from) => {
            counting.arrived(from)
            return lookUp()
          }, pending.reject)
        : lookUp()
  })
}
