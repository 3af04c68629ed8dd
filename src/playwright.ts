/**
 * `sendbox/playwright` (docs/testing.md#playwright-sendboxplaywright): Playwright Test's `test` and `expect`, with a `sandbox`
 * per worker and a fresh `inbox` per test.
 *
 * @example
 * import { expect, test } from 'sendbox/playwright'
 *
 * test('sign in with the emailed code', async ({ page, inbox }) => {
 *   await page.getByLabel('Email').fill(inbox.address)
 *   await page.getByRole('button', { name: 'Send me a code' }).click()
 *   await page.getByLabel('Code').fill(await inbox.waitForCode())
 * })
 */
import { test as base, expect } from '@playwright/test'
import { connectSendbox } from './testkit/connect.js'
import type { Inbox } from './testkit/inbox.js'
import type { SendboxClient } from './testkit/types.js'
import type { SendboxOptions } from './config.js'
import { startSendbox } from './index.js'

export interface SendboxFixtures {
  /** A fresh inbox for this test: its own address, its own mail. */
  inbox: Inbox
}

export interface SendboxWorkerFixtures {
  /**
   * Options for the sandbox a worker starts when `SENDBOX_URL` is not set (default: a free port,
   * in memory): `use: { sendboxOptions: { templates: './emails' } }` in playwright.config.
   */
  sendboxOptions: SendboxOptions
  /** The sandbox at `SENDBOX_URL`, or one started in this worker, shared by its tests. */
  sandbox: SendboxClient
}

export const test = base.extend<SendboxFixtures, SendboxWorkerFixtures>({
  sendboxOptions: [{}, { scope: 'worker', option: true }],
  sandbox: [
    async ({ sendboxOptions }, use) => {
      const sandbox = process.env.SENDBOX_URL
        ? connectSendbox(process.env.SENDBOX_URL)
        : await startSendbox({ port: 0, memory: true, ...sendboxOptions })
      await use(sandbox)
      await sandbox.close()
    },
    { scope: 'worker' },
  ],
  inbox: async ({ sandbox }, use) => {
    await use(sandbox.inbox())
  },
})

export { expect }
export type { Inbox, SendboxClient, SendboxOptions }
