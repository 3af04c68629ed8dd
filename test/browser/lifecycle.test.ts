import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../helpers/receiver.js'
import { startTestSandbox } from '../helpers/sandbox.js'
import { hasChromium, inboxSuite, screenshot } from './helpers.js'

/**
 * The delivery lifecycle in the inbox, end to end: statuses and timelines that move by
 * themselves, simulate buttons, the Webhooks and Suppressions pages. Every wait is for
 * something to show up, never a fixed time.
 */

const TEMPLATE =
  '<h1>Hello {{ name }}</h1><p><a href="https://acme.test/start?step=1&amp;ref=mail">Get started</a> or <a href="https://acme.test/help">read the help</a>.</p>'

describe.skipIf(!hasChromium)('the delivery lifecycle in the inbox', { timeout: 60_000 }, () => {
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(() => receiver?.close())

  const suite = inboxSuite(() =>
    // Steps a second apart, so the page can be seen (and photographed) going through them; one attempt per webhook.
    startTestSandbox(
      { 'welcome.liquid': TEMPLATE },
      { webhook: receiver.url, webhookRetries: 0, deliveryDelay: 1000 },
    ),
  )
  const { visit } = suite

  /** Sends; `respond` answers the webhooks from then on (set first: one may arrive before the 201 is read). */
  async function send(
    to: string | string[],
    subject = 'Welcome to Acme',
    respond: Receiver['respond'] = () => 200,
  ): Promise<string> {
    receiver.respond = respond
    const response = await suite.sandbox.send({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to,
      subject,
      templateVariables: { name: 'Ada' },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  const badgeOf = (page: Page, id: string) =>
    page.locator(`#message-list a[data-id="${id}"] .status-badge`)
  const waitText = (page: Page, selector: string, text: string) =>
    page.waitForFunction(
      ([selector, text]) =>
        [...document.querySelectorAll(selector!)].some((e) => e.textContent?.includes(text!)),
      [selector, text] as const,
    )

  it('statuses and the timeline move by themselves: sent, deferred, delivered', async () => {
    await fetch(`${suite.sandbox.url}/_sandbox/api/suppressions`, { method: 'DELETE' })
    const page = await visit()
    const id = await send('Grace <grace+softbounce@example.com>', 'A soft bounce')
    await page.locator(`#message-list a[data-id="${id}"]`).waitFor()
    // Open it on the Delivery tab while it is still on its way.
    await page.goto(`${suite.sandbox.url}/_sandbox/#/messages/${id}?tab=delivery`)
    await page.locator('#status[data-state="live"]').waitFor()
    await page.locator('#delivery').waitFor()
    await waitText(page, '#message-status', 'Deferred')
    await waitText(page, '.recipient .timeline', 'Deferred')
    await screenshot(page, 'lifecycle-deferred')
    await waitText(page, '#message-status', 'Delivered')
    await page.waitForFunction(() => document.querySelectorAll('.timeline-event').length === 3)
    expect(await page.locator('.timeline-type').allTextContents()).toEqual([
      'Sent',
      'Deferred',
      'Delivered',
    ])
    expect(await badgeOf(page, id).textContent()).toBe('Delivered')
    expect(await page.locator('.recipient .status-badge').textContent()).toBe('Delivered')
    // The list's badge says it in words, not colour alone.
    expect(await badgeOf(page, id).getAttribute('data-status')).toBe('delivered')
  })

  it('the list badge follows each message: bounced and complained, as they happen', async () => {
    const page = await visit()
    const bounced = await send('bob+bounce@example.com', 'Will bounce')
    const complained = await send('carol+spam@example.com', 'Will be marked as spam')
    await page.waitForFunction(
      (id) =>
        document.querySelector(`#message-list a[data-id="${id}"] .status-badge`)?.textContent ===
        'Bounced',
      bounced,
    )
    await page.waitForFunction(
      (id) =>
        document.querySelector(`#message-list a[data-id="${id}"] .status-badge`)?.textContent ===
        'Complained',
      complained,
    )
    await screenshot(page, 'lifecycle-list')
  })

  it('the simulate buttons fire events: opened, clicked (a link of the HTML), bounced', async () => {
    const page = await visit()
    const id = await send(['Ada <ada@example.com>', 'Bob <bob@example.com>'])
    await suite.sandbox.waitForMessage({
      to: 'bob@example.com',
      status: 'delivered',
      timeout: 5000,
    })
    await page.goto(`${suite.sandbox.url}/_sandbox/#/messages/${id}?tab=delivery`)
    await page.locator('#status[data-state="live"]').waitFor()
    const ada = page.locator('.recipient[data-recipient="ada@example.com"]')
    const bob = page.locator('.recipient[data-recipient="bob@example.com"]')
    await ada.getByRole('button', { name: 'Opened' }).click()
    await waitText(page, '.recipient[data-recipient="ada@example.com"] .timeline', 'Opened')
    await receiver.until(() =>
      receiver.received.some((r) => r.body.type === 'message.opened' && r.body.data.id === id),
    )

    // Clicked: the links come from the message's own HTML.
    const select = bob.locator('select.click-url')
    expect(await select.locator('option').allTextContents()).toEqual([
      'https://acme.test/start?step=1&ref=mail',
      'https://acme.test/help',
    ])
    await select.selectOption('https://acme.test/help')
    await bob.getByRole('button', { name: 'Clicked' }).click()
    await waitText(
      page,
      '.recipient[data-recipient="bob@example.com"] .timeline',
      'https://acme.test/help',
    )
    const click = await receiver.until(() =>
      receiver.received.some((r) => r.body.type === 'message.clicked' && r.body.data.id === id),
    )
    expect(click.find((r) => r.body.type === 'message.clicked')!.body.data).toMatchObject({
      recipient: 'bob@example.com',
      url: 'https://acme.test/help',
    })

    await bob.getByRole('button', { name: 'Bounced' }).click()
    await waitText(page, '#message-status', 'Bounced')
    await waitText(page, '.recipient[data-recipient="bob@example.com"] .recipient-head', 'Bounced')
    expect(await bob.locator('.timeline-type').allTextContents()).toEqual([
      'Sent',
      'Delivered',
      'Clicked',
      'Bounced',
    ])
    expect(await bob.locator('.tag').allTextContents()).toEqual(['simulated', 'simulated'])
    await screenshot(page, 'lifecycle-delivery-tab')
    expect(
      (await suite.sandbox.suppressions({ address: 'bob@example.com' })).map((s) => s.reason),
    ).toEqual(['bounced'])
  })

  it('the Webhooks page: a failed delivery, then retried from the page, delivered', async () => {
    const page = await visit('#/webhooks')
    const id = await send('dan@example.com', 'Webhook trouble', (request) =>
      request.body.data.recipient === 'dan@example.com' ? 500 : 200,
    )
    // message.sent and message.delivered both fail (one attempt each: --webhook-retries 0).
    await page.waitForFunction(
      (id) =>
        [...document.querySelectorAll('#webhook-list .delivery-item')].filter(
          (d) =>
            d.textContent?.includes('dan@example.com') &&
            d.getAttribute('data-status') === 'failed',
        ).length === 2,
      id,
    )
    const failed = page
      .locator('#webhook-list .delivery-item[data-status="failed"]', { hasText: 'message.sent' })
      .filter({ hasText: 'dan@example.com' })
    await failed.locator('summary').click()
    await failed.getByRole('cell', { name: 'HTTP 500' }).waitFor()
    expect(await failed.locator('.response-start').first().textContent()).toBe(
      'failing on purpose (500)',
    )
    expect(await failed.locator('pre').first().textContent()).toMatch(/webhook-signature: v1,/)
    expect(JSON.parse((await failed.locator('pre').nth(1).textContent())!)).toMatchObject({
      type: 'message.sent',
      data: { id, recipient: 'dan@example.com' },
    })
    await screenshot(page, 'webhooks-failed')

    receiver.respond = () => 200
    await failed.getByRole('button', { name: 'Retry now' }).click()
    const retried = page
      .locator(`#webhook-list .delivery-item[data-status="delivered"]`, { hasText: 'message.sent' })
      .filter({ hasText: 'dan@example.com' })
    await retried.getByRole('cell', { name: 'HTTP 200' }).waitFor()
    expect(await retried.locator('.attempts tbody tr').count()).toBe(2)
    expect(await retried.locator('.attempts .tag').textContent()).toBe('manual')
    expect(await retried.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true)
    await screenshot(page, 'webhooks-retried')
  })

  it('the Suppressions page lists what bounces and complaints added, live, and removes them', async () => {
    await fetch(`${suite.sandbox.url}/_sandbox/api/suppressions`, { method: 'DELETE' })
    const page = await visit('#/suppressions')
    await page.getByText('No suppressed addresses').waitFor()
    await send('erin+bounce@example.com', 'Bounces')
    await page.locator('#suppression-table tr[data-address="erin+bounce@example.com"]').waitFor()
    await send('frank+complaint@example.com', 'Complains')
    await page
      .locator('#suppression-table tr[data-address="frank+complaint@example.com"]')
      .waitFor()
    expect(await page.locator('#suppression-table tbody th').allTextContents()).toEqual([
      'frank+complaint@example.com',
      'erin+bounce@example.com',
    ])
    expect(await page.locator('#suppression-count').textContent()).toBe('2')
    await screenshot(page, 'suppressions')
    await page.getByRole('button', { name: /Remove erin\+bounce@example\.com/ }).click()
    await page.waitForFunction(
      () =>
        !document.querySelector('#suppression-table tr[data-address="erin+bounce@example.com"]'),
    )
    expect((await suite.sandbox.suppressions()).map((s) => s.address)).toEqual([
      'frank+complaint@example.com',
    ])
    await page.locator('#clear-suppressions').click()
    await page.locator('#confirm-ok').click()
    await page.getByText('No suppressed addresses').waitFor()
  })

  it('the nav reaches every page, with aria-current on the one shown', async () => {
    const page = await visit()
    await page.getByRole('link', { name: 'Webhooks' }).click()
    await page.locator('#view-webhooks:not([hidden])').waitFor()
    expect(await page.locator('#nav-webhooks').getAttribute('aria-current')).toBe('page')
    await page.getByRole('link', { name: 'Suppressions' }).click()
    await page.locator('#view-suppressions:not([hidden])').waitFor()
    expect(await page.locator('#nav-webhooks').getAttribute('aria-current')).toBeNull()
    await page.locator('#nav-messages').click()
    await page.locator('#view-messages:not([hidden])').waitFor()
  })
})
