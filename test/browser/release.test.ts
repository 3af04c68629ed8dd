import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js'
import { hasChromium, inboxSuite, readTree, screenshot } from './helpers.js'

/**
 * "Send to a real inbox" on a message: the relay and its patterns shown, the address remembered
 * for the next time, the relay's reply or the server's refusal shown, and the release listed
 * on the message as the stream tells of it.
 */

describe.skipIf(!hasChromium)('releasing a message from the inbox', { timeout: 90_000 }, () => {
  let smtp: TestSmtpServer
  beforeAll(async () => {
    smtp = await startSmtpServer({ refuse: ['gone@acme.test'] })
  })
  afterAll(() => smtp?.close())

  const suite = inboxSuite(async (fixturesDir) =>
    startTestSandbox(await readTree('templates'), {
      fixtures: fixturesDir,
      relay: `smtp://relay-user:hunter2-secret@127.0.0.1:${smtp.port}`,
      relayAllow: ['me@example.com', '*@acme.test'],
    }),
  )

  async function sendOne(): Promise<string> {
    const response = await suite.sandbox.send({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: 'Ada <ada@example.com>',
      subject: 'Welcome to Acme',
      templateVariables: {
        name: 'Ada',
        product: 'Acme Cloud',
        dashboardUrl: 'https://acme.test/d',
      },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  it('shows the relay and its patterns, sends, shows the reply and the release, and remembers the address', async () => {
    const id = await sendOne()
    const page = await suite.visit(`#/messages/${id}`)
    await page.locator('#release-toggle').click()
    const help = page.locator('#release-help')
    await expect.poll(() => help.textContent()).toContain(`smtp://127.0.0.1:${smtp.port}`)
    expect(await help.textContent()).toContain('me@example.com, *@acme.test')
    expect(await page.content()).not.toContain('hunter2')
    expect(await page.locator('#release-toggle').getAttribute('aria-expanded')).toBe('true')

    await page.locator('#release-to').fill('me@example.com')
    await page.locator('#release-send').click()
    const result = page.locator('#release-result[data-state="sent"]')
    await expect.poll(() => result.textContent()).toContain('Sent to me@example.com')
    expect(await result.textContent()).toContain('250')
    expect((await smtp.next()).to).toEqual(['me@example.com'])
    // The stream's `release` event lists it on the message.
    await expect
      .poll(() => page.locator('#release-history').textContent())
      .toContain('to me@example.com')
    await screenshot(page, 'release-sent-1280')

    // The page loaded anew (another day): the address is there already.
    await page.reload()
    await page.locator('#release-toggle').click()
    expect(await page.locator('#release-to').inputValue()).toBe('me@example.com')
  })

  it("shows the server's refusal: an address no pattern allows, a recipient the relay refuses", async () => {
    // The browser reports each refused request on its console.
    suite.allowErrors(/status of (422|502)/)
    const id = await sendOne()
    const page = await suite.visit(`#/messages/${id}`, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    })
    await page.locator('#release-toggle').click()
    const before = smtp.received.length
    await page.locator('#release-to').fill('boss@elsewhere.test')
    await page.locator('#release-send').click()
    const failed = page.locator('#release-result[data-state="failed"]')
    await expect.poll(() => failed.textContent()).toContain('"boss@elsewhere.test" is not allowed')
    expect(await page.locator('#release-to').getAttribute('aria-invalid')).toBe('true')
    await screenshot(page, 'release-refused-390')
    expect(smtp.received.length).toBe(before)

    await page.locator('#release-to').fill('gone@acme.test')
    await page.locator('#release-send').click()
    await expect.poll(() => failed.textContent()).toContain('refused every recipient')
  })
})

describe.skipIf(!hasChromium)('without a relay', { timeout: 60_000 }, () => {
  const suite = inboxSuite(async (fixturesDir) =>
    startTestSandbox(await readTree('templates'), { fixtures: fixturesDir }),
  )

  it('says how to set one up', async () => {
    const response = await suite.sandbox.send({
      template: 'welcome',
      from: 'a@acme.test',
      to: 'ada@example.com',
      subject: 'Hi',
      templateVariables: { name: 'Ada', product: 'Acme', dashboardUrl: 'https://acme.test' },
    })
    const { id } = (await response.json()) as { id: string }
    const page = await suite.visit(`#/messages/${id}`)
    await page.locator('#release-toggle').click()
    await expect
      .poll(() => page.locator('#release-help').textContent())
      .toContain('No relay is set up')
    expect(await page.locator('#release-to').count()).toBe(0)
  })
})
