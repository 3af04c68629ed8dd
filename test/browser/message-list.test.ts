import type { Page, Request } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { hasChromium, inboxSuite } from './helpers.js'

/**
 * The message list as it stays fast: rows drawn one by one as events come (never the whole list
 * again), pages of summaries fetched once each, and a list that scrolls on its own. Every wait is
 * for the event's effect in the page, never a fixed time.
 */

describe.skipIf(!hasChromium)('the message list, row by row', { timeout: 60_000 }, () => {
  // Statuses change only when a test says so (a simulated event): no step comes by itself.
  const suite = inboxSuite(() =>
    startTestSandbox({ 'hello.liquid': '<p>Hello {{ name }}</p>' }, { deliveryDelay: 3_600_000 }),
  )
  const { visit } = suite

  async function send(subject: string, to = 'Ada <ada@example.com>'): Promise<string> {
    const response = await suite.sandbox.send({
      template: 'hello',
      from: 'Acme <hello@acme.test>',
      to,
      subject,
      templateVariables: { name: 'Ada' },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  /** n messages, "Bulk 0" the oldest; 25 at a time. */
  async function bulk(n: number): Promise<void> {
    for (let start = 0; start < n; start += 25)
      await Promise.all(
        Array.from({ length: Math.min(25, n - start) }, (_, i) => send(`Bulk ${start + i}`)),
      )
  }

  const rowCount = (page: Page) =>
    page.evaluate(() => document.querySelectorAll('#message-list a[data-id]').length)
  const waitForRows = (page: Page, n: number) =>
    page.waitForFunction(
      (n) => document.querySelectorAll('#message-list a[data-id]').length === n,
      n,
    )

  /** Marks every row element as it is now; `unmarked` lists the rows whose element is not one of those (drawn anew). */
  const mark = (page: Page) =>
    page.evaluate(() => {
      for (const link of document.querySelectorAll<HTMLElement>('#message-list a[data-id]'))
        (link as HTMLElement & { mark?: string }).mark = link.dataset.id
    })
  const unmarked = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement & { mark?: string }>('#message-list a[data-id]')]
        .filter((link) => link.mark !== link.dataset.id)
        .map((link) => link.dataset.id),
    )

  /**
   * The list pages (`GET /_sandbox/api/messages?…`) the page asks for from now on. A count
   * (`limit=1`, asked once the stream is quiet under a search) fetches no rows: not one of them.
   */
  function listRequests(page: Page): Request[] {
    const seen: Request[] = []
    page.on('request', (request) => {
      const url = new URL(request.url())
      if (
        url.pathname === '/_sandbox/api/messages' &&
        request.method() === 'GET' &&
        url.searchParams.get('limit') !== '1'
      )
        seen.push(request)
    })
    return seen
  }

  it('draws a live message as one new row: the rows already there are the same elements', async () => {
    const [, second] = [await send('First'), await send('Second'), await send('Third')]
    const page = await visit()
    await waitForRows(page, 3)
    await mark(page)
    // The keyboard on a row stays on that very element.
    await page.locator(`#message-list a[data-id="${second}"]`).focus()

    const id = await send('Fourth, live')
    await page.locator(`#message-list a[data-id="${id}"]`).waitFor()
    expect(await rowCount(page)).toBe(4)
    expect(await unmarked(page)).toEqual([id])
    expect(
      await page.evaluate(() => (document.activeElement as HTMLElement & { mark?: string }).mark),
    ).toBe(second)

    // A deletion takes out its row and nothing else.
    await fetch(`${suite.sandbox.url}/_sandbox/api/messages/${second}`, { method: 'DELETE' })
    await waitForRows(page, 3)
    expect(await unmarked(page)).toEqual([id])
    // The keyboard stays in the list, at the deleted row's place.
    expect(
      await page.evaluate(() => document.activeElement?.closest('#message-list') !== null),
    ).toBe(true)
  })

  it('changes only the row a status event names: its badge in place, or the row leaves a status: search', async () => {
    const ids = [await send('One'), await send('Two'), await send('Three')]
    const page = await visit()
    await waitForRows(page, 3)
    await mark(page)
    const simulate = (id: string, type: string) =>
      fetch(`${suite.sandbox.url}/_sandbox/api/messages/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type }),
      }).then((r) => expect(r.status).toBe(201))
    const badge = (id: string) => `#message-list a[data-id="${id}"] .status-badge`

    await simulate(ids[1]!, 'bounced')
    await page.waitForFunction(
      (selector) => document.querySelector(selector)?.textContent === 'Bounced',
      badge(ids[1]!),
    )
    expect(await unmarked(page)).toEqual([])
    expect(await page.locator(badge(ids[0]!)).textContent()).toBe('Sent')

    // Searching status:sent, a message that is delivered leaves; the other rows stay as they were.
    const requests = listRequests(page)
    await page.fill('#search', 'status:sent')
    await waitForRows(page, 2)
    await page.waitForFunction(() => document.getElementById('message-count')?.textContent === '2')
    await mark(page)
    const before = requests.length
    await simulate(ids[2]!, 'delivered')
    await waitForRows(page, 1)
    await page.waitForFunction(() => document.getElementById('message-count')?.textContent === '1')
    expect(await unmarked(page)).toEqual([])
    expect(await page.locator('#message-list a[data-id]').getAttribute('data-id')).toBe(ids[0])
    expect(requests.length, 'list requests for the status change').toBe(before)
  })

  it('with a search, a live message that matches joins without a request; one that does not stays out', async () => {
    await send('For Bob', 'Bob <bob@example.com>')
    await send('For Ada')
    const page = await visit('#/?q=to%3Abob')
    await waitForRows(page, 1)
    await mark(page)
    const requests = listRequests(page)

    await send('Not for Bob')
    const id = await send('Also for Bob', 'Bob <bob@example.com>')
    await page.locator(`#message-list a[data-id="${id}"]`).waitFor()
    await page.waitForFunction(() => document.getElementById('message-count')?.textContent === '2')
    expect(await page.locator('#message-list .item-subject').allTextContents()).toEqual([
      'Also for Bob',
      'For Bob',
    ])
    expect(await unmarked(page)).toEqual([id])
    expect(requests.map((r) => r.url())).toEqual([])
  })

  it('loads one page of summaries once; "Show more" fetches the next page only, and says what is not shown', async () => {
    await bulk(150)
    // A page of its own: the requests are counted from before it loads.
    const context = await suite.browser.newContext({ viewport: { width: 1280, height: 800 } })
    try {
      const page = await context.newPage()
      const seen = listRequests(page)
      await page.goto(`${suite.sandbox.url}/_sandbox/`)
      await page.locator('#status[data-state="live"]').waitFor()
      await waitForRows(page, 100)
      const note = page.locator('#message-more-count')
      await expect.poll(() => note.textContent()).toBe('Showing 100 of 150; 50 not shown')
      expect(await note.isVisible()).toBe(true)
      expect(seen.map((r) => new URL(r.url()).search)).toEqual(['?fields=summary&limit=100'])
      const first = await seen[0]!.response()
      const body = (await first!.json()) as { messages: Record<string, unknown>[] }
      expect(Object.keys(body.messages[0]!)).not.toContain('html')

      await mark(page)
      await page.getByRole('button', { name: 'Show more' }).click()
      await waitForRows(page, 150)
      // The next page only (from the last row shown, which it overlaps), not the first 100 again.
      expect(seen.map((r) => new URL(r.url()).search)).toEqual([
        '?fields=summary&limit=100',
        '?fields=summary&limit=101&offset=99',
      ])
      const next = (await (await seen[1]!.response())!.json()) as { messages: unknown[] }
      expect(next.messages).toHaveLength(51)
      expect((await unmarked(page)).length).toBe(50)
      expect(await page.locator('#message-list .item-subject').last().textContent()).toBe('Bulk 0')
      expect(await note.isVisible()).toBe(false)
      expect(await page.getByRole('button', { name: 'Show more' }).isVisible()).toBe(false)
    } finally {
      await context.close()
    }
  })

  it('the open message says it is gone when a clear takes it', async () => {
    const id = await send('Soon cleared')
    const page = await visit(`#/messages/${id}`)
    await page.locator('#message-subject', { hasText: 'Soon cleared' }).waitFor()
    expect(
      (await fetch(`${suite.sandbox.url}/_sandbox/api/messages`, { method: 'DELETE' })).status,
    ).toBe(204)
    await page.getByText('This message was deleted, or dropped by --max-messages.').waitFor()
  })

  it('scrolls the list and the open message each in its own pane: the page itself does not move', async () => {
    await bulk(60)
    const id = await send('The open one')
    const page = await visit(`#/messages/${id}?tab=text`)
    await page.locator('#message-subject', { hasText: 'The open one' }).waitFor()
    await waitForRows(page, 61)
    const subjectTop = () =>
      page.locator('#message-subject').evaluate((el) => el.getBoundingClientRect().top)
    const top = await subjectTop()

    // The list scrolls under the wheel; the open message stays where it is.
    const list = page.locator('#message-list-pane')
    const box = (await list.boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.wheel(0, 3000)
    await page.waitForFunction(() => document.getElementById('message-list-pane')!.scrollTop > 0)
    expect(await subjectTop()).toBe(top)
    // Nothing sticks out of the window for the page to scroll by (a find in the page, a focus, a script).
    expect(
      await page.evaluate(() => document.scrollingElement!.scrollHeight <= window.innerHeight),
    ).toBe(true)
    await page.evaluate(() => window.scrollTo(0, 5000))
    expect(await page.evaluate(() => window.scrollY)).toBe(0)
    expect(await subjectTop()).toBe(top)
    // The keyboard on the last row: the list scrolls to it, the page does not.
    await page.locator('#message-list a[data-id]').last().focus()
    expect(await page.evaluate(() => window.scrollY)).toBe(0)
    expect(await subjectTop()).toBe(top)
  })

  it('on a phone (390 px) the list is the page: it scrolls with the window, the message opens in its place', async () => {
    await bulk(30)
    const page = await visit('', {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    })
    await waitForRows(page, 30)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await page.evaluate(() => window.scrollTo(0, 1000))
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
    await page.locator('#message-list a[data-id]').nth(10).click()
    await page.locator('#message-subject').waitFor()
    expect(await page.locator('#message-list').isVisible()).toBe(false)
  })

  it('keeps the DOM small: a page of rows with a thousand messages stored', async () => {
    const small = await startTestSandbox({ 'hello.liquid': '<p>Hello</p>' })
    try {
      const body = JSON.stringify({
        template: 'hello',
        from: 'a@example.com',
        to: 'b@example.com',
        subject: 'Many',
      })
      for (let start = 0; start < 1000; start += 50)
        await Promise.all(
          Array.from({ length: 50 }, () =>
            small.send(JSON.parse(body)).then((r) => r.arrayBuffer()),
          ),
        )
      const opened = await suite.open(small.inboxUrl)
      await waitForRows(opened.page, 100)
      expect(
        await opened.page.evaluate(() => document.getElementsByTagName('*').length),
      ).toBeLessThanOrEqual(5000)
      // Ten elements or fewer per row.
      expect(
        await opened.page.evaluate(
          () => document.querySelector('#message-list > li')!.getElementsByTagName('*').length + 1,
        ),
      ).toBeLessThanOrEqual(10)
      // Before its server goes: a page left open would log its reconnect attempts as errors.
      await opened.page.close()
    } finally {
      await small.close()
    }
  })
})
