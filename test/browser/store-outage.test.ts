import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningCli, startCli } from '../helpers/cli.js'
import { type Cluster, findPgBin, startCluster } from '../helpers/pg-cluster.js'
import { SKIPPED } from '../pg-setup.js'
import { seriousViolations } from './axe.js'
import { hasChromium, launch, screenshot } from './helpers.js'

/**
 * docs/log-faults.md, on PostgreSQL: while the database is away the inbox does not say "Live"
 * over the list it had, it says the store is unavailable (the status and a banner, which axe
 * finds nothing serious in, light or dark, wide or narrow); once the database is back the
 * banner and the toast of a refused load go, the list loads again and mail arrives live. A page
 * opened during the outage says so too. The sandbox is a `sendbox serve` process (the bundled
 * client, as users run it) on a cluster of this file's own, which it stops and starts.
 */

const hasPostgres = findPgBin() !== null
if (!hasPostgres) {
  if (process.env.SENDBOX_PG_REQUIRED)
    throw new Error('SENDBOX_PG_REQUIRED is set, but initdb and pg_ctl were not found.')
  console.warn(SKIPPED)
}

const send = (cli: RunningCli, subject: string) =>
  fetch(`${cli.url}/messages`, {
    method: 'POST',
    headers: { authorization: 'token sandbox_outage', 'content-type': 'application/json' },
    body: JSON.stringify({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject,
      templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
    }),
  })

describe.skipIf(!hasPostgres || !hasChromium)(
  'the inbox while the database is away',
  { timeout: 120_000 },
  () => {
    let cluster: Cluster
    let cli: RunningCli
    let browser: Browser
    beforeAll(async () => {
      cluster = await startCluster()
      cli = await startCli(['--port', '0', '--templates', 'templates'], {
        env: { SENDBOX_STORE: cluster.url },
      })
      browser = await launch()
    }, 90_000)
    afterAll(async () => {
      await browser?.close()
      await cli?.stop()
      await cluster?.destroy()
    })

    const row = (page: Page, subject: string) =>
      page.locator('#message-list a[data-id]', { hasText: subject })

    it('says the store is unavailable, not Live, and clears it all once the database is back', async () => {
      expect((await send(cli, 'Before the outage')).status).toBe(201)
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      const page = await context.newPage()
      const opened: Page[] = []
      try {
        await page.goto(`${cli.url}/_sandbox/`)
        await row(page, 'Before the outage').waitFor()
        await page.locator('#status[data-state="live"]').waitFor()

        await cluster.stop()
        // The process's own claims for work (every second) find the database away.
        await page.locator('#status[data-state="unavailable"]').waitFor()
        expect(await page.locator('#status').textContent()).toBe('Store unavailable')
        expect(await page.locator('#log-banner').textContent()).toContain(
          'cannot reach its database',
        )
        expect((await send(cli, 'During the outage')).status).toBe(503)
        const found: string[] = []
        for (const [width, height] of [
          [1280, 800],
          [390, 844],
        ] as const)
          for (const colorScheme of ['light', 'dark'] as const) {
            await page.setViewportSize({ width, height })
            await page.emulateMedia({ colorScheme })
            for (const problem of await seriousViolations(page))
              found.push(`${width} ${colorScheme}: ${problem}`)
            await screenshot(page, `store-outage-${width}-${colorScheme}`)
          }
        expect(found).toEqual([])
        await page.setViewportSize({ width: 1280, height: 800 })
        await page.emulateMedia({ colorScheme: 'light' })

        // A page opened now: its list cannot load (a toast says so), and health says why.
        const late = await context.newPage()
        opened.push(late)
        await late.goto(`${cli.url}/_sandbox/`)
        await late.locator('#status[data-state="unavailable"]').waitFor()
        await late.locator('#toast:not([hidden])').waitFor()

        await cluster.start()
        for (const each of [page, late]) {
          await each.locator('#status[data-state="live"]').waitFor({ timeout: 20_000 })
          await each.locator('#log-banner').waitFor({ state: 'detached' })
          expect(await each.locator('#toast').isHidden()).toBe(true)
        }
        await row(late, 'Before the outage').waitFor()
        expect((await send(cli, 'After the outage')).status).toBe(201)
        for (const each of [page, late]) await row(each, 'After the outage').waitFor()
      } finally {
        for (const each of opened) await each.close()
        await context.close()
      }
    })
  },
)
