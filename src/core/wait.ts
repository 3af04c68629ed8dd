import { matchesFilter } from '../store/index.js'
import type { MessageFilter, MessageRecord } from '../store/types.js'
import type { AppContext } from './context.js'

export interface WaitOptions extends MessageFilter {
  /** Milliseconds to wait for a match (default 5000, max 60000). */
  timeout?: number
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

/** No matching message arrived in time. `filter` says what was waited for. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError'
  constructor(
    readonly filter: MessageFilter,
    readonly timeout: number,
  ) {
    const shown = Object.keys(filter).length ? JSON.stringify(filter) : 'any message'
    super(`No message matching ${shown} arrived within ${timeout} ms.`)
  }
}

/**
 * The newest message matching `filter`, or the first one to arrive before `timeout`.
 * Shared by GET /_sandbox/api/messages/wait and `sandbox.waitForMessage`.
 */
export function waitForMessage(ctx: Pick<AppContext, 'log' | 'events' | 'onClose'>, options: WaitOptions): Promise<MessageRecord> {
  const { timeout = WAIT_DEFAULT_MS, signal, limit: _limit, offset: _offset, ...filter } = options
  const existing = ctx.log.latest(filter)
  if (existing) return Promise.resolve(existing)
  return new Promise((resolve, reject) => {
    const cleanups: Array<() => void> = []
    const finish = (settle: () => void) => {
      for (const cleanup of cleanups) cleanup()
      settle()
    }
    cleanups.push(
      ctx.events.subscribe((event) => {
        // A message matches when it arrives, or later when its status changes (?status=bounced).
        if ((event.type === 'message' || event.type === 'status') && matchesFilter(event.record, filter)) finish(() => resolve(event.record))
      }),
    )
    const timer = setTimeout(() => finish(() => reject(new WaitTimeoutError(filter, timeout))), Math.min(timeout, WAIT_MAX_MS))
    cleanups.push(() => clearTimeout(timer))
    // An HTTP wait pending at shutdown gets a clean 503, not a 500.
    cleanups.push(ctx.onClose(() => finish(() => reject(new ShuttingDownError()))))
    if (signal) {
      const onAbort = () => finish(() => reject(signal.reason ?? new Error('The wait was aborted.')))
      if (signal.aborted) return onAbort()
      signal.addEventListener('abort', onAbort, { once: true })
      cleanups.push(() => signal.removeEventListener('abort', onAbort))
    }
  })
}
