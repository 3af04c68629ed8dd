import type { StoreUnavailableError } from '../errors.js'
import type { LogHealth } from '../types.js'

/**
 * Whether this process can reach the database, as its own queries find it: `unavailable` from a
 * query that could not reach it, `ok` again from the next one the database answered. No query of
 * its own: the work runner claims every second (core/work-runner.ts), so an idle process learns
 * of an outage, and of the end of one, within about a second. Each change is told to `onHealth`
 * (the composition root emits it as the `log` event, which the inbox shows).
 */
export interface Reachability {
  health(): LogHealth
  /** What a call found: null when the database answered (a refused statement too), the failure when it did not. */
  observe(failure: StoreUnavailableError | null): void
}

/**
 * @example
 * const reach = createReachability((health) => events.emit({ type: 'log', health }))
 * reach.observe(new StoreUnavailableError('db:5432/sendbox', 'ECONNREFUSED')) // unavailable, told once
 */
export function createReachability(onHealth: (health: LogHealth) => void = () => {}): Reachability {
  let current: LogHealth = { state: 'ok', file: null }
  return {
    health: () => current,
    observe(failure) {
      if (failure === null) {
        if (current.state === 'ok') return
        current = { state: 'ok', file: null }
      } else {
        if (current.state === 'unavailable') return
        current = {
          state: 'unavailable',
          file: null,
          reason: failure.reason,
          message: failure.message,
          since: new Date().toISOString(),
        }
      }
      onHealth(current)
    },
  }
}
