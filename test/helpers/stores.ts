import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe } from 'vitest'
import { type Sendbox, startSendbox } from 'sendbox'
import type { SendboxOptions } from '../../src/config.js'
import { describePg, freshDatabase } from './postgres.js'
import { startTestSandbox, tempDir, type TestSandbox, writeFiles } from './sandbox.js'

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

/**
 * A programmatic `Sendbox` on `store` for the suite it is called in: started before its tests
 * (the welcome template in a folder of its own, `sendbox-<name>-…`), handed to `use`, and closed,
 * its folder removed, after them.
 *
 * @example
 * let sandbox: Sendbox
 * sendboxForSuite(store, 'copies', (started) => { sandbox = started })
 */
export function sendboxForSuite(
  store: StoreUnderTest,
  name: string,
  use: (sandbox: Sendbox) => void,
): void {
  let dir: string
  let sandbox: Sendbox | undefined
  beforeAll(async () => {
    dir = await tempDir(`sendbox-${name}-`)
    await writeFiles(join(dir, 'templates'), { 'welcome.liquid': '<p>Welcome, {{ name }}!</p>' })
    sandbox = await startSendbox({
      port: 0,
      memory: true,
      templates: join(dir, 'templates'),
      ...(await store.options()),
    })
    use(sandbox)
  })
  afterAll(async () => {
    await sandbox?.close()
    await rm(dir, { recursive: true, force: true })
  })
}
