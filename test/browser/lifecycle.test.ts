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
    // After a hard bounce nothing more is offered for that address (no Delivered, no Opened).
    expect(await bob.getByRole('button', { name: 'Delivered' }).count()).toBe(0)
    expect(await bob.getByRole('button', { name: 'Opened' }).count()).toBe(0)
    expect(await bob.locator('.simulate-none').textContent()).toContain('Bounced')
    expect(await ada.getByRole('button', { name: 'Delivered' }).count()).toBe(1)
    // The link picker has a label one can see, and the header's badge and its timeline link are apart.
    const picker = ada.getByLabel('Link to click')
    expect(await picker.count()).toBe(1)
    expect(await ada.locator('label[for="click-url-0"]').isVisible()).toBe(true)
    const badge = (await page.locator('#message-status').boundingBox())!
    const link = (await page.getByRole('link', { name: 'Delivery timeline' }).boundingBox())!
    expect(link.x - (badge.x + badge.width)).toBeGreaterThanOrEqual(8)
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
    const delivery = (await failed.getAttribute('data-id'))!
    // Open it: beside the table, and in the URL.
    await failed.getByRole('link', { name: 'message.sent' }).click()
    await page.waitForURL(new RegExp(`#/webhooks\\?open=${delivery}$`))
    const detail = page.locator('#webhook-detail')
    await detail.getByRole('cell', { name: 'HTTP 500' }).waitFor()
    expect(await detail.locator('.response-start').first().textContent()).toBe(
      'failing on purpose (500)',
    )
    expect(await detail.locator('pre').first().textContent()).toMatch(/webhook-signature: v1,/)
    expect(JSON.parse((await detail.locator('pre').nth(1).textContent())!)).toMatchObject({
      type: 'message.sent',
      data: { id, recipient: 'dan@example.com' },
    })
    await screenshot(page, 'webhooks-failed')

    receiver.respond = () => 200
    await detail.getByRole('button', { name: 'Retry now' }).click()
    const retried = page.locator(
      `#webhook-list .delivery-item[data-id="${delivery}"][data-status="delivered"]`,
    )
    await retried.waitFor()
    await detail.getByRole('cell', { name: 'HTTP 200' }).waitFor()
    expect(await detail.locator('.attempts tbody tr').count()).toBe(2)
    expect(await detail.locator('.attempts .tag').textContent()).toBe('manual')
    // It stays open after the retry, and the row still says an attempt failed.
    expect(page.url()).toMatch(new RegExp(`[?&]open=${delivery}`))
    expect(await retried.locator('.delivery-attempts').textContent()).toBe('2 (1 failed)')
    await screenshot(page, 'webhooks-retried')
  })

  it('the Webhooks page: the endpoint once, filters by status, event and message, and the open delivery, all in the URL', async () => {
    const page = await visit('#/webhooks')
    // Frida's receiver is down; Gus's is fine (one answer for both: a send sets it anew).
    const answer: Receiver['respond'] = (request) =>
      request.body.data.recipient === 'frida@example.com' ? 503 : 200
    const failing = await send('frida@example.com', 'Filters', answer)
    const other = await send('gus@example.com', 'Filters too', answer)
    const rows = page.locator('#webhook-list tbody tr')
    await page.waitForFunction(
      ([a, b]) =>
        [...document.querySelectorAll('#webhook-list tbody tr')].filter(
          (tr) =>
            (tr.textContent?.includes(a!) || tr.textContent?.includes(b!)) &&
            tr.getAttribute('data-status') !== 'pending',
        ).length === 4,
      ['frida@example.com', 'gus@example.com'],
    )
    // The endpoint is said once, above the table, not on every row.
    expect(await page.locator('#webhooks-summary code.endpoint').count()).toBe(1)
    expect(await rows.filter({ hasText: receiver.url }).count()).toBe(0)
    expect(await page.locator('#webhook-list thead th').allTextContents()).toEqual([
      'Status',
      'Event',
      'Recipient',
      'Attempts',
      'Time',
    ])

    await page.getByLabel('Status').selectOption('failed')
    await page.waitForURL(/[?&]status=failed/)
    await expect.poll(() => rows.filter({ hasText: 'frida@example.com' }).count()).toBe(2)
    expect(await rows.filter({ hasText: 'gus@example.com' }).count()).toBe(0)
    await page.getByLabel('Event').selectOption('message.delivered')
    await page.waitForURL(/[?&]event=message\.delivered/)
    const frida = rows.filter({ hasText: 'frida@example.com' })
    await expect.poll(() => frida.count()).toBe(1)
    // (The deliveries of the tests before are listed too: every row is a failed message.delivered.)
    for (const text of await rows.allTextContents())
      expect(text).toMatch(/^Failedmessage\.delivered/)
    await frida.getByRole('link').click()
    await page.waitForURL(/[?&]open=whd_/)
    await page.locator('#webhook-detail', { hasText: 'frida@example.com' }).waitFor()
    await screenshot(page, 'webhooks-filtered')

    // All of it survives a reload: a view of the deliveries is a link.
    await page.reload()
    await page.locator('#status[data-state="live"]').waitFor()
    await page.locator('#webhook-detail', { hasText: 'frida@example.com' }).waitFor()
    expect(await page.getByLabel('Status').inputValue()).toBe('failed')
    expect(await page.getByLabel('Event').inputValue()).toBe('message.delivered')
    expect(await frida.count()).toBe(1)

    // By message: the start of an id is enough.
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.locator('#webhook-message').fill(other.slice(0, -4))
    await page.locator('#webhook-message').press('Enter')
    await page.waitForURL(new RegExp(`[?&]message=${other.slice(0, -4)}`))
    await expect.poll(() => rows.count()).toBe(2)
    expect(await rows.filter({ hasText: 'gus@example.com' }).count()).toBe(2)
    expect(failing).not.toBe(other)

    const phone = await visit(
      `#/webhooks?open=${await page.evaluate(() => new URLSearchParams(location.hash.split('?')[1]).get('open'))}`,
      {
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
      },
    )
    await phone.locator('#webhook-detail').waitFor()
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    )
    // The attempts read whole: the response's start under the result, not in a fifth column
    // past the edge of its box (a 390 px table of five columns was cut at "Response").
    const attempts = phone.locator('#webhook-detail .attempts')
    expect(
      await attempts.evaluate((table) => table.scrollWidth - table.parentElement!.clientWidth),
    ).toBeLessThanOrEqual(0)
    const response = attempts.locator('tbody tr').first().locator('.response-start:visible')
    expect(await response.textContent()).toMatch(/\S/)
    expect(
      await response.evaluate((el) => {
        const box = el.getBoundingClientRect()
        const region = el.closest('.table-scroll')!.getBoundingClientRect()
        return box.left >= region.left && box.right <= region.right + 0.5
      }),
    ).toBe(true)
    await screenshot(phone, 'webhooks-390')
  })

  it('the Webhooks page at 1280 px with a delivery open: every cell fits the table, a long recipient ellipsized with the whole address in its title', async () => {
    const page = await visit('#/webhooks')
    const address = 'margaret.hamilton+apollo-guidance-receipts@example-mission-control.test'
    await send(address, 'A long recipient')
    const row = page
      .locator('#webhook-list .delivery-item[data-status="delivered"]', {
        hasText: 'message.delivered',
      })
      .filter({ hasText: address })
    await row.waitFor()
    await row.getByRole('link').click()
    await page.locator('#webhook-detail', { hasText: address }).waitFor()
    // The table's box scrolls nothing sideways, and no cell pokes out of it or is cut inside
    // itself, but the recipient, which ellipsizes and says the whole address in its title.
    const overflow = await page.locator('#webhook-list').evaluate((table) => {
      const box = table.parentElement!
      const outer = box.getBoundingClientRect()
      const problems: string[] = []
      if (box.scrollWidth > box.clientWidth + 1)
        problems.push(`the table scrolls: ${box.scrollWidth} > ${box.clientWidth}`)
      for (const cell of table.querySelectorAll<HTMLElement>('th, td')) {
        const rect = cell.getBoundingClientRect()
        const text = cell.textContent?.trim() ?? ''
        if (rect.right > outer.right + 0.5 || rect.left < outer.left - 0.5)
          problems.push(`"${text}" is outside the table's box`)
        if (
          !cell.classList.contains('delivery-recipient') &&
          cell.scrollWidth > cell.clientWidth + 1
        )
          problems.push(`"${text}" is cut`)
      }
      return problems
    })
    expect(overflow).toEqual([])
    const recipient = row.locator('.delivery-recipient')
    expect(await recipient.getAttribute('title')).toBe(address)
    expect(await recipient.textContent()).toBe(address)
    // The time says its words whole ("just now", not "just n").
    const time = row.locator('.item-time')
    expect(await time.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true)
    await screenshot(page, 'webhooks-1280-open')
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
    expect(await page.getByRole('img', { name: '2 addresses' }).count()).toBe(1)
    // The message that did it, by its subject (a link to its delivery), not by its id.
    const message = page.locator(
      '#suppression-table tr[data-address="erin+bounce@example.com"] .suppressed-message a',
    )
    expect(await message.textContent()).toBe('Bounces')
    expect(await message.getAttribute('href')).toMatch(/^#\/messages\/msg_\w+\?tab=delivery$/)
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
