import { describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { hasChromium, inboxSuite, readTree, screenshot } from './helpers.js'

/** The inbox lists recent rejected sends above the messages: live, folded, hidden when none. */

describe.skipIf(!hasChromium)('rejected sends in the inbox', { timeout: 60_000 }, () => {
  const suite = inboxSuite(async (fixturesDir) =>
    startTestSandbox(await readTree('templates'), { fixtures: fixturesDir }),
  )

  const welcome = (extra: Record<string, unknown> = {}) => ({
    template: 'welcome',
    from: 'Acme <hello@acme.test>',
    to: 'Ada <ada@example.com>',
    subject: 'Welcome',
    templateVariables: { name: 'Ada' },
    ...extra,
  })

  it('shows none at first, then each rejection as it happens, with its code, recipients and message', async () => {
    const page = await suite.visit()
    await page.getByText('No messages yet').waitFor()
    expect(await page.locator('#rejections').isHidden()).toBe(true)

    expect((await suite.sandbox.send(welcome())).status).toBe(422)
    await page.getByText('1 send rejected recently').waitFor()
    await page.locator('#rejections summary').click()
    const item = page.locator('#rejections .rejection').first()
    await expect.poll(() => item.textContent()).toContain('422 missing_variables')
    expect(await item.textContent()).toContain('welcome → Ada <ada@example.com>')
    expect(await item.textContent()).toContain('dashboardUrl')

    expect((await suite.sandbox.send(welcome(), 'live_0123456789abcdef')).status).toBe(403)
    await page.getByText('2 sends rejected recently').waitFor()
    expect(await page.locator('#rejections .rejection').first().textContent()).toContain(
      '403 sandbox_token_required',
    )
    await screenshot(page, 'rejections')

    // "Clear all" (a full clear) forgets them.
    await suite.sandbox.clear()
    await page.locator('#rejections[hidden]').waitFor({ state: 'attached' })
  })

  it('a page opened later loads the ones already there', async () => {
    await suite.sandbox.send(welcome({ subject: 'x'.repeat(1200) }))
    const page = await suite.visit()
    await page.getByText('1 send rejected recently').waitFor()
  })
})
