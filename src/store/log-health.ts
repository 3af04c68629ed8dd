import { isLogWriteError } from './errors.js'
import type { LogHealth } from './types.js'

/**
 * Whether the log is being written, said once per change: the first failed write of a spell
 * puts one plain sentence on the console (not a stack per send) and tells `onHealth`; the
 * first write that works again says so too. Errors other than failed writes change nothing.
 *
 * @example
 * const health = createLogHealth(file, console.warn)
 * health.failed(error) // warns once; health.current().state === 'write_failed'
 * health.written()     // "…is written again"; state 'ok'
 */
export function createLogHealth(
  file: string | null,
  warn: (message: string) => void,
  onHealth: (health: LogHealth) => void = () => {},
) {
  let current: LogHealth = file === null ? { state: 'memory', file } : { state: 'ok', file }
  return {
    current: () => current,
    /** A write failed: `write_failed` (said once), if it is a failed write. */
    failed(error: unknown): void {
      if (!isLogWriteError(error) || current.state === 'write_failed') return
      current = {
        state: 'write_failed',
        file,
        reason: error.reason,
        message: error.message,
        since: new Date().toISOString(),
      }
      warn(
        `${error.message} Until then sends are answered 507 log_write_failed and nothing is acknowledged that was not written; reads keep working.`,
      )
      onHealth(current)
    },
    /** A write worked: back to `ok`, if it was not. */
    written(): void {
      if (current.state !== 'write_failed') return
      current = { state: 'ok', file }
      warn(`The message log ${file} is written again.`)
      onHealth(current)
    },
  }
}
