import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../helpers/receiver.js'
import { startTestSandbox, writeFiles } from '../helpers/sandbox.js'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js'
import { seriousViolations } from './axe.js'
import { hasChromium, inboxSuite, readTree, screenshot } from './helpers.js'

/**
 * Every view of the inbox through axe-core (WCAG 2.1 A and AA, and axe's best practices), in
 * light and dark colours, at 1280×800 and 390×844: a `serious` or `critical` violation fails
 * the test, named with its rule, its elements and what axe says to do. Each view is also
 * photographed (screenshots/view-<name>-<width>-<scheme>.png), to be looked at.
 *
 * axe runs in the page itself (its source evaluated there: the page's CSP allows no injected
 * script tag, and evaluating bypasses it as a debugger does); the emails' own frames are left
 * out (they are the user's HTML, not the inbox).
 */

/** What each view is, and what shows it is ready. */
interface ViewCase {
  name: string
  hash: (ids: Ids) => string
  ready: (page: Page) => Promise<unknown>
}

interface Ids {
  message: string
  bounced: string
  delivery: string
}

const VIEWS: ViewCase[] = [
  {
    name: 'messages',
    hash: () => '#/',
    ready: (page) => page.locator('#message-list a[data-id]').first().waitFor(),
  },
  ...['html', 'text', 'links', 'source', 'details', 'delivery', 'checks'].map((tab) => ({
    name: `message-${tab}`,
    hash: (ids: Ids) => `#/messages/${ids.message}${tab === 'html' ? '' : `?tab=${tab}`}`,
    ready: (page: Page) =>
      tab === 'checks'
        ? page.locator('#message-checks').waitFor()
        : tab === 'html'
          ? page.frameLocator('#message-panel iframe').locator('h1').waitFor()
          : page.locator(`#message-tab-${tab}[aria-selected="true"]`).waitFor(),
  })),
  {
    // "Send to a real inbox", open, after a release: the relay's reply and the list of releases.
    name: 'message-release',
    hash: (ids) => `#/messages/${ids.message}`,
    ready: async (page) => {
      await page.locator('#release-toggle').click()
      await page.locator('#release-to').fill('me@example.com')
      await page.locator('#release-send').click()
      await page.locator('#release-result[data-state="sent"]').waitFor()
      await page.locator('#release-history').waitFor()
    },
  },
  {
    name: 'message-bounced-delivery',
    hash: (ids) => `#/messages/${ids.bounced}?tab=delivery`,
    ready: (page) => page.locator('.recipient .status-badge', { hasText: 'Bounced' }).waitFor(),
  },
  {
    name: 'rejections',
    hash: () => '#/',
    ready: async (page) => {
      await page.locator('#rejections summary').click()
      await page.locator('#rejections .rejection').first().waitFor()
    },
  },
  {
    name: 'templates',
    hash: () => '#/templates',
    ready: (page) => page.locator('#template-list a[data-slug]').first().waitFor(),
  },
  {
    name: 'template-preview',
    hash: () => '#/templates/order-receipt',
    ready: async (page) => {
      await page.frameLocator('#template-panel iframe').locator('h1').waitFor()
      await page.locator('#vars-json').waitFor()
    },
  },
  {
    name: 'template-checks',
    hash: () => '#/templates/order-receipt?tab=checks',
    ready: (page) => page.locator('#template-checks').waitFor(),
  },
  {
    name: 'template-variables',
    hash: () => '#/templates/order-receipt?tab=variables',
    ready: (page) => page.locator('#template-panel .vars-expected').waitFor(),
  },
  {
    name: 'template-liquid',
    hash: () => '#/templates/order-receipt?tab=liquid',
    ready: (page) => page.locator('#template-panel .source-lines').waitFor(),
  },
  {
    name: 'changes',
    hash: () => '#/changes',
    ready: (page) => page.locator('#change-list a[data-id]').first().waitFor(),
  },
  ...['swipe', 'overlay'].map((mode) => ({
    name: `change-${mode}`,
    hash: () => `#/changes/welcome?case=default${mode === 'swipe' ? '' : `&mode=${mode}`}`,
    ready: async (page: Page) => {
      for (const side of ['snapshot', 'current'])
        await page.frameLocator(`#change-panel iframe[data-side="${side}"]`).locator('h1').waitFor()
      await page.locator(`#change-tab-${mode}[aria-selected="true"]`).waitFor()
    },
  })),
  {
    name: 'webhooks',
    hash: (ids) => `#/webhooks?open=${ids.delivery}`,
    ready: (page) => page.locator('#webhook-detail .attempts').waitFor(),
  },
  {
    name: 'suppressions',
    hash: () => '#/suppressions',
    ready: (page) => page.locator('#suppression-table tbody tr').first().waitFor(),
  },
]

describe.skipIf(!hasChromium)(
  'accessibility of every view (axe-core)',
  { timeout: 240_000 },
  () => {
    let receiver: Receiver
    let smtp: TestSmtpServer
    beforeAll(async () => {
      receiver = await startReceiver()
      smtp = await startSmtpServer()
    })
    afterAll(async () => {
      await receiver?.close()
      await smtp?.close()
    })

    const suite = inboxSuite(async (fixturesDir) => {
      await writeFiles(fixturesDir, await readTree('fixtures'))
      return startTestSandbox(await readTree('templates'), {
        fixtures: fixturesDir,
        webhook: receiver.url,
        webhookRetries: 0,
        relay: `smtp://127.0.0.1:${smtp.port}`,
        relayAllow: ['me@example.com'],
      })
    })

    async function seed(): Promise<Ids> {
      const send = async (to: string, subject: string) => {
        const response = await suite.sandbox.send({
          template: 'order-receipt',
          from: 'Acme Shop <shop@acme.test>',
          to,
          subject,
          templateVariables: JSON.parse(
            await readFile('fixtures/order-receipt/default.json', 'utf8'),
          ) as Record<string, unknown>,
        })
        expect(response.status).toBe(201)
        return ((await response.json()) as { id: string }).id
      }
      // The other test's bounce put the address on the list: this one bounces anew.
      await fetch(`${suite.sandbox.url}/_sandbox/api/suppressions`, { method: 'DELETE' })
      receiver.respond = (request) => (request.body.data.recipient.includes('bounce') ? 500 : 200)
      const message = await send('Grace Hopper <grace@example.com>', 'Your receipt for order #1042')
      const bounced = await send('bob+bounce@example.com', 'A receipt that bounces')
      // A rejected send, for the panel above the list.
      expect(
        (
          await suite.sandbox.send({
            template: 'welcome',
            from: 'a@acme.test',
            to: 'ada@example.com',
            subject: 'No variables',
          })
        ).status,
      ).toBe(422)
      await suite.sandbox.waitForMessage({ status: 'bounced', timeout: 5000 })
      await changeWelcome()
      const { deliveries } = (await (
        await fetch(`${suite.sandbox.url}/_sandbox/api/webhooks?status=failed`)
      ).json()) as { deliveries: { id: string }[] }
      return { message, bounced, delivery: deliveries[0]!.id }
    }

    /** Every case accepted, then the snapshot of welcome edited: one changed case to review. */
    async function changeWelcome(): Promise<void> {
      const api = `${suite.sandbox.url}/_sandbox/api/snapshots`
      expect((await fetch(`${api}/accept`, { method: 'POST' })).status).toBe(200)
      const file = join(suite.sandbox.dir, 'snapshots', 'welcome', 'default.html')
      await writeFile(file, (await readFile(file, 'utf8')).replace('Welcome', 'Hello'))
      // The server learns of the edit from its watcher: at the first accept the folder is new,
      // so the watch starts at the next poll (500 ms), then every case is rendered again. A
      // loaded CI machine took more than poll's default second (both tests failed there).
      await expect
        .poll(
          async () => {
            const { snapshots } = (await (await fetch(api)).json()) as {
              snapshots: { template: string; status: string }[]
            }
            return snapshots.find((s) => s.template === 'welcome')?.status
          },
          { timeout: 10_000 },
        )
        .toBe('changed')
    }

    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const)
      it(`finds no serious or critical violation in any view at ${width} px, light and dark`, async () => {
        const ids = await seed()
        const found: string[] = []
        for (const colorScheme of ['light', 'dark'] as const) {
          const page = await suite.visit('', {
            viewport: { width, height },
            colorScheme,
            ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
          })
          for (const view of VIEWS) {
            await page.goto(`${suite.sandbox.url}/_sandbox/${view.hash(ids)}`)
            await page.locator('#status[data-state="live"]').waitFor()
            await view.ready(page)
            for (const problem of await seriousViolations(page))
              found.push(`${view.name}, ${colorScheme}: ${problem}`)
            await screenshot(page, `view-${view.name}-${width}-${colorScheme}`)
          }
        }
        expect(found).toEqual([])
      })
  },
)
