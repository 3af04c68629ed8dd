import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { describe, expect, it } from 'vitest'
import { startTestSandbox } from '../helpers/sandbox.js'
import { hasChromium, inboxSuite, screenshot } from './helpers.js'

/**
 * The Changes view (docs/inbox.md#reviewing-changes, issue 24), end to end: a case whose render is not its snapshot
 * compared as a swipe (a divider the keys move, each side shown where it should be, checked in
 * the pixels) and as an overlay (opacity, difference), at a width and colour scheme kept in the
 * URL; the diffs; Accept and Accept all; the list and the count in the navigation following a
 * save on disk without a reload; obsolete snapshots; the screenshots of `--visual`.
 *
 * The sandbox is shared by the tests, so each makes templates of its own (their names are the
 * test's) and asserts about those.
 */

const RED = '#ff0000'
const BLUE = '#0000ff'

/** A block of one colour, 300 px tall, with a heading under it: the pixels say which side shows. */
const block = (colour: string, title: string) =>
  [
    '<!doctype html>',
    '<html><head><meta name="color-scheme" content="light dark"><style>',
    '@media (prefers-color-scheme: dark) { body { background: #111111; color: #eeeeee; } }',
    '</style></head><body style="margin:0;font-family:sans-serif">',
    `<div id="block" style="height:300px;background:${colour}"></div>`,
    `<h1>${title}</h1>`,
    `<p>Hello {{ name }}, this is the ${title} email.</p>`,
    '</body></html>',
  ].join('\n')

const withName = (body: string) => `---\nvariables:\n  name: { example: Ada }\n---\n${body}`

describe.skipIf(!hasChromium)('the Changes view', { timeout: 60_000 }, () => {
  const suite = inboxSuite((fixturesDir) => startTestSandbox({}, { fixtures: fixturesDir }))
  const { visit } = suite

  const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await fetch(`${suite.sandbox.url}/_sandbox/api${path}`, init)
    expect(response.ok, `${path}: ${response.status}`).toBe(true)
    return (await response.json()) as T
  }
  const statusOf = async (template: string, name = 'default') =>
    (
      await api<{ snapshots: { template: string; case: string; status: string }[] }>('/snapshots')
    ).snapshots.find((s) => s.template === template && s.case === name)?.status ?? null
  const snapshotsDir = () => join(suite.sandbox.dir, 'snapshots')
  const templateFile = (slug: string) => join(suite.sandbox.templatesDir, `${slug}.liquid`)

  /** A template whose snapshot is `before` and whose render now is `after`: a changed case. */
  async function changed(slug: string, before: string, after: string): Promise<void> {
    await writeFile(templateFile(slug), before)
    await expect.poll(() => statusOf(slug), { timeout: 10_000 }).toBe('new')
    await api(`/snapshots/${slug}/default/accept`, { method: 'POST' })
    await writeFile(templateFile(slug), after)
    await expect.poll(() => statusOf(slug), { timeout: 10_000 }).toBe('changed')
  }

  /** Opens a case, once both its frames have their email. */
  async function openCase(slug: string, query = '', options = {}): Promise<Page> {
    const page = await visit(`#/changes/${slug}?case=default${query}`, options)
    await framesReady(page)
    return page
  }
  const framesReady = async (page: Page) => {
    for (const side of ['snapshot', 'current'])
      await page.frameLocator(`#change-panel iframe[data-side="${side}"]`).locator('h1').waitFor()
    // Both measured: the stage is as tall as the emails (300 px of block, then the text).
    await expect
      .poll(() => page.locator('.stage').evaluate((el) => el.getBoundingClientRect().height))
      .toBeGreaterThan(330)
  }

  /** The colour of the stage at a share of its width, 150 px down (inside the coloured block). */
  async function colourAt(stage: Locator, share: number): Promise<[number, number, number]> {
    const png = PNG.sync.read(await stage.screenshot())
    const x = Math.min(png.width - 1, Math.round(png.width * share))
    const at = (150 * png.width + x) * 4
    return [png.data[at]!, png.data[at + 1]!, png.data[at + 2]!]
  }
  const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60
  const isBlue = ([r, g, b]: number[]) => b! > 200 && r! < 60 && g! < 60

  const divider = (page: Page) => page.getByRole('slider', { name: /Divider/ })
  const navCount = (page: Page) =>
    page.locator('#nav-changes .nav-count').evaluate((el) => el.lastChild?.textContent ?? '')

  it('a small change deep in an email: the swipe starts through it, a box marks it, the diff marks its words', async () => {
    const receipt = (total: string) =>
      withName(
        [
          '<!doctype html><html><body style="margin:0;font-family:sans-serif">',
          '<h1>Thanks, {{ name }}</h1>',
          '{% for i in (1..12) %}<p>Line {{ i }} of the receipt.</p>{% endfor %}',
          '<table style="width:100%"><tr>',
          `                    <td style="padding:12px;font-weight:bold">${total}</td>`,
          '                    <td align="right">42.00 USD</td>',
          '</tr></table></body></html>',
        ].join('\n'),
      )
    await changed('receipt-deep', receipt('Total'), receipt('Grand total'))
    const page = await openCase('receipt-deep')
    // The header knows which meaning of "changed" this is: it renders.
    expect(await page.locator('#accept-explain').textContent()).toMatch(
      /^The render differs from its snapshot\. /,
    )
    const mark = page.locator('.stage-mark')
    await mark.waitFor()
    const stage = await page.locator('.stage').boundingBox()
    const box = (await mark.boundingBox())!
    // Below the twelve lines, at the left: the cell that changed, not the whole row.
    expect(box.y - stage!.y).toBeGreaterThan(200)
    expect(box.width).toBeLessThan(stage!.width / 2)
    // The divider goes through it (the old words on its left, the new on its right).
    const split = Number(await divider(page).getAttribute('aria-valuenow'))
    expect(split).not.toBe(50)
    const x = stage!.x + (stage!.width * split) / 100
    expect(x).toBeGreaterThan(box.x)
    expect(x).toBeLessThan(box.x + box.width)
    // The HTML diff: the changed words marked on both lines, not the whole line.
    const html = page.locator('#diff-html')
    expect(await html.locator('del .diff-change').textContent()).toBe('Total')
    expect(await html.locator('ins .diff-change').textContent()).toBe('Grand total')
    expect(await html.locator('del').textContent()).toMatch(/^-\s*<td style/)
    await screenshot(page, 'changes-first-difference-1280-light')
  })

  it('swipe: the snapshot left of the divider, the render now right of it; the keys and the pointer move it', async () => {
    await changed('swipe-card', withName(block(RED, 'Before')), withName(block(BLUE, 'After')))
    const page = await openCase('swipe-card')
    expect(
      await page.frameLocator('iframe[data-side="snapshot"]').locator('h1').textContent(),
    ).toBe('Before')
    expect(await page.frameLocator('iframe[data-side="current"]').locator('h1').textContent()).toBe(
      'After',
    )
    // Frames stay sandboxed without scripts, as every email frame of the page.
    for (const frame of await page.locator('#change-panel iframe.stage-frame').all())
      expect(await frame.getAttribute('sandbox')).toBe(
        'allow-popups allow-popups-to-escape-sandbox',
      )
    // And their measuring twins: of the page's origin, but without scripts either.
    for (const frame of await page.locator('#change-panel iframe.frame-measure').all())
      expect(await frame.getAttribute('sandbox')).toBe('allow-same-origin')
    const slider = divider(page)
    expect(await slider.getAttribute('aria-valuenow')).toBe('50')
    expect(await slider.getAttribute('aria-valuetext')).toBe('50% snapshot, 50% render now')
    const stage = page.locator('.stage')
    expect(isRed(await colourAt(stage, 0.25))).toBe(true)
    expect(isBlue(await colourAt(stage, 0.75))).toBe(true)
    await screenshot(page, 'changes-swipe-1280-light')

    // The keyboard: ← ten times is 20 % to the left; the render now shows from there.
    await slider.focus()
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft')
    expect(await slider.getAttribute('aria-valuenow')).toBe('30')
    expect(isBlue(await colourAt(stage, 0.4))).toBe(true)
    expect(isRed(await colourAt(stage, 0.2))).toBe(true)
    await page.keyboard.press('Shift+ArrowRight')
    expect(await slider.getAttribute('aria-valuenow')).toBe('50')
    await page.keyboard.press('End')
    expect(await slider.getAttribute('aria-valuenow')).toBe('100')
    expect(isRed(await colourAt(stage, 0.95))).toBe(true)
    await page.keyboard.press('Home')
    expect(await slider.getAttribute('aria-valuenow')).toBe('0')
    expect(isBlue(await colourAt(stage, 0.05))).toBe(true)

    // The pointer: a press on the stage puts the divider there, a drag takes it along.
    const box = (await stage.boundingBox())!
    await page.mouse.move(box.x + box.width * 0.6, box.y + 100)
    await page.mouse.down()
    expect(Number(await slider.getAttribute('aria-valuenow'))).toBeCloseTo(60, -1)
    await page.mouse.move(box.x + box.width * 0.8, box.y + 120, { steps: 4 })
    await page.mouse.up()
    expect(Number(await slider.getAttribute('aria-valuenow'))).toBeCloseTo(80, -1)
    expect(isRed(await colourAt(stage, 0.7))).toBe(true)
    expect(isBlue(await colourAt(stage, 0.9))).toBe(true)
  })

  it('overlay: the render now over the snapshot at an opacity, or by difference; the mode, width and scheme are in the URL', async () => {
    await changed('overlay-card', withName(block(RED, 'Before')), withName(block(BLUE, 'After')))
    const page = await openCase('overlay-card')
    await page.getByRole('tab', { name: 'Overlay' }).click()
    await page.waitForURL(/[?&]mode=overlay/)
    const stage = page.locator('.stage')
    const opacity = page.getByRole('slider', { name: 'Render now over the snapshot' })
    await opacity.fill('100')
    await expect.poll(async () => isBlue(await colourAt(stage, 0.5))).toBe(true)
    await opacity.fill('0')
    await expect.poll(async () => isRed(await colourAt(stage, 0.5))).toBe(true)
    expect(await opacity.getAttribute('aria-valuetext')).toBe('0% render now, 100% snapshot')
    // The keyboard moves it too (a native range).
    await opacity.focus()
    await page.keyboard.press('ArrowRight')
    expect(await opacity.inputValue()).toBe('5')
    await opacity.fill('50')
    await screenshot(page, 'changes-overlay-1280-light')

    // Difference: red against blue is magenta; what is the same (the white below) is black.
    await page.getByRole('button', { name: 'Difference' }).click()
    await page.waitForURL(/[?&]blend=difference/)
    await expect
      .poll(async () => {
        const [r, g, b] = await colourAt(stage, 0.5)
        return r > 200 && g < 60 && b > 200
      })
      .toBe(true)
    expect(await opacity.isDisabled()).toBe(true)
    await screenshot(page, 'changes-difference-1280-light')

    // Width and colour scheme, as the template preview has them, in the URL too.
    await page.locator('#change-pane button[data-width="375"]').click()
    await page.waitForURL(/[?&]width=375/)
    await expect.poll(async () => (await stage.boundingBox())!.width).toBe(375)
    await page.locator('#change-pane button[data-dark="media"]').click()
    await page.waitForURL(/[?&]dark=media/)
    for (const frame of await page.locator('#change-panel iframe').all())
      expect(await frame.getAttribute('src')).toMatch(/[?&]scheme=dark/)
    // The dark rules of the email apply: the text is light.
    await expect
      .poll(() =>
        page
          .frameLocator('iframe[data-side="current"]')
          .locator('h1')
          .evaluate((el) => getComputedStyle(el).color),
      )
      .toBe('rgb(238, 238, 238)')

    // The whole state survives a reload: a view of a change is a link.
    await page.reload()
    await page.locator('#status[data-state="live"]').waitFor()
    await framesReady(page)
    expect(await page.getByRole('tab', { name: 'Overlay' }).getAttribute('aria-selected')).toBe(
      'true',
    )
    expect(
      await page.getByRole('button', { name: 'Difference' }).getAttribute('aria-pressed'),
    ).toBe('true')
    expect(
      await page.locator('#change-pane button[data-width="375"]').getAttribute('aria-pressed'),
    ).toBe('true')
    expect(
      await page.locator('#change-pane button[data-dark="media"]').getAttribute('aria-pressed'),
    ).toBe('true')
    expect((await stage.boundingBox())!.width).toBe(375)
    expect(await page.locator('#change-list a[aria-current="true"]').getAttribute('data-id')).toBe(
      'overlay-card/default',
    )
  })

  it('the text and HTML diffs beside, each line marked + or - as well as coloured', async () => {
    await changed('diff-card', withName(block(RED, 'Before')), withName(block(BLUE, 'After')))
    const page = await openCase('diff-card')
    const lines = (locator: Locator) =>
      locator.evaluateAll((els) => els.map((el) => el.textContent!.replace(/\n$/, '')))
    const text = page.locator('#diff-text')
    expect(await lines(text.locator('del'))).toEqual([
      '-Before',
      '-Hello Ada, this is the Before email.',
    ])
    expect(await lines(text.locator('ins'))).toEqual([
      '+After',
      '+Hello Ada, this is the After email.',
    ])
    const html = page.locator('#diff-html')
    expect(await lines(html.locator('del'))).toEqual([
      `-    <div id="block" style="height:300px;background:${RED}"></div>`,
      '-    <h1>Before</h1>',
      '-    <p>Hello Ada, this is the Before email.</p>',
    ])
    expect(await lines(html.locator('ins'))).toEqual([
      `+    <div id="block" style="height:300px;background:${BLUE}"></div>`,
      '+    <h1>After</h1>',
      '+    <p>Hello Ada, this is the After email.</p>',
    ])
    // The marker is drawn, not only the colour; the line numbers are CSS (copying takes none).
    const mark = html.locator('ins .diff-mark').first()
    expect(await mark.isVisible()).toBe(true)
    expect(await page.locator('#diff-text-title').textContent()).toMatch(/^Text\+2 -2/)
    // Beside the comparison at 1280 px: the diffs' column starts right of the email.
    const diffs = (await page.locator('.change-diffs').boundingBox())!
    const stage = (await page.locator('.stage').boundingBox())!
    expect(diffs.x).toBeGreaterThanOrEqual(stage.x + stage.width)
  })

  it('Accept writes the render as the snapshot, and review moves on to the next case', async () => {
    await changed('accept-a', withName(block(RED, 'A before')), withName(block(BLUE, 'A after')))
    await changed('accept-b', withName(block(RED, 'B before')), withName(block(BLUE, 'B after')))
    const page = await openCase('accept-a')
    const before = Number(await navCount(page))
    expect(before).toBeGreaterThanOrEqual(2)
    await page.getByRole('button', { name: 'Accept', exact: true }).click()
    // The next case opens, the accepted one leaves the list, the count goes down.
    await page.waitForURL(/#\/changes\/accept-b\?case=default/)
    await page.locator('#change-list a[data-id="accept-a/default"]').waitFor({ state: 'detached' })
    await expect.poll(() => navCount(page)).toBe(String(before - 1))
    expect(await statusOf('accept-a')).toBe('same')
    expect(await readFile(join(snapshotsDir(), 'accept-a/default.html'), 'utf8')).toContain(BLUE)
    await framesReady(page)
    expect(await page.frameLocator('iframe[data-side="current"]').locator('h1').textContent()).toBe(
      'B after',
    )
  })

  it('Accept all asks first, then writes every changed and new case; the list empties and the count goes', async () => {
    await changed('all-a', withName(block(RED, 'Before')), withName(block(BLUE, 'After')))
    await writeFile(templateFile('all-new'), withName(block(RED, 'Brand new')))
    await expect.poll(() => statusOf('all-new'), { timeout: 10_000 }).toBe('new')
    const page = await visit('#/changes')
    await page.locator('#change-list a[data-id="all-new/default"]').waitFor()
    expect(
      await page.locator('#change-list a[data-id="all-new/default"] .status-badge').textContent(),
    ).toBe('New')
    // Cancel changes nothing.
    await page.getByRole('button', { name: 'Accept all' }).click()
    await page.locator('#confirm[open]').waitFor()
    expect(await page.locator('#confirm-title').textContent()).toBe('Accept every change?')
    await page.locator('#confirm-cancel').click()
    expect(await statusOf('all-a')).toBe('changed')
    await page.getByRole('button', { name: 'Accept all' }).click()
    await page.locator('#confirm-ok').click()
    await page.getByText('Nothing to review', { exact: true }).waitFor()
    expect(await page.locator('#nav-changes .nav-count').count()).toBe(0)
    expect(await statusOf('all-a')).toBe('same')
    expect(await statusOf('all-new')).toBe('same')
    await screenshot(page, 'changes-empty-1280-light')
  })

  /** A template with its snapshot accepted, everything else accepted too: nothing to review. */
  async function accepted(slug: string, body: string): Promise<void> {
    await writeFile(templateFile(slug), body)
    await expect.poll(() => statusOf(slug), { timeout: 10_000 }).toBe('new')
    await api('/snapshots/accept', { method: 'POST' })
    await expect.poll(() => statusOf(slug)).toBe('same')
  }

  it('a save on disk shows up live: the case appears as changed without a reload, follows each save, and leaves when its snapshot matches', async () => {
    await accepted('live-card', withName(block(RED, 'Live')))
    const page = await visit('#/changes')
    const row = page.locator('#change-list a[data-id="live-card/default"]')
    await page.getByText('Nothing to review', { exact: true }).waitFor()
    await writeFile(templateFile('live-card'), withName(block(BLUE, 'Live again')))
    await row.waitFor()
    expect(await row.locator('.status-badge').textContent()).toBe('Changed')
    // Open, then save again: still changed (no snapshot event), the open case follows the file.
    await row.click()
    await framesReady(page)
    await writeFile(templateFile('live-card'), withName(block(BLUE, 'Live a third time')))
    await page
      .frameLocator('iframe[data-side="current"]')
      .locator('h1', { hasText: 'Live a third time' })
      .waitFor()
    await page.locator('#diff-text ins', { hasText: 'Live a third time' }).first().waitFor()
    // The snapshot written behind the page's back (sendbox check -u in another terminal, a git
    // checkout): only the snapshot folder changed, and the case leaves the list.
    const now = await api<{ current: { html: string; text: string } }>(
      '/snapshots/live-card/default',
    )
    await writeFile(join(snapshotsDir(), 'live-card/default.html'), now.current.html)
    await writeFile(join(snapshotsDir(), 'live-card/default.txt'), now.current.text)
    await row.waitFor({ state: 'detached' })
    await page.locator('#change-pane .status-badge', { hasText: 'Same' }).waitFor()
  })

  it('the count in the navigation says how many changed and new cases there are, live, in any view', async () => {
    await accepted('count-card', withName(block(RED, 'Count')))
    const page = await visit('#/templates')
    expect(await page.locator('#nav-changes .nav-count').count()).toBe(0)
    await writeFile(templateFile('count-card'), withName(block(BLUE, 'Count again')))
    await expect.poll(() => navCount(page)).toBe('1')
    // A new template is counted too; words for screen readers: "Changes, 2".
    await writeFile(templateFile('count-new'), withName(block(RED, 'New')))
    await expect.poll(() => navCount(page)).toBe('2')
    expect(await page.locator('#nav-changes').textContent()).toBe('Changes, 2')
    // Put back as it was: one left.
    await writeFile(templateFile('count-card'), withName(block(RED, 'Count')))
    await expect.poll(() => navCount(page)).toBe('1')
    await api('/snapshots/accept', { method: 'POST' })
    await expect.poll(() => page.locator('#nav-changes .nav-count').count()).toBe(0)
  })

  it('an obsolete snapshot is listed as such, and accepting it removes its files', async () => {
    await writeFile(templateFile('gone-card'), withName(block(RED, 'Gone soon')))
    await expect.poll(() => statusOf('gone-card'), { timeout: 10_000 }).toBe('new')
    await api('/snapshots/gone-card/default/accept', { method: 'POST' })
    await rm(templateFile('gone-card'))
    await expect.poll(() => statusOf('gone-card'), { timeout: 10_000 }).toBe('obsolete')
    const page = await visit('#/changes')
    const row = page.locator('#change-list a[data-id="gone-card/default"]')
    await row.waitFor()
    expect(await row.textContent()).toContain('Accept removes its snapshot')
    await row.click()
    await page.frameLocator('iframe[data-side="snapshot"]').locator('h1').waitFor()
    expect(await page.locator('#accept-explain').textContent()).toMatch(
      /accepting removes the snapshot files/,
    )
    await page.getByRole('button', { name: 'Remove snapshot' }).click()
    await row.waitFor({ state: 'detached' })
    expect(await statusOf('gone-card')).toBeNull()
    await expect(readFile(join(snapshotsDir(), 'gone-card/default.html'))).rejects.toThrow()
  })

  it('a case that no longer renders: its error instead of a render, the snapshot alone, no Accept; a new one: the render alone', async () => {
    await changed('broken-card', withName(block(RED, 'Fine')), block(RED, '{{ missing.value }}'))
    const page = await visit('#/changes/broken-card?case=default')
    await page.frameLocator('iframe[data-side="snapshot"]').locator('h1').waitFor()
    expect(await page.locator('#change-panel iframe.stage-frame').count()).toBe(1)
    expect(await page.locator('.change-error-note').textContent()).toMatch(
      /Does not render now \(missing_variables\)/,
    )
    expect(await page.getByRole('button', { name: 'Accept', exact: true }).isDisabled()).toBe(true)
    expect(
      await page.locator('#change-list a[data-id="broken-card/default"]').textContent(),
    ).toMatch(/does not render \(missing_variables\)/)
    expect(await page.locator('#diff-text').count()).toBe(0)
    await screenshot(page, 'changes-broken-1280-light')

    await writeFile(templateFile('fresh-card'), withName(block(BLUE, 'Fresh')))
    await page.locator('#change-list a[data-id="fresh-card/default"]').click()
    await page
      .frameLocator('iframe[data-side="current"]')
      .locator('h1', { hasText: 'Fresh' })
      .waitFor()
    expect(await page.locator('#change-panel iframe.stage-frame').count()).toBe(1)
    expect(await page.locator('#accept-explain').textContent()).toMatch(/No snapshot yet/)
    // Its diff is the whole render, added.
    expect(await page.locator('#diff-text del').count()).toBe(0)
    expect(await page.locator('#diff-text ins').count()).toBeGreaterThan(0)
    await page.getByRole('button', { name: 'Accept', exact: true }).click()
    await expect.poll(() => statusOf('fresh-card')).toBe('same')
  })

  it('the screenshots of sendbox check --visual: before, after and the diff image', async () => {
    await changed('shot-card', withName(block(RED, 'Before')), withName(block(BLUE, 'After')))
    const png = (r: number, g: number, b: number) => {
      const image = new PNG({ width: 60, height: 40 })
      for (let i = 0; i < image.data.length; i += 4) image.data.set([r, g, b, 255], i)
      return PNG.sync.write(image)
    }
    const dir = snapshotsDir()
    await writeFile(join(dir, 'shot-card/default.600-light.png'), png(255, 0, 0))
    await mkdir(join(dir, '.diff/shot-card'), { recursive: true })
    await writeFile(join(dir, '.diff/shot-card/default.600-light.current.png'), png(0, 0, 255))
    await writeFile(join(dir, '.diff/shot-card/default.600-light.diff.png'), png(255, 0, 255))
    const page = await visit('#/changes/shot-card?case=default&mode=images')
    for (const name of ['Snapshot', 'Now', 'Difference']) {
      const image = page.getByRole('img', { name: `${name} (600 px, light)` })
      await expect
        .poll(() => image.evaluate((el) => (el as HTMLImageElement).naturalWidth))
        .toBe(60)
    }
    await screenshot(page, 'changes-screenshots-1280-light')
    // At 375 px dark there is none: it says so.
    await page.locator('#change-pane button[data-width="375"]').click()
    await page.getByText('No screenshot at 375 px, light').waitFor()
  })

  for (const colorScheme of ['light', 'dark'] as const)
    it(`looks right wide and narrow, ${colorScheme}`, async () => {
      const slug = `look-${colorScheme}`
      await changed(slug, withName(block(RED, 'Before')), withName(block(BLUE, 'After')))
      const wide = await openCase(slug, '', { colorScheme })
      await screenshot(wide, `changes-1280-${colorScheme}`)
      // Between the two: the diffs under the comparison, the pane scrolls.
      const medium = await openCase(slug, '', {
        colorScheme,
        viewport: { width: 1024, height: 768 },
      })
      const diffs = (await medium.locator('.change-diffs').boundingBox())!
      const stage = (await medium.locator('.stage').boundingBox())!
      expect(diffs.y).toBeGreaterThanOrEqual(stage.y + stage.height)
      await screenshot(medium, `changes-1024-${colorScheme}`)
      const narrow = await openCase(slug, '&width=375', {
        colorScheme,
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
      })
      expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        390,
      )
      await screenshot(narrow, `changes-390-${colorScheme}`)
      await narrow.locator('.back').click()
      await narrow.locator('#change-list a[data-id]').first().waitFor()
      await screenshot(narrow, `changes-list-390-${colorScheme}`)
    })
})
