import { type Sendbox, WaitTimeoutError } from 'sendbox'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { JSON_LOG, sendboxForSuite } from '../helpers/stores.js'

/**
 * A wait lasts at most 60 s whatever timeout it was given; its error says how long it really
 * waited, not the timeout asked for. Timers are faked so the minute passes at once. On the JSON
 * log only: faked timers would fake the database client's own too (its connections stall), and
 * the cap is the wait's own rule, the same on either store (test/wait-after.test.ts runs real
 * timeouts on both).
 */

describe('on the JSON log', () => {
  const store = JSON_LOG
  let sandbox: Sendbox
  sendboxForSuite(store, 'wait-timeout', (started) => {
    sandbox = started
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  describe('waitForMessage with a timeout over the 60 s cap', () => {
    it('gives up after 60 s, and its error says 60000 ms', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      let settled = false
      const wait = sandbox.waitForMessage({ to: 'nobody@example.com', timeout: 3_600_000 })
      const outcome = wait.then(
        () => undefined,
        (error: unknown) => error,
      )
      void outcome.finally(() => {
        settled = true
      })
      await vi.advanceTimersByTimeAsync(59_999)
      expect(settled).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      const error = await outcome
      expect(error).toBeInstanceOf(WaitTimeoutError)
      expect((error as Error).message).toContain('within 60000 ms')
      expect((error as Error).message).not.toContain('3600000')
      expect((error as WaitTimeoutError).timeout).toBe(60_000)
    })

    it('a timeout under the cap is reported as given', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      const outcome = sandbox
        .waitForMessage({ to: 'nobody@example.com', timeout: 1500 })
        .catch((error: unknown) => error)
      await vi.advanceTimersByTimeAsync(1500)
      const error = await outcome
      expect((error as Error).message).toContain('within 1500 ms')
      expect((error as WaitTimeoutError).timeout).toBe(1500)
    })
  })
})
