import { writeFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { startTestSandbox, writeFiles } from '../helpers/sandbox.js'
import { hasChromium, inboxSuite, readTree, screenshot } from './helpers.js'

/**
 * The inbox page, end to end: a real sandbox in-process, the page in headless Chromium. Every
 * test also fails on any console error or uncaught exception in the page.
 */

const PAYLOAD = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`

describe.skipIf(!hasChromium)('the inbox page', { timeout: 60_000 }, () => {
  const suite = inboxSuite(async (fixturesDir) => {
    await writeFiles(fixturesDir, {
      ...(await readTree('fixtures')),
      'live.json': JSON.stringify({ who: 'Ada' }),
      'needs.json': JSON.stringify({ present: 'here' }),
    })
    return startTestSandbox(
      {
        ...(await readTree('templates')),
        'live.liquid':
          '---\ndescription: Edited by the tests\n---\n<p id="version">Version one</p><p>Hello {{ who }}</p>{% render "partials/sig" %}',
        'partials/sig.liquid': '<p id="sig">Signed: first</p>',
        'escaped.liquid': '<p id="hello">Hi {{ name }}</p>',
        'raw.liquid': '<div>{{ body | raw }}</div>',
        'needs.liquid': '<p>{{ present }} and {{ absent }}</p>',
      },
      { fixtures: fixturesDir },
    )
  })
  const { visit } = suite

  async function send(fields: Record<string, unknown> = {}): Promise<string> {
    const response = await suite.sandbox.send({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: 'Ada Lovelace <ada@example.com>',
      subject: 'Welcome to Acme',
      templateVariables: {
        name: 'Ada',
        product: 'Acme Cloud',
        dashboardUrl: 'https://example.com/dashboard',
      },
      ...fields,
    })
    const body = (await response.json()) as { id: string }
    expect(response.status, JSON.stringify(body)).toBe(201)
    return body.id
  }

  /** Three messages like an application would send, oldest first. */
  async function seed(): Promise<{ welcome: string; reset: string; receipt: string }> {
    const welcome = await send()
    const reset = await send({
      template: 'password-reset',
      from: 'Acme Security <security@acme.test>',
      to: ['bob@example.com', 'Carol Danvers <carol@example.com>'],
      subject: 'Reset your password',
      templateVariables: { name: 'Bob', resetUrl: 'https://example.com/reset?token=3f9a2c7e' },
    })
    const receipt = await send({
      template: 'order-receipt',
      from: 'Acme Shop <shop@acme.test>',
      to: 'Grace Hopper <grace@example.com>',
      subject: 'Your receipt for order #1042',
      templateVariables: {
        customer: { name: 'Grace Hopper' },
        order: {
          id: '1042',
          url: 'https://example.com/orders/1042',
          items: [{ name: 'Analytical Engine manual', quantity: 1, price: '24.00' }],
          total: '24.00',
        },
        currency: 'EUR',
      },
    })
    return { welcome, reset, receipt }
  }

  const items = (page: Page) => page.locator('#message-list a[data-id]')
  const item = (page: Page, text: string) =>
    page.locator('#message-list a[data-id]', { hasText: text })
  const subjects = (page: Page) => items(page).locator('.item-subject').allTextContents()
  const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth)
  const focusedId = (page: Page) =>
    page.evaluate(
      () =>
        (document.activeElement as HTMLElement | null)?.dataset.id ??
        document.activeElement?.id ??
        null,
    )
  const waitForCount = (page: Page, n: number) =>
    page.waitForFunction(
      (n) => document.querySelectorAll('#message-list a[data-id]').length === n,
      n,
    )
  const apiTotal = async () =>
    (
      (await (await fetch(`${suite.sandbox.url}/_sandbox/api/messages`)).json()) as {
        total: number
      }
    ).total

  it('shows a new message as it arrives, without a reload, and announces it', async () => {
    await seed()
    const page = await visit()
    await waitForCount(page, 3)
    expect(await subjects(page)).toEqual([
      'Your receipt for order #1042',
      'Reset your password',
      'Welcome to Acme',
    ])
    await page.evaluate(() => {
      ;(window as unknown as { sameDocument: boolean }).sameDocument = true
    })

    await send({ subject: 'Arrived while you were looking', to: 'Ada Lovelace <ada@example.com>' })
    await item(page, 'Arrived while you were looking').waitFor()
    expect((await subjects(page))[0]).toBe('Arrived while you were looking')
    expect(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
    ).toBe(true)
    await page.waitForFunction(() => document.getElementById('message-count')?.textContent === '4')
    await page.waitForFunction(() =>
      document.getElementById('announcer')?.textContent?.includes('Arrived while you were looking'),
    )
    const row = item(page, 'Arrived while you were looking')
    expect(await row.locator('.item-from').textContent()).toBe('Acme')
    expect(await row.locator('.item-to').textContent()).toContain('Ada Lovelace')
    expect(await row.locator('.tag').textContent()).toContain('welcome')
    expect(await row.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/)
    await screenshot(page, 'inbox-list')

    // Deletions and clears made elsewhere show up too.
    const [newest] = await suite.sandbox.messages({ limit: 1 })
    await fetch(`${suite.sandbox.url}/_sandbox/api/messages/${newest!.id}`, { method: 'DELETE' })
    await waitForCount(page, 3)
    await suite.sandbox.clear()
    await waitForCount(page, 0)
    await page.getByText('No messages yet').waitFor()
  })

  it('opens a message: the sandboxed HTML frame, the text, source and details tabs, the .eml link', async () => {
    const { welcome } = await seed()
    const page = await visit()
    await item(page, 'Welcome to Acme').click()
    await page.waitForURL(`**/_sandbox/#/messages/${welcome}`)
    await expect
      .poll(() => page.locator('#message-subject').textContent(), { timeout: 5000 })
      .toBe('Welcome to Acme')
    expect(await page.locator('#message-list [aria-current="true"]').getAttribute('data-id')).toBe(
      welcome,
    )

    const frame = page.locator('#message-panel iframe')
    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox')
    expect(await frame.getAttribute('src')).toBe(`/_sandbox/api/messages/${welcome}/html`)
    await page
      .frameLocator('#message-panel iframe')
      .locator('h1', { hasText: 'Welcome, Ada!' })
      .waitFor()

    const eml = page.locator('#download-eml')
    expect(await eml.getAttribute('href')).toBe(`/_sandbox/api/messages/${welcome}/eml`)
    const download = await fetch(`${suite.sandbox.url}${await eml.getAttribute('href')}`)
    expect(download.headers.get('content-type')).toBe('message/rfc822')
    expect(await download.text()).toContain('Subject: Welcome to Acme')
    await screenshot(page, 'inbox-message')

    await page.getByRole('tab', { name: 'Text' }).click()
    await page.waitForURL(/[?&]tab=text/)
    const text = await (
      await fetch(`${suite.sandbox.url}/_sandbox/api/messages/${welcome}/text`)
    ).text()
    await expect
      .poll(() => page.locator('#message-text').textContent(), { timeout: 5000 })
      .toBe(text)
    expect(await page.getByRole('tab', { name: 'Text' }).getAttribute('aria-selected')).toBe('true')
    expect(await page.locator('#message-panel iframe').count()).toBe(0)

    await page.getByRole('tab', { name: 'Source' }).click()
    await expect
      .poll(() => page.locator('#message-panel pre').textContent(), { timeout: 5000 })
      .toContain('<h1 style=')

    await page.getByRole('tab', { name: 'Details' }).click()
    const details = page.locator('#message-panel')
    for (const fact of [
      'hello@acme.test',
      'ada@example.com',
      'welcome',
      'sandbox_',
      '"dashboardUrl": "https://example.com/dashboard"',
    ])
      expect(await details.textContent()).toContain(fact)
    const [record] = await suite.sandbox.messages({ limit: 1, subject: 'Welcome' })
    expect(await details.textContent()).toContain(record!.project)
    expect(await details.textContent()).toContain(record!.tokenHint)

    // Arrow keys move between tabs, as in any tab list.
    await page.getByRole('tab', { name: 'Details' }).focus()
    await page.keyboard.press('ArrowLeft')
    expect(await page.getByRole('tab', { name: 'Source' }).getAttribute('aria-selected')).toBe(
      'true',
    )
    await page.waitForURL(/[?&]tab=source/)
  })

  it('shows message data as text, never as markup: a script in a subject, a name or a variable does not run', async () => {
    await send({
      template: 'escaped',
      subject: PAYLOAD,
      from: `"<img src=x onerror=window.__pwned=3>" <evil@example.com>`,
      to: `"<script>window.__pwned=4</script>" <ada@example.com>`,
      templateVariables: { name: PAYLOAD },
    })
    const page = await visit()
    const row = items(page).first()
    await row.waitFor()
    expect(await row.locator('.item-subject').textContent()).toBe(PAYLOAD)
    expect(await row.locator('.item-from').textContent()).toBe(
      '<img src=x onerror=window.__pwned=3>',
    )
    await row.click()
    await expect
      .poll(() => page.locator('#message-subject').textContent(), { timeout: 5000 })
      .toBe(PAYLOAD)
    // The template escaped it too: the frame shows the text.
    expect(await page.frameLocator('#message-panel iframe').locator('#hello').textContent()).toBe(
      `Hi ${PAYLOAD}`,
    )
    await page.getByRole('tab', { name: 'Details' }).click()
    await expect
      .poll(() => page.locator('#message-panel pre').textContent(), { timeout: 5000 })
      .toContain(JSON.stringify(PAYLOAD))
    expect(await page.title()).toContain(PAYLOAD)
    await page.waitForTimeout(300)
    expect(await page.locator('#main img, #main script').count()).toBe(0)
    expect(
      await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned),
    ).toBeUndefined()
  })

  it('runs no script from the rendered HTML itself: the frame has no allow-scripts and no allow-same-origin', async () => {
    // Chromium reports the scripts it refused to run: that is the point of this test.
    suite.allowErrors(/Blocked script execution/, /Refused to execute/, /Content Security Policy/)
    const id = await send({
      template: 'raw',
      subject: 'Raw HTML',
      templateVariables: {
        body: `<p id="raw">raw html</p><script>parent.__pwned = 'script'</script><img src="data:," onerror="parent.__pwned = 'img'">`,
      },
    })
    const page = await visit(`#/messages/${id}`)
    const frame = page.locator('#message-panel iframe')
    const sandboxAttr = (await frame.getAttribute('sandbox')) ?? ''
    expect(sandboxAttr).not.toContain('allow-scripts')
    expect(sandboxAttr).not.toContain('allow-same-origin')
    await page.frameLocator('#message-panel iframe').locator('#raw').waitFor()
    await page.waitForTimeout(300)
    expect(
      await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned),
    ).toBeUndefined()
    // The frame's document is an opaque origin: the page cannot reach into it, nor it into the page.
    expect(
      await page.evaluate(() => {
        try {
          return document.querySelector('iframe')!.contentDocument === null
        } catch {
          return true
        }
      }),
    ).toBe(true)
  })

  it('keeps the width preset (and the tab) in the URL, across a reload and to the next message', async () => {
    const { welcome, reset } = await seed()
    const page = await visit(`#/messages/${welcome}`)
    await page.locator('#message-panel iframe').waitFor()
    await page.locator('button[data-width="375"]').click()
    await page.waitForURL(/[?&]width=375/)
    expect(await page.locator('button[data-width="375"]').getAttribute('aria-pressed')).toBe('true')
    expect((await page.locator('#message-panel iframe').boundingBox())?.width).toBe(375)

    await page.reload()
    await page.locator('#status[data-state="live"]').waitFor()
    await page.locator('#message-panel iframe').waitFor()
    expect(page.url()).toMatch(/[?&]width=375/)
    expect(await page.locator('button[data-width="375"]').getAttribute('aria-pressed')).toBe('true')
    expect((await page.locator('#message-panel iframe').boundingBox())?.width).toBe(375)

    await page.locator('button[data-width="1024"]').click()
    await page.waitForURL(/[?&]width=1024/)
    expect((await page.locator('#message-panel iframe').boundingBox())?.width).toBe(1024)
    await page.getByRole('tab', { name: 'Text' }).click()
    await item(page, 'Reset your password').click()
    await page.waitForURL(new RegExp(`#/messages/${reset}\\?tab=text&width=1024$`))
    await expect
      .poll(() => page.locator('#message-text').textContent(), { timeout: 5000 })
      .toContain('Hi Bob')
    await page.getByRole('tab', { name: 'HTML' }).click()
    await page.waitForURL(new RegExp(`#/messages/${reset}\\?width=1024$`))
    expect((await page.locator('#message-panel iframe').boundingBox())?.width).toBe(1024)

    await page.locator('button[data-width=""]').click()
    await page.waitForFunction(() => !location.hash.includes('width='))
  })

  it('moves with j/k and the arrows, opens with Enter, goes back with Escape, searches with /', async () => {
    const { welcome, reset, receipt } = await seed()
    const page = await visit()
    await waitForCount(page, 3)

    await page.keyboard.press('j')
    expect(await focusedId(page)).toBe(receipt)
    // The focus is visible.
    expect(
      await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle),
    ).not.toBe('none')
    await page.keyboard.press('j')
    expect(await focusedId(page)).toBe(reset)
    await page.keyboard.press('j')
    expect(await focusedId(page)).toBe(welcome)
    await page.keyboard.press('k')
    expect(await focusedId(page)).toBe(reset)
    await page.keyboard.press('ArrowUp')
    expect(await focusedId(page)).toBe(receipt)
    await page.keyboard.press('ArrowDown')
    expect(await focusedId(page)).toBe(reset)

    await page.keyboard.press('Enter')
    await page.waitForURL(`**/#/messages/${reset}`)
    await expect
      .poll(() => page.locator('#message-subject').textContent(), { timeout: 5000 })
      .toBe('Reset your password')
    await page.keyboard.press('Escape')
    await page.waitForFunction(() => location.hash === '#/')
    await page.waitForFunction(
      (id) => (document.activeElement as HTMLElement | null)?.dataset.id === id,
      reset,
    )

    // Esc then / at once: the route change that Esc asked for must not take the focus back.
    await page.keyboard.press('Enter')
    await page.waitForURL(`**/#/messages/${reset}`)
    await page.waitForFunction(
      () => document.querySelector('#message-subject')?.textContent === 'Reset your password',
    )
    // Both keys in one task, so the route change lands after the `/`, as on a busy machine.
    await page.evaluate(() => {
      for (const key of ['Escape', '/'])
        document.activeElement!.dispatchEvent(
          new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }),
        )
    })
    await page.waitForFunction(() => location.hash === '#/')
    await page.waitForTimeout(100)
    expect(await focusedId(page)).toBe('search')
    await page.keyboard.press('Escape')
    await page.focus(`[data-id="${reset}"]`)

    await page.keyboard.press('/')
    expect(await focusedId(page)).toBe('search')
    await page.keyboard.type('to:bob')
    await waitForCount(page, 1)
    expect(await subjects(page)).toEqual(['Reset your password'])
    await page.waitForURL(/q=to%3Abob/)
    await page.keyboard.press('ArrowDown')
    expect(await focusedId(page)).toBe(reset)
    await page.keyboard.press('/')
    await page.keyboard.press('Escape')
    await waitForCount(page, 3)
    expect(await page.inputValue('#search')).toBe('')
    await page.keyboard.press('Escape')
    expect(await focusedId(page)).toBe(receipt)
  })

  it('filters with to:, from:, template: and subject: (plain words match the subject)', async () => {
    await seed()
    const page = await visit()
    await waitForCount(page, 3)
    const search = async (q: string, expected: string[]) => {
      await page.fill('#search', q)
      await page.waitForFunction(
        (expected) =>
          JSON.stringify(
            [...document.querySelectorAll('#message-list .item-subject')].map(
              (el) => el.textContent,
            ),
          ) === JSON.stringify(expected) &&
          document.getElementById('message-count')?.textContent === String(expected.length),
        expected,
      )
    }
    await search('to:grace', ['Your receipt for order #1042'])
    await search('from:security', ['Reset your password'])
    await search('template:welcome', ['Welcome to Acme'])
    await search('password', ['Reset your password'])
    await search('subject:"receipt for" to:hopper', ['Your receipt for order #1042'])
    await search('to:ada subject:reset', [])
    await page.getByText('No message matches').waitFor()
    await search('', ['Your receipt for order #1042', 'Reset your password', 'Welcome to Acme'])

    // With a filter, "clear" deletes only what matches.
    await search('to:bob', ['Reset your password'])
    await expect
      .poll(() => page.locator('#clear-all').textContent(), { timeout: 5000 })
      .toBe('Delete matching')
    await page.locator('#clear-all').click()
    await page.locator('#confirm-ok').click()
    await waitForCount(page, 0)
    expect(await apiTotal()).toBe(2)
  })

  it('clears all messages only after a confirmation in a dialog', async () => {
    await seed()
    const page = await visit()
    await waitForCount(page, 3)

    await page.locator('#clear-all').click()
    const dialog = page.locator('dialog#confirm')
    await dialog.waitFor()
    expect(await dialog.getAttribute('open')).not.toBeNull()
    expect(await dialog.textContent()).toContain('All 3 messages will be deleted')
    expect(await focusedId(page)).toBe('confirm-cancel')
    await page.locator('#confirm-cancel').click()
    await dialog.waitFor({ state: 'hidden' })
    expect(await apiTotal()).toBe(3)

    await page.locator('#clear-all').click()
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await apiTotal()).toBe(3)
    expect(await items(page).count()).toBe(3)

    await page.locator('#clear-all').click()
    await page.locator('#confirm-ok').click()
    await waitForCount(page, 0)
    expect(await apiTotal()).toBe(0)
    await expect
      .poll(() => page.locator('#message-count').textContent(), { timeout: 5000 })
      .toBe('0')
    await page.getByText('No messages yet').waitFor()
  })

  it('deletes one message from its view and moves on to the next', async () => {
    const { welcome, reset } = await seed()
    const page = await visit(`#/messages/${reset}`)
    await page.locator('#message-subject', { hasText: 'Reset your password' }).waitFor()
    await page.locator('#delete-message').click()
    await page.waitForURL(`**/#/messages/${welcome}`)
    await waitForCount(page, 2)
    expect(await subjects(page)).not.toContain('Reset your password')
    expect((await fetch(`${suite.sandbox.url}/_sandbox/api/messages/${reset}`)).status).toBe(404)
    await page.waitForFunction(
      () => document.getElementById('announcer')?.textContent === 'Message deleted',
    )
  })

  it('lists the templates, renders one with each fixture case, and shows missing variables', async () => {
    const page = await visit('#/templates')
    const row = page.locator('#template-list a[data-slug="order-receipt"]')
    await row.waitFor()
    expect(await row.textContent()).toContain('The receipt sent when an order is paid.')
    expect(await row.locator('.chip').allTextContents()).toEqual(['currency', 'customer', 'order'])
    await row.click()
    await page.waitForURL('**/#/templates/order-receipt')
    const frame = page.locator('#template-panel iframe')
    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox')
    expect(await frame.getAttribute('src')).toMatch(
      /^\/_sandbox\/api\/templates\/order-receipt\/preview\?/,
    )
    await page
      .frameLocator('#template-panel iframe')
      .locator('h1', { hasText: 'Ada Lovelace' })
      .waitFor()

    await page.selectOption('#case-select', 'big-order')
    await page.waitForURL(/[?&]case=big-order/)
    await page
      .frameLocator('#template-panel iframe')
      .locator('h1', { hasText: 'Charles Babbage' })
      .waitFor()
    expect(await page.locator('#template-panel iframe').getAttribute('src')).toContain(
      'case=big-order',
    )
    await screenshot(page, 'inbox-template-preview')

    await page.getByRole('tab', { name: 'Variables' }).click()
    await expect
      .poll(() => page.locator('#template-panel').textContent(), { timeout: 5000 })
      .toContain('Who placed the order (name).')
    await expect
      .poll(() => page.locator('#template-panel').textContent(), { timeout: 5000 })
      .toContain('"name": "Charles Babbage"')

    await page.goto(`${suite.sandbox.url}/_sandbox/#/templates/needs`)
    await page.locator('#missing-variables').waitFor()
    await expect
      .poll(() => page.locator('#missing-variables').textContent(), { timeout: 5000 })
      .toContain('absent')
    await expect
      .poll(() => page.locator('#missing-variables').textContent(), { timeout: 5000 })
      .not.toContain('present')
  })

  it('re-renders a template preview by itself when the template, a partial or the fixture changes on disk', async () => {
    const page = await visit('#/templates/live')
    const inFrame = page.frameLocator('#template-panel iframe')
    await inFrame.locator('#version', { hasText: 'Version one' }).waitFor()
    await page.evaluate(() => {
      ;(window as unknown as { sameDocument: boolean }).sameDocument = true
    })
    await screenshot(page, 'inbox-template-live')

    await writeFile(
      join(suite.sandbox.templatesDir, 'live.liquid'),
      '<p id="version">Version two</p><p>Hello {{ who }}</p>{% render "partials/sig" %}',
    )
    await inFrame.locator('#version', { hasText: 'Version two' }).waitFor({ timeout: 10_000 })

    await writeFile(
      join(suite.sandbox.templatesDir, 'partials/sig.liquid'),
      '<p id="sig">Signed: second</p>',
    )
    await inFrame.locator('#sig', { hasText: 'Signed: second' }).waitFor({ timeout: 10_000 })

    await writeFile(join(suite.fixturesDir, 'live.json'), JSON.stringify({ who: 'Grace' }))
    await inFrame.locator('p', { hasText: 'Hello Grace' }).waitFor({ timeout: 10_000 })

    expect(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument),
    ).toBe(true)
    await page.waitForFunction(() =>
      document.getElementById('announcer')?.textContent?.includes('preview of live was updated'),
    )
  })

  it('shows where a broken template fails, with line and column, instead of a blank frame, and recovers when fixed', async () => {
    const page = await visit('#/templates/broken')
    await page.getByText('There is no template').waitFor()

    await writeFile(
      join(suite.sandbox.templatesDir, 'broken.liquid'),
      '<p>line one</p>\n<p>line two</p>\n<p>{% if customer %}never closed</p>\n',
    )
    const panel = page.locator('#render-error')
    await panel.waitFor({ timeout: 10_000 })
    const { templates } = (await (
      await fetch(`${suite.sandbox.url}/_sandbox/api/templates`)
    ).json()) as {
      templates: Array<{ slug: string; error?: { file: string; line: number; column: number } }>
    }
    const error = templates.find((t) => t.slug === 'broken')!.error!
    expect(error.line).toBe(3)
    const text = (await panel.textContent()) ?? ''
    expect(text).toContain('does not parse')
    // The place reads as `sendbox check` prints it: the path from the working directory.
    const shown = relative(process.cwd(), join(suite.sandbox.templatesDir, 'broken.liquid'))
    expect(text).toContain(`${shown.split(sep).join('/')}:3:${error.column}`)
    expect(text).toContain(`line 3, column ${error.column}`)
    expect(await page.locator('#template-pane iframe').count()).toBe(0)
    await expect
      .poll(() => page.locator('#template-list a[data-slug="broken"] .badge-error').textContent(), {
        timeout: 5000,
      })
      .toBe('Does not parse')
    await screenshot(page, 'inbox-template-error')

    await writeFile(
      join(suite.sandbox.templatesDir, 'broken.liquid'),
      '<p id="fixed">Fixed now</p>\n',
    )
    await page.frameLocator('#template-panel iframe').locator('#fixed').waitFor({ timeout: 10_000 })
    expect(await panel.count()).toBe(0)
  })

  it('shows a render failure (not only a parse error) with its line and column', async () => {
    // The page asks for a soft render (?soft=1): the failure comes back as 200 { ok: false },
    // so not even Chromium's "Failed to load resource" line shows up in the console.
    await writeFile(
      join(suite.sandbox.templatesDir, 'runaway.liquid'),
      '<p>fine</p>\n{% for i in (1..100000000) %}{{ i }}{% endfor %}\n',
    )
    const page = await visit('#/templates/runaway')
    const panel = page.locator('#render-error')
    await panel.waitFor()
    const text = (await panel.textContent()) ?? ''
    expect(text).toContain('fails to render')
    expect(text).toMatch(/runaway\.liquid:2:\d+/)
    expect(text).toMatch(/line 2, column \d+/)
    expect(await page.locator('#template-pane iframe').count()).toBe(0)
  })

  it('fits a 390 px wide screen: no horizontal scroll, the list and the message one above the other', async () => {
    await seed()
    const long = await send({
      subject: `A very long subject that keeps going ${'and going '.repeat(12)}withAnUnbrokenWordThatIsMuchWiderThanTheScreenItselfXXXXXXXXXXXXXXXXXXXXXXXX`,
      to: Array.from(
        { length: 8 },
        (_, i) =>
          `Recipient Number${i} <a-very-long-mailbox-name-${i}@subdomain.example-company.com>`,
      ),
    })
    const page = await visit('', {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    })
    await waitForCount(page, 4)
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)
    await screenshot(page, 'inbox-narrow-list')

    await item(page, 'A very long subject').click()
    await page.waitForURL(`**/#/messages/${long}`)
    await page.locator('#message-panel iframe').waitFor()
    expect(await page.locator('#message-list').isVisible()).toBe(false)
    const list = await page
      .locator('#view-messages .list-pane')
      .evaluate((el) => getComputedStyle(el).display)
    expect(list).toBe('none')
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)
    await screenshot(page, 'inbox-narrow-message')
    for (const tab of ['Text', 'Source', 'Details']) {
      await page.getByRole('tab', { name: tab }).click()
      expect(await scrollWidth(page), `${tab} tab`).toBeLessThanOrEqual(390)
    }
    await page.getByRole('tab', { name: 'HTML' }).click()
    await page.locator('button[data-width="1024"]').click()
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)

    await page.locator('.back', { hasText: 'Messages' }).click()
    await items(page).first().waitFor()
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)

    // The keyboard works here too: Enter opens, / comes back to the search box.
    await page.keyboard.press('j')
    await page.keyboard.press('Enter')
    await page.locator('#message-subject').waitFor()
    expect(await focusedId(page)).toBe('message-subject')
    await page.keyboard.press('/')
    await page.waitForFunction(() => document.activeElement?.id === 'search')
    expect(await page.locator('#message-list').isVisible()).toBe(true)

    await page.goto(`${suite.sandbox.url}/_sandbox/#/templates/order-receipt`)
    await page.locator('#template-panel iframe').waitFor()
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)
    await screenshot(page, 'inbox-narrow-template')
  })

  it('follows the system theme: light and dark', async () => {
    await seed()
    const luminance = async (page: Page) =>
      page.evaluate(() => {
        const [r, g, b] = getComputedStyle(document.body)
          .backgroundColor.match(/\d+/g)!
          .map(Number) as [number, number, number]
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255
      })
    const light = await visit('', { colorScheme: 'light' })
    const dark = await visit('', { colorScheme: 'dark' })
    expect(await luminance(light)).toBeGreaterThan(0.8)
    expect(await luminance(dark)).toBeLessThan(0.2)
    await waitForCount(dark, 3)
    await item(dark, 'Your receipt').click()
    // The preview's own heading: a screenshot taken at the frame alone showed it blank.
    await dark.frameLocator('#message-panel iframe').locator('h1').waitFor()
    await screenshot(dark, 'inbox-dark')
  })

  it('has landmarks, headings, labelled controls and a live region', async () => {
    await seed()
    const page = await visit()
    await waitForCount(page, 3)
    expect(await page.locator('header').count()).toBe(1)
    expect(await page.locator('main').count()).toBe(1)
    expect(await page.locator('nav[aria-label]').count()).toBe(1)
    expect(await page.locator('h1').count()).toBe(1)
    expect(await page.getByRole('heading', { name: 'Messages' }).count()).toBe(1)
    expect(await page.locator('[aria-live="polite"]').count()).toBe(1)
    await items(page).first().click()
    await page.locator('#message-panel iframe').waitFor()
    const unlabelled = await page.evaluate(() => {
      const visible = (el: Element) => el.getClientRects().length > 0
      const name = (el: Element) =>
        (el.getAttribute('aria-label') ?? '') +
        ((el as HTMLInputElement).labels?.length ? 'label' : '') +
        (el.getAttribute('title') ?? '') +
        (el.textContent ?? '').trim()
      return [...document.querySelectorAll('button, a[href], input, select, iframe')]
        .filter((el) => visible(el) && !name(el))
        .map((el) => el.outerHTML)
    })
    expect(unlabelled).toEqual([])
    await page.goto(`${suite.sandbox.url}/_sandbox/#/templates/order-receipt`)
    await page.locator('#template-panel iframe').waitFor()
    await expect
      .poll(() => page.locator('label[for="case-select"]').textContent(), { timeout: 5000 })
      .toBe('Fixture')
  })

  it('shows 100 messages at first and more on demand', async () => {
    for (let batch = 0; batch < 3; batch++)
      await Promise.all(
        Array.from({ length: 35 }, (_, i) => send({ subject: `Bulk ${batch * 35 + i}` })),
      )
    const page = await visit()
    await waitForCount(page, 100)
    await expect
      .poll(() => page.locator('#message-count').textContent(), { timeout: 5000 })
      .toBe('105')
    await page.getByRole('button', { name: 'Show more' }).click()
    await waitForCount(page, 105)
    expect(await page.getByRole('button', { name: 'Show more' }).isVisible()).toBe(false)
  })

  it('shows how many messages --max-messages dropped', async () => {
    const small = await startTestSandbox({ 'hello.liquid': '<p>Hello</p>' }, { maxMessages: 2 })
    try {
      for (const subject of ['one', 'two', 'three']) {
        const response = await small.send({
          template: 'hello',
          from: 'a@example.com',
          to: 'b@example.com',
          subject,
        })
        expect(response.status).toBe(201)
      }
      const opened = await suite.open(small.inboxUrl)
      await opened.page
        .locator('#dropped', { hasText: '1 older message dropped by --max-messages' })
        .waitFor()
      expect(await opened.page.locator('#message-count').textContent()).toBe('2')
      await opened.close()
    } finally {
      await small.close()
    }
  })
})
