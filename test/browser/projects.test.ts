import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { seriousViolations } from './axe.js'
import { hasChromium, launch, screenshot } from './helpers.js'

/**
 * The inbox of a sandbox with projects: it asks for a token, shows that project's mail and its
 * name, and signs out; axe finds nothing serious on the sign-in or the signed-in page, light or
 * dark, wide or narrow.
 */

const ACME = 'sandbox_acme_ci_0123456789'
const BILLING = 'sandbox_billing_0123456789'

describe.skipIf(!hasChromium)('the inbox with projects', { timeout: 120_000 }, () => {
  let browser: Browser
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox(
      { 'welcome.liquid': '<h1>Hi {{ name }}</h1>' },
      { projects: { projects: { acme: { tokens: [ACME] }, billing: { tokens: [BILLING] } } } },
    )
    for (const [token, subject] of [
      [ACME, 'Welcome to Acme'],
      [BILLING, 'Your invoice'],
    ] as const) {
      const sent = await sandbox.send(
        {
          template: 'welcome',
          from: 'a@acme.test',
          to: 'ada@example.com',
          subject,
          templateVariables: { name: 'Ada' },
        },
        token,
      )
      expect(sent.status).toBe(201)
    }
    browser = await launch()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await sandbox?.close()
  })

  async function signIn(page: Page, token: string) {
    await page.goto(`${sandbox.url}/_sandbox/`)
    await page.getByLabel('Token').fill(token)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }

  it('asks for a token, shows that project only, names it, and signs out', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    try {
      await signIn(page, 'sandbox_not_listed')
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('No project')
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('token')
      await signIn(page, BILLING)
      await page.locator('#status[data-state="live"]').waitFor()
      await page.locator('#message-list a[data-id]').first().waitFor()
      const subjects = await page.locator('#message-list a[data-id]').allTextContents()
      expect(subjects.join(' ')).toContain('Your invoice')
      expect(subjects.join(' ')).not.toContain('Welcome to Acme')
      expect(await page.locator('#session').textContent()).toContain('billing')
      // The token is in an HttpOnly cookie: no script of the page can read it, and no URL has it.
      expect(await page.evaluate(() => document.cookie)).toBe('')
      expect(page.url()).not.toContain(BILLING)
      await screenshot(page, 'projects-signed-in-1280')
      // What arrives live is the project's own too.
      await sandbox.send(
        {
          template: 'welcome',
          from: 'a@acme.test',
          to: 'b@example.com',
          subject: 'Acme again',
          templateVariables: { name: 'B' },
        },
        ACME,
      )
      await sandbox.send(
        {
          template: 'welcome',
          from: 'a@acme.test',
          to: 'b@example.com',
          subject: 'Billing again',
          templateVariables: { name: 'B' },
        },
        BILLING,
      )
      await page.locator('#message-list a[data-id]', { hasText: 'Billing again' }).waitFor()
      expect(await page.locator('#message-list').textContent()).not.toContain('Acme again')
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByLabel('Token').waitFor()
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const)
    it(`the sign-in and the signed-in page: no serious axe violation at ${width} px, light and dark`, async () => {
      const found: string[] = []
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ viewport: { width, height }, colorScheme })
        const page = await context.newPage()
        try {
          await page.goto(`${sandbox.url}/_sandbox/`)
          await page.getByLabel('Token').waitFor()
          for (const problem of await seriousViolations(page))
            found.push(`sign-in, ${colorScheme}: ${problem}`)
          await screenshot(page, `projects-sign-in-${width}-${colorScheme}`)
          await signIn(page, ACME)
          await page.locator('#message-list a[data-id]').first().waitFor()
          for (const problem of await seriousViolations(page))
            found.push(`signed in, ${colorScheme}: ${problem}`)
          await screenshot(page, `projects-signed-in-${width}-${colorScheme}`)
        } finally {
          await context.close()
        }
      }
      expect(found).toEqual([])
    })
})
