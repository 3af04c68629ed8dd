import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { TOKEN, tempDir, writeFiles } from '../helpers/sandbox.js'
import { faultyFs } from '../store/faulty-fs.js'
import { hasChromium, launch, openPage } from './helpers.js'

/** The inbox's banner while the message log cannot be written (issue 26, docs/log-faults.md). */
describe.skipIf(!hasChromium)('the log banner', { timeout: 60_000 }, () => {
  const disk = faultyFs()
  let dir: string
  let server: RunningServer
  let browser: Browser
  beforeAll(async () => {
    dir = await tempDir()
    await writeFiles(join(dir, 'templates'), { 'welcome.liquid': 'Hello {{ name }}' })
    server = await startServer(
      {
        port: 0,
        templates: join(dir, 'templates'),
        db: join(dir, '.sendbox', 'messages.jsonl'),
        fixtures: join(dir, 'fixtures'),
      },
      { open: false, logs: false },
      { logFs: disk.fs },
    )
    browser = await launch()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await rm(dir, { recursive: true, force: true })
  })

  const send = () =>
    fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'welcome',
        from: 'a@acme.test',
        to: 'b@example.com',
        subject: 'Hi',
        templateVariables: { name: 'Ada' },
      }),
    })

  it('shows while writes fail, live and after a reload, and goes when they work again', async () => {
    const { page, errors, close } = await openPage(browser, `${server.url}/_sandbox/`)
    const banner = page.getByRole('alert').filter({ hasText: 'message log cannot be written' })
    expect(await banner.count()).toBe(0)
    disk.fail('ENOSPC')
    expect((await send()).status).toBe(507)
    await banner.waitFor() // from the event stream's `log` event
    expect(await banner.textContent()).toContain('ENOSPC')
    await page.reload()
    await page.locator('#status[data-state="live"]').waitFor()
    await banner.waitFor() // from health, at load
    disk.heal()
    expect((await send()).status).toBe(201)
    await banner.waitFor({ state: 'hidden' })
    await close()
    expect(errors.filter((e) => !/507/.test(e))).toEqual([])
  })
})
