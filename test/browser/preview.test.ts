import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { editorText, hasChromium, inboxSuite, screenshot } from './helpers.js'

/**
 * Styling templates in the inbox, end to end: the live variables editor, the preview's widths,
 * dark views and images-off view (for templates and messages), and the email checks. As in
 * inbox.test.ts, every test also fails on any console error in the page or its frames.
 */

const GIF = 'data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=='

const TEMPLATES = {
  // No fixture: the editor starts from the front-matter example plus the skeleton.
  'card.liquid': [
    '---',
    'description: A card for the live editor',
    'variables:',
    '  name:',
    '    description: Who it is for.',
    '    example: Ada',
    '---',
    '<!doctype html>',
    '<html><body>',
    '<p id="greeting">Hello {{ name }}</p>',
    '<p id="plan">Plan: {{ plan.name }}</p>',
    '</body></html>',
  ].join('\n'),
  // Its own dark-mode rules, as Apple Mail honours them.
  'dark.liquid': [
    '<!doctype html>',
    '<html><head><style>',
    'body { margin: 0; background: #ffffff; color: #111111; }',
    '@media (prefers-color-scheme: dark) { body { background: #000000; color: #eeeeee; } }',
    '@media not all and (prefers-color-scheme: light) { #mode::after { content: " (dark)"; } }',
    '</style></head>',
    '<body><div style="display:none;max-height:0;overflow:hidden">A preheader</div><h1 id="mode">Light or dark</h1><p>Some text long enough to be a plain-text part.</p></body></html>',
  ].join('\n'),
  'pic.liquid': `<!doctype html>\n<html><body><p>A picture:</p><img id="pic" src="${GIF}" width="40" height="40" alt="A dot"></body></html>`,
  // Line numbers matter here: the checks point at lines 6 and 7 of the rendered HTML.
  'checky.liquid': [
    '<!doctype html>',
    '<html>',
    '<body>',
    '<div style="display:none;max-height:0;overflow:hidden">A short summary of this email.</div>',
    '<p>Hello {{ name }}, this is long enough to count as the text part of this email.</p>',
    '<p><a href="http://localhost:3000/reset">Reset your password</a></p>',
    `<img src="${GIF}" width="1" height="1">`,
    '</body>',
    '</html>',
  ].join('\n'),
}

describe.skipIf(!hasChromium)('styling templates in the inbox', { timeout: 60_000 }, () => {
  const suite = inboxSuite((fixturesDir) => startTestSandbox(TEMPLATES, { fixtures: fixturesDir }))
  const { visit } = suite

  async function send(
    template: string,
    templateVariables: Record<string, unknown> = {},
  ): Promise<string> {
    const response = await suite.sandbox.send({
      template,
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject: `A ${template} message`,
      templateVariables,
    })
    const body = (await response.json()) as { id: string }
    expect(response.status, JSON.stringify(body)).toBe(201)
    return body.id
  }

  const templateFrame = (page: Page) => page.frameLocator('#template-panel iframe')
  const frameWidth = async (page: Page, selector: string) =>
    (await page.locator(selector).boundingBox())?.width
  const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth)
  /** The computed background of the email's <body>, read inside the sandboxed frame. */
  const emailBackground = (page: Page, panel = '#template-panel') =>
    page
      .frameLocator(`${panel} iframe`)
      .locator('body')
      .evaluate((body) => getComputedStyle(body).backgroundColor)
  const editorValue = async (page: Page) => JSON.parse(await editorText(page)) as unknown
  /**
   * A pixel of an element as it is painted (filters and all): a screenshot of it, decoded by the
   * page itself (its CSP allows data: images; a canvas read back from one is not tainted).
   */
  async function paintedPixel(
    page: Page,
    selector: string,
    x: number,
    y: number,
  ): Promise<number[]> {
    const png = (await page.locator(selector).screenshot()).toString('base64')
    return page.evaluate(
      async ({ png, x, y }) => {
        const img = new Image()
        img.src = `data:image/png;base64,${png}`
        await img.decode()
        const canvas = document.createElement('canvas')
        canvas.width = img.width
        canvas.height = img.height
        const context = canvas.getContext('2d')!
        context.drawImage(img, 0, 0)
        return [...context.getImageData(x, y, 1, 1).data.slice(0, 3)]
      },
      { png, x, y },
    )
  }

  it('edits the variables live: typing re-renders, missing variables show, bad JSON keeps the last render', async () => {
    const page = await visit('#/templates/card')
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Ada' }).waitFor()
    // The skeleton: the front-matter example, and a placeholder for what the template reads.
    expect(await editorValue(page)).toEqual({ name: 'Ada', plan: { name: '<plan.name>' } })
    await expect
      .poll(() => page.locator('#vars-json').getAttribute('aria-label'), { timeout: 5000 })
      .toContain('Variables')
    expect(
      await page.locator('#vars-json').evaluate((el) => getComputedStyle(el).fontFamily),
    ).toMatch(/mono/i)
    expect(await page.locator('#render-status').getAttribute('aria-live')).toBe('polite')
    expect(await page.locator('#missing-variables').isVisible()).toBe(false)

    // Typing, key by key: one render once typing pauses.
    await page.locator('#vars-json').fill('')
    await page.locator('#vars-json').pressSequentially('{"name": "Grace"}', { delay: 10 })
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Grace' }).waitFor()
    expect(await page.locator('#template-panel iframe').getAttribute('src')).toMatch(
      /^\/_sandbox\/api\/previews\/pv_/,
    )
    await page.locator('#missing-variables', { hasText: 'plan.name' }).waitFor()
    await expect
      .poll(() => page.locator('#render-status').textContent(), { timeout: 5000 })
      .toContain('Preview updated')
    expect(await page.locator('#vars-edited').isVisible()).toBe(true)

    // Broken JSON: an inline error, the textarea marked invalid, the last good render stays.
    const goodSrc = await page.locator('#template-panel iframe').getAttribute('src')
    await page.locator('#vars-json').fill('{"name": "Linus",')
    await page.locator('#vars-error').waitFor()
    await expect
      .poll(() => page.locator('#vars-error').textContent(), { timeout: 5000 })
      .toContain('Not valid JSON')
    expect(await page.locator('#vars-json').getAttribute('aria-invalid')).toBe('true')
    await expect
      .poll(() => page.locator('#render-status').textContent(), { timeout: 5000 })
      .toContain('last good render')
    await page.waitForTimeout(500)
    expect(await page.locator('#template-panel iframe').getAttribute('src')).toBe(goodSrc)
    expect(await templateFrame(page).locator('#greeting').textContent()).toBe('Hello Grace')
    await page.locator('#vars-json').fill('["not", "an object"]')
    await page.locator('#vars-error', { hasText: 'must be one JSON object' }).waitFor()

    await page
      .locator('#vars-json')
      .fill(JSON.stringify({ name: 'Katherine', plan: { name: 'Pro' } }, null, 2))
    await templateFrame(page).locator('#plan', { hasText: 'Plan: Pro' }).waitFor()
    expect(await templateFrame(page).locator('#greeting').textContent()).toBe('Hello Katherine')
    expect(await page.locator('#vars-error').isVisible()).toBe(false)
    expect(await page.locator('#vars-json').getAttribute('aria-invalid')).toBeNull()
    await page.locator('#missing-variables').waitFor({ state: 'hidden' })
    // The other tabs follow the live variables too.
    await page.getByRole('tab', { name: 'Text' }).click()
    await expect
      .poll(() => page.locator('#template-text').textContent(), { timeout: 5000 })
      .toContain('Hello Katherine')
    await page.getByRole('tab', { name: 'Preview' }).click()
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Katherine' }).waitFor()
    await screenshot(page, 'inbox-template-editor')
  })

  it('saves the variables as a fixture case, which then shows up in the case picker; a taken name is explained', async () => {
    const page = await visit('#/templates/card')
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Ada' }).waitFor()
    expect(await page.locator('#case-select').count()).toBe(0)

    await page
      .locator('#vars-json')
      .fill(JSON.stringify({ name: 'Margaret', plan: { name: 'Team' } }))
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Margaret' }).waitFor()
    await page.locator('#case-name').fill('not a name')
    await page.locator('#save-case').click()
    await page.locator('#save-case-message', { hasText: 'A case name is letters' }).waitFor()
    expect(await page.locator('#case-name').getAttribute('aria-invalid')).toBe('true')

    await page.locator('#case-name').fill('margaret')
    await page.keyboard.press('Enter')
    await page.locator('#save-case-message', { hasText: 'Saved as' }).waitFor()
    expect(
      JSON.parse(await readFile(join(suite.fixturesDir, 'card', 'margaret.json'), 'utf8')),
    ).toEqual({ name: 'Margaret', plan: { name: 'Team' } })
    // The catalog reloads, an event arrives, the new case is in the picker, and picked.
    await page.waitForFunction(
      () =>
        (document.getElementById('case-select') as HTMLSelectElement | null)?.value === 'margaret',
    )
    await page.waitForURL(/[?&]case=margaret/)
    await page.locator('#vars-edited').waitFor({ state: 'hidden' })
    await page.waitForFunction(() =>
      document
        .querySelector('#template-panel iframe')
        ?.getAttribute('src')
        ?.startsWith('/_sandbox/api/templates/card/preview?case=margaret'),
    )
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Margaret' }).waitFor()
    await expect
      .poll(() => page.locator('#template-list a[data-slug="card"]').textContent(), {
        timeout: 5000,
      })
      .toContain('1 fixture')

    // The name is taken: said before asking, with a way to overwrite on purpose.
    await page
      .locator('#vars-json')
      .fill(JSON.stringify({ name: 'Maggie', plan: { name: 'Team' } }))
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Maggie' }).waitFor()
    await page.locator('#case-name').fill('margaret')
    await page.locator('#save-case').click()
    await page
      .locator('#save-case-message', { hasText: 'A case named "margaret" already exists.' })
      .waitFor()
    await page.locator('#overwrite-case').click()
    await page.locator('#save-case-message', { hasText: 'Saved as' }).waitFor()
    await expect
      .poll(
        async () =>
          JSON.parse(await readFile(join(suite.fixturesDir, 'card', 'margaret.json'), 'utf8')).name,
      )
      .toBe('Maggie')
    await page.locator('#vars-edited').waitFor({ state: 'hidden' })

    // The server's own 409 (someone saved the same name meanwhile) reads the same way.
    suite.allowErrors(/status of 409/)
    await page.route('**/_sandbox/api/templates/card/fixtures', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'fixture_exists',
            message: 'The case "racy" already exists.',
            details: [],
          },
        }),
      }),
    )
    await page.locator('#case-name').fill('racy')
    await page.locator('#save-case').click()
    await page
      .locator('#save-case-message', { hasText: 'A case named "racy" already exists.' })
      .waitFor()
    await expect
      .poll(() => page.locator('#overwrite-case').textContent(), { timeout: 5000 })
      .toBe('Overwrite racy')
    await page.unroute('**/_sandbox/api/templates/card/fixtures')

    // Picking a case starts the editor over from it.
    await page.locator('#vars-json').fill(JSON.stringify({ name: 'Unsaved' }))
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Unsaved' }).waitFor()
    await page.locator('#reset-vars').click()
    await templateFrame(page).locator('#greeting', { hasText: 'Hello Maggie' }).waitFor()
    expect(await editorValue(page)).toEqual({ name: 'Maggie', plan: { name: 'Team' } })
  })

  it('previews at 375, 600 and 1024 px or any width between 320 and 1600, kept in the URL', async () => {
    const page = await visit('#/templates/card')
    const frame = '#template-panel iframe'
    await templateFrame(page).locator('#greeting').waitFor()
    expect(
      await page
        .locator('#template-pane [data-width]')
        .evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.width)),
    ).toEqual(['', '375', '600', '1024'])

    await page.locator('#template-pane button[data-width="600"]').click()
    await page.waitForURL(/[?&]width=600/)
    expect(await frameWidth(page, frame)).toBe(600)
    expect(
      await page.locator('#template-pane button[data-width="600"]').getAttribute('aria-pressed'),
    ).toBe('true')
    expect(await page.inputValue('#template-width-input')).toBe('600')

    await page.locator('#template-pane button[data-width="375"]').click()
    await page.waitForURL(/[?&]width=375/)
    expect(await frameWidth(page, frame)).toBe(375)

    // A free width, applied as it is typed.
    await page.locator('#template-width-input').fill('480')
    await page.waitForURL(/[?&]width=480/)
    expect(await frameWidth(page, frame)).toBe(480)
    expect(
      await page.locator('#template-pane button[aria-pressed="true"][data-width]').count(),
    ).toBe(0)
    await page.reload()
    await page.locator('#status[data-state="live"]').waitFor()
    await templateFrame(page).locator('#greeting').waitFor()
    expect(await frameWidth(page, frame)).toBe(480)
    expect(await page.inputValue('#template-width-input')).toBe('480')

    // Too narrow is refused while typing, and clamped when committed.
    await page.locator('#template-width-input').fill('99')
    expect(await page.locator('#template-width-input').getAttribute('aria-invalid')).toBe('true')
    expect(await frameWidth(page, frame)).toBe(480)
    await page.locator('#template-width-input').press('Enter')
    await page.waitForURL(/[?&]width=320/)
    expect(await frameWidth(page, frame)).toBe(320)

    await page.locator('#template-pane button[data-width="1024"]').click()
    await page.waitForURL(/[?&]width=1024/)
    expect(await frameWidth(page, frame)).toBe(1024)
    await page.locator('#template-pane button[data-width=""]').click()
    await page.waitForFunction(() => !location.hash.includes('width='))
    expect(await page.inputValue('#template-width-input')).toBe('')

    // Messages keep their own presets (375, 768, 1024) and get the free width too.
    const id = await send('card', { name: 'Ada', plan: { name: 'Pro' } })
    await page.goto(`${suite.sandbox.url}/_sandbox/#/messages/${id}?width=700`)
    await page.locator('#message-panel iframe').waitFor()
    expect(
      await page
        .locator('#message-pane [data-width]')
        .evaluateAll((buttons) => buttons.map((b) => (b as HTMLElement).dataset.width)),
    ).toEqual(['', '375', '768', '1024'])
    expect(await frameWidth(page, '#message-panel iframe')).toBe(700)
    expect(await page.inputValue('#message-width-input')).toBe('700')
  })

  it("shows the email's own dark mode (its prefers-color-scheme rules), and an inverted view", async () => {
    const page = await visit('#/templates/dark')
    const frame = page.locator('#template-panel iframe')
    await templateFrame(page).locator('#mode').waitFor()
    expect(await emailBackground(page)).toBe('rgb(255, 255, 255)')
    expect(
      await page.locator('#template-pane button[data-dark=""]').getAttribute('aria-pressed'),
    ).toBe('true')
    // An empty spot of the email, as painted: white.
    expect(await paintedPixel(page, '#template-panel iframe', 300, 300)).toEqual([255, 255, 255])

    await page.locator('#template-pane button[data-dark="media"]').click()
    await page.waitForURL(/[?&]dark=media/)
    await expect.poll(() => emailBackground(page)).toBe('rgb(0, 0, 0)')
    expect(
      await templateFrame(page)
        .locator('#mode')
        .evaluate((el) => getComputedStyle(el, '::after').content),
    ).toBe('" (dark)"')
    expect(await frame.evaluate((el) => el.style.colorScheme)).toBe('dark')
    expect(await frame.evaluate((el) => getComputedStyle(el).filter)).toBe('none')
    expect(
      await page.locator('#template-pane button[data-dark="media"]').getAttribute('aria-pressed'),
    ).toBe('true')
    await screenshot(page, 'inbox-template-dark')

    // Inverted: the email as it is (light), with every colour flipped by a filter on the frame.
    await page.locator('#template-pane button[data-dark="invert"]').click()
    await page.waitForURL(/[?&]dark=invert/)
    expect(await frame.evaluate((el) => getComputedStyle(el).filter)).toBe(
      'invert(1) hue-rotate(180deg)',
    )
    await expect.poll(() => emailBackground(page)).toBe('rgb(255, 255, 255)')
    expect(
      await templateFrame(page)
        .locator('#mode')
        .evaluate((el) => getComputedStyle(el, '::after').content),
    ).toBe('none')
    // The same white spot, painted black by the filter.
    expect(await paintedPixel(page, '#template-panel iframe', 300, 300)).toEqual([0, 0, 0])
    await screenshot(page, 'inbox-template-inverted')

    // Kept in the URL, across a reload.
    await page.goto(`${suite.sandbox.url}/_sandbox/#/templates/dark?dark=media`)
    await page.reload()
    await page.locator('#status[data-state="live"]').waitFor()
    await templateFrame(page).locator('#mode').waitFor()
    await expect.poll(() => emailBackground(page)).toBe('rgb(0, 0, 0)')

    await page.locator('#template-pane button[data-dark=""]').click()
    await page.waitForFunction(() => !location.hash.includes('dark='))
    await expect.poll(() => emailBackground(page)).toBe('rgb(255, 255, 255)')
    expect(await frame.evaluate((el) => getComputedStyle(el).filter)).toBe('none')

    // A message, too.
    const id = await send('dark')
    await page.goto(`${suite.sandbox.url}/_sandbox/#/messages/${id}?dark=media`)
    await page.locator('#message-panel iframe').waitFor()
    await expect.poll(() => emailBackground(page, '#message-panel')).toBe('rgb(0, 0, 0)')
    await page.locator('#message-pane button[data-dark="invert"]').click()
    expect(
      await page.locator('#message-panel iframe').evaluate((el) => getComputedStyle(el).filter),
    ).toBe('invert(1) hue-rotate(180deg)')
  })

  it('shows "Light" as light even when the system is dark', async () => {
    const page = await visit('#/templates/dark', { colorScheme: 'dark' })
    await templateFrame(page).locator('#mode').waitFor()
    // Without the inbox's say, the frame would follow the dark system.
    await expect.poll(() => emailBackground(page)).toBe('rgb(255, 255, 255)')
    await page.locator('#template-pane button[data-dark="media"]').click()
    await expect.poll(() => emailBackground(page)).toBe('rgb(0, 0, 0)')
  })

  it('turns images off (as a reader who blocks them sees the email), in the URL', async () => {
    // Blocking the image is the point: Chromium reports it.
    suite.allowErrors(/Content Security Policy/)
    const page = await visit('#/templates/pic')
    const loaded = () =>
      templateFrame(page)
        .locator('#pic')
        .evaluate(
          (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
        )
    await templateFrame(page).locator('#pic').waitFor()
    await expect.poll(loaded).toBe(true)

    await page.locator('#template-pane button[data-images]').click()
    await page.waitForURL(/[?&]images=off/)
    expect(
      await page.locator('#template-pane button[data-images]').getAttribute('aria-pressed'),
    ).toBe('true')
    await page.waitForFunction(() =>
      document.querySelector('#template-panel iframe')?.getAttribute('src')?.includes('images=off'),
    )
    await templateFrame(page).locator('#pic').waitFor()
    await expect.poll(loaded).toBe(false)
    expect(await templateFrame(page).locator('#pic').getAttribute('alt')).toBe('A dot')

    // With the dark view too: both options together.
    await page.locator('#template-pane button[data-dark="media"]').click()
    await page.waitForURL(/images=off/)
    await page.waitForFunction(() =>
      decodeURIComponent(
        document.querySelector('#template-panel iframe')?.getAttribute('src') ?? '',
      ).includes('images=off'),
    )

    const id = await send('pic')
    await page.goto(`${suite.sandbox.url}/_sandbox/#/messages/${id}?images=off`)
    const frame = page.locator('#message-panel iframe')
    await frame.waitFor()
    await page.waitForFunction(() =>
      decodeURIComponent(
        document.querySelector('#message-panel iframe')?.getAttribute('src') ?? '',
      ).includes('/html?images=off'),
    )
    await page.frameLocator('#message-panel iframe').locator('#pic').waitFor()
    expect(
      await page
        .frameLocator('#message-panel iframe')
        .locator('#pic')
        .evaluate((img) => (img as HTMLImageElement).naturalWidth),
    ).toBe(0)
  })

  it('lists the checks by severity with their fixes and lines, the client support and the size; a line opens the source there', async () => {
    const page = await visit('#/templates/checky')
    await templateFrame(page).locator('a').waitFor()
    const variables = await editorValue(page)
    const expected = (await (
      await fetch(`${suite.sandbox.url}/_sandbox/api/templates/checky/checks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ variables }),
      })
    ).json()) as {
      counts: { error: number; warning: number; info: number }
      clients: { client: string; score: number }[]
      findings: { check: string; severity: string }[]
    }
    expect(expected.counts.error).toBeGreaterThan(0)

    // The badge on the tab: errors and warnings, in words for screen readers.
    const tab = page.getByRole('tab', { name: /Checks/ })
    await page.locator('#template-tab-checks .tab-badge').waitFor()
    await expect
      .poll(
        () => page.locator('#template-tab-checks .tab-badge [aria-hidden="true"]').textContent(),
        { timeout: 5000 },
      )
      .toBe(String(expected.counts.error + expected.counts.warning))
    expect(
      await page.locator('#template-tab-checks .tab-badge').getAttribute('data-severity'),
    ).toBe('error')
    expect(await tab.textContent()).toContain(`${expected.counts.error} error`)

    await tab.click()
    await page.waitForURL(/[?&]tab=checks/)
    await page.locator('#template-checks').waitFor()
    const errors = page.locator('#template-checks .finding-group[data-severity="error"]')
    const localhost = errors.locator('.finding[data-code="localhost_link"]')
    expect(await localhost.locator('.finding-message').textContent()).toContain(
      'http://localhost:3000/reset',
    )
    expect(await localhost.locator('.finding-fix').textContent()).toContain('Fix: ')
    expect(await localhost.locator('.finding-line').textContent()).toBe('line 6, column 4')
    // Accessibility has its own heading.
    const alt = page.locator(
      '#template-checks .finding-group[data-check="accessibility"] .finding[data-code="img_missing_alt"]',
    )
    expect(await alt.locator('.finding-line').textContent()).toBe('line 7, column 1')
    expect(await page.locator('#template-findings-accessibility').textContent()).toBe(
      `Accessibility (${expected.findings.filter((f) => f.check === 'accessibility').length})`,
    )
    // Errors first, then warnings, then notes (folded away), then accessibility.
    const groups = ['error', 'warning', 'info'].filter((severity) =>
      expected.findings.some((f) => f.severity === severity && f.check !== 'accessibility'),
    )
    expect(
      await page
        .locator('#template-checks .finding-group')
        .evaluateAll((list) =>
          list.map((g) => (g as HTMLElement).dataset.severity ?? (g as HTMLElement).dataset.check),
        ),
    ).toEqual([...groups, 'accessibility'])
    if (expected.counts.info)
      expect(
        await page.locator('#template-checks details.finding-group').getAttribute('open'),
      ).toBeNull()

    await expect
      .poll(() => page.locator('#template-checks-size').textContent(), { timeout: 5000 })
      .toContain("of Gmail's 102 KB limit")
    const rows = page.locator('#template-client-table tbody tr')
    expect(await rows.count()).toBe(expected.clients.length)
    const gmail = page.locator('#template-client-table tr[data-client="gmail.desktop-webmail"]')
    expect(await gmail.locator('th').textContent()).toBe('Gmail (webmail)')
    expect(await gmail.locator('.score-value').textContent()).toBe(
      `${expected.clients.find((c) => c.client === 'gmail.desktop-webmail')!.score} %`,
    )
    await screenshot(page, 'inbox-template-checks')

    // "line 6" is a link to the Source tab, at that line.
    await localhost.locator('.finding-line').click()
    await page.waitForURL(/[?&]tab=source&line=6|[?&]line=6.*tab=source/)
    const target = page.locator('#template-panel .line.is-target')
    await target.waitFor()
    expect(await target.getAttribute('data-line')).toBe('6')
    expect(await target.textContent()).toContain('http://localhost:3000/reset')
    expect(
      await page.evaluate(() => document.activeElement?.classList.contains('source-lines')),
    ).toBe(true)
    // Back: the checks again.
    await page.goBack()
    await page.locator('#template-checks').waitFor()

    // A message has the same tab.
    const id = await send('checky', { name: 'Ada' })
    await page.goto(`${suite.sandbox.url}/_sandbox/#/messages/${id}`)
    await page.locator('#message-tab-checks .tab-badge').waitFor()
    await page.getByRole('tab', { name: /Checks/ }).click()
    await page.locator('#message-checks').waitFor()
    await expect
      .poll(
        () =>
          page
            .locator('#message-checks .finding[data-code="localhost_link"] .finding-line')
            .textContent(),
        { timeout: 5000 },
      )
      .toBe('line 6, column 4')
    await page.locator('#message-checks .finding[data-code="localhost_link"] .finding-line').click()
    await page.locator('#message-panel .line.is-target[data-line="6"]').waitFor()
  })

  it('fits 390 px with the editor, the preview options and the checks; everything is labelled', async () => {
    const page = await visit('#/templates/checky', {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    })
    await templateFrame(page).locator('a').waitFor()
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)
    await screenshot(page, 'inbox-narrow-editor')
    await page.locator('#template-pane button[data-width="1024"]').click()
    await page.locator('#template-pane button[data-dark="invert"]').click()
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)
    await page.locator('#template-tab-checks .tab-badge').waitFor()
    for (const tab of ['Text', 'HTML', 'Liquid', 'Variables', 'Checks']) {
      await page.getByRole('tab', { name: tab }).click()
      expect(await scrollWidth(page), `${tab} tab`).toBeLessThanOrEqual(390)
    }
    await page.locator('#template-checks').waitFor()
    expect(await scrollWidth(page)).toBeLessThanOrEqual(390)
    await screenshot(page, 'inbox-narrow-checks')

    const unlabelled = await page.evaluate(() => {
      const visible = (el: Element) => el.getClientRects().length > 0
      const labelledBy = (el: Element) =>
        (el.getAttribute('aria-labelledby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join('')
      const name = (el: Element) =>
        (el.getAttribute('aria-label') ?? '') +
        labelledBy(el) +
        ((el as HTMLInputElement).labels?.length ? 'label' : '') +
        (el.getAttribute('title') ?? '') +
        (el.textContent ?? '').trim()
      return [
        ...document.querySelectorAll('button, a[href], input, select, textarea, iframe, meter'),
      ]
        .filter((el) => visible(el) && !name(el))
        .map((el) => el.outerHTML)
    })
    expect(unlabelled).toEqual([])
  })
})
