import { api } from './api.js'
import { $ } from './dom.js'

/**
 * The banner the inbox shows while the message log cannot be written (a full disk, lost
 * permissions: docs/log-faults.md). It learns of the log's state from the event stream's `log`
 * event as it changes, and from the health answer when the stream (re)opens, since a change
 * made while the stream was down was not heard.
 */

/** The `log` event's data, and what the health answer says (`log`, `logError`). */
export interface LogState {
  state: string
  file?: string | null
  reason?: string
  message?: string
}

/** Shows or hides the banner for this state. */
export function showLogState(log: LogState): void {
  const banner = $('#log-banner')
  const failing = log.state === 'write_failed'
  banner.hidden = !failing
  banner.textContent = failing
    ? `The message log cannot be written (${log.reason ?? 'unknown'}): new sends are refused with 507 log_write_failed and nothing unwritten is acknowledged. ${log.message ?? ''}`
    : ''
}

/** Asks health for the log's state (at load, and when the event stream reopens). */
export async function refreshLogState(): Promise<void> {
  try {
    const health = await api.health()
    showLogState({ state: health.log ?? 'ok', ...health.logError })
  } catch {
    // sendbox is away: the stream's reconnect asks again.
  }
}
