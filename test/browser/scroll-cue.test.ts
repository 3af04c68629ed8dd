import type { Locator } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { seriousViolations } from './axe.js'
import { hasChromium, inboxSuite, readTree, screenshot } from './helpers.js'

/**
 * docs/inbox.md, on a phone: the sections (Suppressions past the edge) and a message's tabs
 * (Checks past the edge) sit in rows that scroll sideways, and each says so with an arrow at
 * each edge that has more beyond it, gone at the end it reached; the arrow takes no click and no
 * screen reader's time, and axe finds nothing serious, light or dark.
 */

const PHONE = { viewport: { width: 390, height: 844 } }

describe.skipIf(!hasChromium)('rows that scroll sideways', { timeout: 60_000 }, () => {
  const suite = inboxSuite(async () => startTestSandbox(await readTree('templates')))

  async function send(): Promise<string> {
    const response = await suite.sandbox.send({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: 'Grace Hopper <grace@example.com>',
      subject: 'Welcome to Acme',
      templateVariables: { name: 'Grace', dashboardUrl: 'https://acme.test/dashboard' },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  /** Scrolls a row to its end, or back to its start. */
  const scrollTo = (row: Locator, end: boolean) =>
    row.evaluate((el, toEnd) => {
      el.scrollLeft = toEnd ? el.scrollWidth : 0
    }, end)

  /** The arrow's glyph as drawn, or 'none'. */
  const arrow = (row: Locator, side: '::before' | '::after') =>
    row.evaluate((el, pseudo) => getComputedStyle(el, pseudo).content, side)

  it('an arrow at each edge with more beyond it, on the sections and the tabs, light and dark', async () => {
    const id = await send()
    const found: string[] = []
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await suite.visit(`#/messages/${id}`, { ...PHONE, colorScheme })
      const sections = page.locator('.sections ul')
      const tabs = page.getByRole('tablist', { name: 'Message views' })
      await tabs.waitFor()
      for (const row of [sections, tabs]) {
        await scrollTo(row, false)
        await expect.poll(() => row.getAttribute('data-more')).toBe('end')
        expect(await arrow(row, '::after')).toContain('›')
        expect(await arrow(row, '::before')).toBe('none')
      }
      for (const problem of await seriousViolations(page)) found.push(`${colorScheme}: ${problem}`)
      await screenshot(page, `scroll-cue-390-start-${colorScheme}`)
      for (const row of [sections, tabs]) {
        await scrollTo(row, true)
        await expect.poll(() => row.getAttribute('data-more')).toBe('start')
        expect(await arrow(row, '::before')).toContain('‹')
        expect(await arrow(row, '::after')).toBe('none')
      }
      await screenshot(page, `scroll-cue-390-end-${colorScheme}`)
      // The arrow lies over the last tab's edge and takes no click: the tab under it gets it.
      await page.getByRole('tab', { name: /Checks/ }).click()
      await expect
        .poll(() => page.getByRole('tab', { name: /Checks/ }).getAttribute('aria-selected'))
        .toBe('true')
    }
    expect(found).toEqual([])
  })

  it('no arrow where everything fits (1280 px)', async () => {
    const id = await send()
    const page = await suite.visit(`#/messages/${id}`)
    await page.getByRole('tablist', { name: 'Message views' }).waitFor()
    expect(await page.locator('.sections ul').getAttribute('data-more')).toBeNull()
    expect(
      await page.getByRole('tablist', { name: 'Message views' }).getAttribute('data-more'),
    ).toBeNull()
    await screenshot(page, 'scroll-cue-1280')
  })
})
