import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../../src/index.js'
import { tempDir, TOKEN } from '../helpers/sandbox.js'
import { ROOT } from '../helpers/cli.js'
import { httpsRequest, run } from '../https/helpers.js'
import { CHROMIUM, hasChromium, openPage } from './helpers.js'

/**
 * docs/https.md#trust-the-ca in a real browser: the inbox over HTTPS, with sendbox's CA trusted the way a user
 * trusts it (Chromium on Linux reads the NSS database in $HOME/.pki/nssdb; `certutil` is
 * Debian's libnss3-tools), and no certificate error ignored: a browser without the CA is refused.
 */

const hasCertutil = (await run('certutil', ['-H'])).stderr.includes('certutil')

/** Chromium with HOME set to `home`, which holds (or not) an NSS database. */
async function chromiumWithHome(home: string): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    env: { ...process.env, HOME: home },
  })
}

describe.skipIf(!hasChromium || !hasCertutil)('the inbox over HTTPS in Chromium', () => {
  let sandbox: Sendbox
  let trusting: Browser
  let home: string

  beforeAll(async () => {
    sandbox = await startSendbox({
      port: 0,
      memory: true,
      https: true,
      templates: join(ROOT, 'templates'),
      fixtures: join(ROOT, 'fixtures'),
    })
    home = await tempDir('sendbox-nss-')
    const db = `sql:${join(home, '.pki', 'nssdb')}`
    await mkdir(join(home, '.pki', 'nssdb'), { recursive: true })
    for (const args of [
      ['-d', db, '-N', '--empty-password'],
      // C,,: a CA trusted to issue server certificates; nothing else.
      ['-d', db, '-A', '-t', 'C,,', '-n', 'sendbox local CA', '-i', sandbox.caFile!],
    ]) {
      const result = await run('certutil', args)
      expect(result.code, result.stderr).toBe(0)
    }
    trusting = await chromiumWithHome(home)
  }, 60_000)

  afterAll(async () => {
    await trusting?.close()
    await sandbox?.close()
  })

  it('opens live, and a message sent meanwhile arrives over the event stream', async () => {
    const { page, errors, close } = await openPage(trusting, sandbox.inboxUrl)
    try {
      expect(page.url()).toBe(sandbox.inboxUrl)
      const sent = await httpsRequest(`${sandbox.url}/messages`, {
        ca: sandbox.ca,
        method: 'POST',
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          template: 'welcome',
          from: 'Acme <hello@acme.test>',
          to: 'ada@example.com',
          subject: 'Over TLS',
          templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/app' },
        }),
      })
      expect(sent.status, sent.body).toBe(201)
      await page.locator('#message-list a[data-id]', { hasText: 'Over TLS' }).waitFor()
      // The page's own writes carry its https Origin, which the cross-site check takes as its own.
      const armed = await page.evaluate(async () => {
        const body = JSON.stringify({ status: 503, count: 1, match: { template: 'none' } })
        const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body }
        return (await fetch('/_sandbox/api/faults', init)).status
      })
      expect(armed).toBe(201)
      expect(errors).toEqual([])
    } finally {
      await close()
    }
  })

  it('a browser that does not trust the CA is refused (no error is ignored)', async () => {
    const untrusting = await chromiumWithHome(await tempDir('sendbox-nss-empty-'))
    try {
      const page = await (await untrusting.newContext()).newPage()
      await expect(page.goto(sandbox.inboxUrl)).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/)
    } finally {
      await untrusting.close()
    }
  })
})
