import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { hasChromium, inboxSuite, screenshot } from './helpers.js'

/**
 * The Links tab of an open message, end to end: the record's links and codes as the server read
 * them (docs/testing.md), copied to the clipboard, a click simulated and seen on the Delivery tab.
 * Every wait is for the thing itself.
 */

// A logo as a data: URL: the frame loads it without a network (a remote image would be a console error).
const LOGO = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="28"><rect width="96" height="28" rx="6" fill="#3b5bdb"/></svg>',
).toString('base64')}`
const LONG = `https://acme.test/account/email-preferences/unsubscribe?list=product-updates&token=${'a1b2c3d4'.repeat(8)}`

const HTML = `<h1>Sign in to Acme</h1>
<p>Use the button, or type the code below.</p>
<table role="presentation"><tr><td class="button"><a href="https://acme.test/sign-in?token={{ token }}&amp;from=email" style="display:inline-block;padding:10px 18px;background:#3b5bdb;color:#fff;border-radius:6px">Sign in</a></td></tr></table>
<p>Your sign-in code is <strong>{{ code }}</strong>. Order #20231 is on its way.</p>
<p><a href="https://acme.test/"><img src="${LOGO}" alt="Acme"></a></p>
<p><a href="${LONG}">Unsubscribe</a> · <a href="https://acme.test/t"><img src="${LOGO}"></a></p>`
const TEXT = `Sign in to Acme: https://acme.test/sign-in?token={{ token }}&from=email

Your sign-in code is {{ code }}. Order #20231 is on its way.

Trouble signing in? https://acme.test/help`

const SIGN_IN = 'https://acme.test/sign-in?token=t0k3n&from=email'
const ROWS = [
  ['Sign in', SIGN_IN],
  ['Acme', 'https://acme.test/'],
  ['Unsubscribe', LONG],
  ['(no text)', 'https://acme.test/t'],
  ['(from the text part)', 'https://acme.test/help'],
]

describe.skipIf(!hasChromium)('the Links tab of a message', { timeout: 60_000 }, () => {
  const suite = inboxSuite(() =>
    startTestSandbox({
      'sign-in.liquid': HTML,
      'sign-in.txt.liquid': TEXT,
      'plain.liquid': '<p>Nothing to click here.</p>',
    }),
  )
  const { visit } = suite

  async function send(fields: Record<string, unknown> = {}): Promise<string> {
    const response = await suite.sandbox.send({
      template: 'sign-in',
      from: 'Acme <hello@acme.test>',
      to: 'Ada Lovelace <ada@example.com>',
      subject: 'Your sign-in link and code',
      templateVariables: { token: 't0k3n', code: '482 913' },
      ...fields,
    })
    const body = (await response.json()) as { id: string }
    expect(response.status, JSON.stringify(body)).toBe(201)
    return body.id
  }

  /** Opens the message from the list, then its Links tab, as a person would. */
  async function openLinks(page: Page, id: string): Promise<void> {
    await page.locator(`#message-list a[data-id="${id}"]`).click()
    await page.getByRole('tab', { name: 'Links' }).click()
    await page.locator('#links').waitFor()
  }

  /**
   * Clicks a Copy button and waits until the "Copied" state held: the live region and the button
   * said it at one moment. That state lasts two seconds and the live region says the next thing
   * (a message's late "New message" announcement) as soon as it comes, so on a loaded machine it
   * can fall between two polls: an observer set before the click records the moment it holds.
   */
  async function copied(
    page: Page,
    row: string,
    name: string,
    click: () => Promise<void>,
  ): Promise<void> {
    await page.evaluate(
      ({ row, name }) => {
        const w = window as unknown as { copiedSeen?: boolean }
        w.copiedSeen = false
        const holds = () => {
          const button = document.querySelector(`${row} .copy[data-copied]`)
          return (
            document.getElementById('announcer')?.textContent === `Copied ${name}` &&
            button?.textContent === 'Copied' &&
            button.getAttribute('aria-label') === `Copied ${name}`
          )
        }
        new MutationObserver((_, observer) => {
          if (!holds()) return
          w.copiedSeen = true
          observer.disconnect()
        }).observe(document.body, {
          subtree: true,
          childList: true,
          characterData: true,
          attributes: true,
        })
      },
      { row, name },
    )
    await click()
    await page.waitForFunction(() => (window as unknown as { copiedSeen?: boolean }).copiedSeen)
  }

  const rows = (page: Page) =>
    page
      .locator('.link-row')
      .evaluateAll((items) =>
        items.map((li) => [
          li.querySelector('.link-text')!.textContent,
          li.querySelector('.link-href')!.textContent,
        ]),
      )

  it('lists the links and codes, copies them, and simulates a click the Delivery tab shows', async () => {
    const page = await visit('', { permissions: ['clipboard-read', 'clipboard-write'] })
    const id = await send()
    await openLinks(page, id)

    const list = page.getByRole('list', { name: 'Links (5)' })
    expect(await list.count()).toBe(1)
    expect(await rows(page)).toEqual(ROWS)
    expect(
      await page.getByRole('list', { name: 'Codes (1)' }).locator('.otp').allTextContents(),
    ).toEqual(['482913'])
    await screenshot(page, 'links-tab')

    // Copy: the clipboard has the URL, the button says so, and so does the live region.
    await copied(page, '.link-row', SIGN_IN, () =>
      page.getByRole('button', { name: `Copy ${SIGN_IN}`, exact: true }).click(),
    )
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SIGN_IN)
    await copied(page, '.code-row', 'code 482913', () =>
      page.getByRole('button', { name: 'Copy code 482913', exact: true }).click(),
    )
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('482913')
    await screenshot(page, 'links-tab-copied')

    // An image-only link without alt text may still be clicked, by its URL.
    expect(
      await page
        .getByRole('button', { name: 'Simulate a click on https://acme.test/t', exact: true })
        .count(),
    ).toBe(1)
    await page.getByRole('button', { name: 'Simulate a click on “Sign in”', exact: true }).click()
    await page
      .locator('.link-row', { hasText: 'Sign in' })
      .locator('.link-clicks:text-is("Clicked once")')
      .waitFor()
    await screenshot(page, 'links-tab-clicked')
    await page.getByRole('tab', { name: 'Delivery' }).click()
    await page
      .locator('.timeline-event[data-type="clicked"] .timeline-detail', { hasText: SIGN_IN })
      .waitFor()
    const message = await suite.sandbox.api(`/_sandbox/api/messages/${id}`)
    const events = ((await message.json()) as { recipients: { events: { type: string }[] }[] })
      .recipients[0]!.events
    expect(events.filter((e) => e.type === 'clicked')).toMatchObject([
      { type: 'clicked', url: SIGN_IN, simulated: true },
    ])
  })

  it('is reachable by keyboard, with a visible focus, and nothing is wider than a phone (390 px)', async () => {
    const page = await visit('', {
      viewport: { width: 390, height: 844 },
      permissions: ['clipboard-read', 'clipboard-write'],
    })
    const id = await send()
    await openLinks(page, id)
    // From the selected tab, Tab goes into the panel: the code's Copy button, then the first link's.
    await page.getByRole('tab', { name: 'Links' }).focus()
    const focused = () =>
      page.evaluate(() => ({
        name: document.activeElement?.getAttribute('aria-label'),
        outline: getComputedStyle(document.activeElement!).outlineStyle,
      }))
    await page.keyboard.press('Tab')
    expect(await focused()).toEqual({ name: 'Copy code 482913', outline: 'solid' })
    await page.keyboard.press('Tab')
    expect(await focused()).toEqual({ name: `Copy ${SIGN_IN}`, outline: 'solid' })
    await page.keyboard.press('Enter')
    await page.locator(`#announcer:text-is("Copied ${SIGN_IN}")`).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(SIGN_IN)

    // Nothing wider than the phone: the long URL wraps (nothing overflows its box, which a
    // bounding box alone would not show), and the panel never scrolls sideways.
    const overflow = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      panel: document.getElementById('message-panel')!.scrollWidth,
      widest: Math.max(
        ...[...document.querySelectorAll('#links *')].map((e) => e.getBoundingClientRect().right),
      ),
      overflowing: [...document.querySelectorAll<HTMLElement>('#links *')]
        .filter(
          (e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== 'inline',
        )
        .map((e) => e.className),
    }))
    expect(overflow.page).toBeLessThanOrEqual(390)
    expect(overflow.panel).toBeLessThanOrEqual(390)
    expect(overflow.widest).toBeLessThanOrEqual(390)
    expect(overflow.overflowing).toEqual([])
    const tab = await page.getByRole('tab', { name: 'Links' }).boundingBox()
    expect(tab!.x + tab!.width).toBeLessThanOrEqual(390)
    await screenshot(page, 'links-tab-narrow')
  })

  it('in dark colours too', async () => {
    const page = await visit('', { colorScheme: 'dark' })
    const id = await send()
    await openLinks(page, id)
    await screenshot(page, 'links-tab-dark')
  })

  it('with several recipients, the click is the chosen recipient’s', async () => {
    const page = await visit()
    const id = await send({ to: ['ada@example.com', 'bob@example.com'] })
    await openLinks(page, id)
    await page.getByLabel('Clicks by').selectOption('bob@example.com')
    await page.getByRole('button', { name: 'Simulate a click on “Acme”', exact: true }).click()
    await page
      .locator('.link-row', { hasText: 'Acme' })
      .locator('.link-clicks:text-is("Clicked once")')
      .waitFor()
    const message = await suite.sandbox.api(`/_sandbox/api/messages/${id}`)
    const recipients = (
      (await message.json()) as {
        recipients: { address: string; events: { type: string; url?: string }[] }[]
      }
    ).recipients
    expect(recipients.map((r) => r.events.filter((e) => e.type === 'clicked'))).toMatchObject([
      [],
      [{ url: 'https://acme.test/' }],
    ])
  })

  it('says so when a message has no links and no code', async () => {
    const page = await visit()
    const id = await send({ template: 'plain', templateVariables: {} })
    await openLinks(page, id)
    const panel = (await page.locator('#links').textContent()) ?? ''
    expect(panel).toContain('Links (0)')
    expect(panel).toContain('The message has no links.')
    expect(panel).toContain('No one-time code')
  })
})
