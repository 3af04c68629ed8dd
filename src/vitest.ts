/**
 * `sendbox/vitest` (docs/testing.md#vitest-sendboxvitest): Vitest's `test`, extended with a `sandbox` per worker and a
 * fresh `inbox` per test.
 *
 * @example
 * import { test } from 'sendbox/vitest'
 *
 * test.concurrent('a reset link', async ({ inbox, expect }) => {
 *   await requestPasswordReset(inbox.address)
 *   expect(await inbox.waitForLink({ text: 'Reset' })).toMatch(/token=/)
 * })
 */
import { test as base } from 'vitest'
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
   * in memory). Set it with the project's `provide: { sendboxOptions: { templates: './emails' } }`.
   */
  sendboxOptions: SendboxOptions
  /** The sandbox at `SENDBOX_URL`, or one started in this worker, shared by its tests. */
  sandbox: SendboxClient
}

/**
 * The sandbox a worker uses: connected to `SENDBOX_URL` when it is set, else started here.
 *
 * @example const sandbox = await workerSandbox({ templates: './emails' })
 */
export async function workerSandbox(options: SendboxOptions): Promise<SendboxClient> {
  if (process.env.SENDBOX_URL) return connectSendbox(process.env.SENDBOX_URL)
  return startSendbox({ port: 0, memory: true, ...options })
}

export const test = base.extend<SendboxFixtures & SendboxWorkerFixtures>({
  sendboxOptions: [{}, { scope: 'worker', injected: true }],
  sandbox: [
    async ({ sendboxOptions }, use) => {
      const sandbox = await workerSandbox(sendboxOptions)
      await use(sandbox)
      await sandbox.close()
    },
    { scope: 'worker' },
  ],
  inbox: async ({ sandbox }, use) => {
    await use(sandbox.inbox())
  },
})

export type { Inbox, SendboxClient, SendboxOptions }
