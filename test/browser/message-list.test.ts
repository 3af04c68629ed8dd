import { describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { hasChromium, inboxSuite, readTree } from './helpers.js'

/**
 * The message list in Chromium: it fetches summaries a page at a time, says how many it does not
 * show, changes single rows as events come, and scrolls apart from the open message.
 */
describe.skipIf(!hasChromium)('the inbox message list', { timeout: 60_000 }, () => {
  const suite = inboxSuite(async () => startTestSandbox(await readTree('templates')))

  const send = async (n: number) => {
    const response = await suite.sandbox.send({ template: 'welcome', from: 'Acme <hello@acme.test>', to: `user${n}@example.com`, subject: `Message ${n}`, templateVariables: { name: 'Ada', product: 'Acme', dashboardUrl: 'https://example.com' } })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }
  const sendMany = async (count: number) => {
    for (let i = 0; i < count; i += 25) await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => send(i + j)))
  }

  it('shows how many are not shown, and "Show more" fetches the next page only, as summaries', async () => {
    await sendMany(150)
    const lists: string[] = []
    const page = await suite.visit('', {})
    page.on('request', (request) => {
      if (request.url().includes('/_sandbox/api/messages?')) lists.push(request.url())
    })
    await expect.poll(() => page.locator('#message-more-count').textContent()).toMatch(/Showing 100 of 150; 50 not shown/)
    await page.locator('#message-more').click()
    await expect.poll(() => page.locator('a[data-id]').count()).toBe(150)
    expect(lists).toHaveLength(1)
    const asked = new URL(lists[0]!).searchParams
    expect(asked.get('fields')).toBe('summary')
    expect(Number(asked.get('offset'))).toBe(99)
    expect(await page.locator('#message-more-count').isVisible()).toBe(false)
  })

  it('a live message adds one row and leaves the others as they are; a status changes one badge', async () => {
    const first = await send(1)
    const page = await suite.visit()
    await page.locator(`a[data-id="${first}"]`).waitFor()
    // Mark the existing row's element: a list rebuilt from scratch would lose the mark.
    await page.locator(`a[data-id="${first}"]`).evaluate((a) => ((a as HTMLElement & { marked?: boolean }).marked = true))
    const second = await send(2)
    await page.locator(`a[data-id="${second}"]`).waitFor()
    expect(await page.locator(`a[data-id="${first}"]`).evaluate((a) => (a as HTMLElement & { marked?: boolean }).marked === true)).toBe(true)
    expect(await page.locator('a[data-id]').first().getAttribute('data-id')).toBe(second)
    // A simulated bounce changes that row's badge, in place.
    const simulated = await fetch(`${suite.sandbox.url}/_sandbox/api/messages/${first}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'bounced' }) })
    expect(simulated.status).toBe(201)
    await expect.poll(() => page.locator(`a[data-id="${first}"]`).textContent()).toMatch(/bounced/i)
    expect(await page.locator(`a[data-id="${first}"]`).evaluate((a) => (a as HTMLElement & { marked?: boolean }).marked === true)).toBe(true)
  })

  it('the list scrolls on its own: the open message stays in view', async () => {
    await sendMany(60)
    const page = await suite.visit('', { viewport: { width: 1280, height: 720 } })
    await page.locator('a[data-id]').first().click()
    await page.locator('#view-messages[data-open="true"]').waitFor()
    const heading = page.locator('.message-head h2')
    await heading.waitFor()
    const before = await heading.boundingBox()
    await page.locator('a[data-id]').last().scrollIntoViewIfNeeded()
    // The list moved inside its pane; the page and the open message did not.
    expect(await page.evaluate(() => window.scrollY)).toBe(0)
    expect(await heading.boundingBox()).toEqual(before)
    expect(await page.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight + 1)).toBe(true)
  })
})
