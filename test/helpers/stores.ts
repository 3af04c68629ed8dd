import { describe } from 'vitest'
import type { SendboxOptions } from '../../src/config.js'
import { describePg, freshDatabase } from './postgres.js'
import { startTestSandbox, type TestSandbox } from './sandbox.js'

/** The store a suite is running on, and how to start a sandbox there. */
export interface StoreUnderTest {
  name: 'json' | 'postgres'
  /**
   * The options that put a sandbox on this store: nothing for the log (the test sandbox's
   * `memory: true`, or the caller's `db`), a new empty database for PostgreSQL (so that every
   * sandbox starts as empty as the log's).
   */
  options(): Promise<SendboxOptions>
  /** `startTestSandbox` on this store. */
  start(...args: Parameters<typeof startTestSandbox>): Promise<TestSandbox>
}

function storeUnderTest(
  name: StoreUnderTest['name'],
  options: () => Promise<SendboxOptions>,
): StoreUnderTest {
  return {
    name,
    options,
    start: async (templates, extra = {}, fixtures) =>
      startTestSandbox(templates, { ...extra, ...(await options()) }, fixtures),
  }
}

/** The JSON Lines log: the default, as every test sandbox has it. */
export const JSON_LOG = storeUnderTest('json', async () => ({}))

/** A fresh database of the run's cluster (only inside `describePg`). */
export const POSTGRES = storeUnderTest('postgres', async () => ({
  memory: undefined,
  store: await freshDatabase(),
}))

/**
 * A black-box suite, once per store: on the JSON Lines log always, and on PostgreSQL when the
 * run has a cluster (skipped otherwise, with the one line the setup printed). The suite starts
 * its sandboxes with `store.start` (or spreads `await store.options()` into `startSendbox`'s),
 * so one text runs on both.
 *
 * @example
 * onEachStore((store) => {
 *   let sandbox: TestSandbox
 *   beforeAll(async () => { sandbox = await store.start({ 'hi.liquid': 'Hi' }) })
 *   it('sends', async () => expect((await sandbox.send(body)).status).toBe(201))
 * })
 */
export function onEachStore(suite: (store: StoreUnderTest) => void): void {
  describe('on the JSON Lines log', () => suite(JSON_LOG))
  describePg('on PostgreSQL', () => suite(POSTGRES))
}
