import { describe, expect, it } from 'vitest'
import { checkEmail } from '../../src/checks/index.js'

/** Findings a developer can act on: what they quote, how they group, what they advise. */
const TEXT = 'Order 1042 left our warehouse today and should reach you by Friday.'
const page = (body: string, head = '') =>
  `<!doctype html>\n<html lang="en"><head><title>Hi</title>${head}</head>\n<body>\n${body}\n</body></html>`
const found = async (html: string) => (await checkEmail({ html, text: TEXT })).findings
const a11y = async (html: string) => (await found(html)).filter((f) => f.check === 'accessibility')

describe('contrast findings', () => {
  it('punctuation alone is not one (axe-core skips it too)', async () => {
    const html = page(
      '<p style="color:#aaaaaa"><a href="https://a.test/a" style="color:#000">Terms</a> - <a href="https://a.test/b" style="color:#000">Privacy</a></p>',
    )
    expect((await a11y(html)).map((f) => f.code)).not.toContain('low_contrast')
  })

  it('quote the whole visible text of the element, in whole words', async () => {
    const html = page(
      '<p style="color:#aaaaaa">Sent to <b>ada@example.com</b>, <span>because you signed up at acme.test for our monthly newsletter about parcels</span></p>',
    )
    const [finding] = (await a11y(html)).filter((f) => f.code === 'low_contrast')
    expect(finding?.message).toMatch(
      /^Text \("Sent to ada@example\.com, because you signed up at [\w.]+(?: \w+)*…"\)/,
    )
  })

  it('quote with spaces and line breaks squashed, cut at a word past 60 characters', async () => {
    const quoted = async (text: string) =>
      (await a11y(page(`<p style="color:#aaaaaa">${text}</p>`)))
        .find((f) => f.code === 'low_contrast')
        ?.message.match(/^Text \((".*?")\)/)?.[1]
    expect(await quoted('\n  Your   parcel\n\n\t is on  its way ')).toBe(
      '"Your parcel is on its way"',
    )
    const sixty = `${'word '.repeat(11)}words`
    expect(sixty).toHaveLength(60)
    expect(await quoted(`  ${sixty.replaceAll(' ', '\n    ')}  `)).toBe(`"${sixty}"`)
    expect(await quoted(`${sixty}, and more`)).toBe(`"${'word '.repeat(11).trim()}…"`)
    expect(await quoted(`${'x'.repeat(70)} y`)).toBe(`"${'x'.repeat(60)}…"`)
  })
})

describe('tables', () => {
  it('a receipt (items and prices, a total) is told to add header cells, with its size', async () => {
    const receipt = page(
      '<table><tr><td>Parcel tape</td><td>2</td><td>$4.00</td></tr><tr><td>Boxes</td><td>10</td><td>$12.50</td></tr><tr><td>Total</td><td></td><td>$16.50</td></tr></table>',
    )
    const [finding] = await a11y(receipt)
    expect(finding?.code).toBe('data_table_without_headers')
    expect(finding?.message).toContain('3 rows, 3 columns')
    expect(finding?.fix).toContain('<th scope="col">')
  })

  it('a layout table is told to add role="presentation", with its real size', async () => {
    const layout = page(
      '<table><tr><td><p>Hello Ada,</p><p>Your order shipped.</p></td></tr><tr><td><a href="https://a.test/o">Track your order</a></td></tr></table>',
    )
    const [finding] = await a11y(layout)
    expect(finding?.code).toBe('layout_table_without_role')
    expect(finding?.message).toContain('"table, 2 rows, 1 column"')
  })
})

describe('small text', () => {
  it('is one finding per size, with the count and the first places', async () => {
    const html = page(
      [11, 11, 11, 11, 12]
        .map((px, i) => `<p style="font-size:${px}px">Line ${i} of the footer</p>`)
        .join('\n'),
    )
    const small = (await a11y(html)).filter((f) => f.code === 'small_text')
    expect(small.map((f) => [f.line, f.message.slice(0, 63)])).toEqual([
      [4, 'Text is set at 11 px in 4 places (first "Line 0 of the footer",'],
      [8, 'Text ("Line 4 of the footer") is set at 12 px: under 14 px it i'],
    ])
    expect(small[0]!.message).toContain('on lines 4, 5, 6, …)')
  })
})

describe('links', () => {
  it('href="#" is a placeholder_link, worded apart from a link without text', async () => {
    const codes = (
      await found(page('<a href="#"><img src="https://a.test/l.png" alt="Acme"></a>'))
    ).map((f) => f.code)
    expect(codes).toContain('placeholder_link')
    expect(codes).not.toContain('empty_link')
    expect(codes).not.toContain('link_missing_text')
  })

  it('vague_link_text sees through trailing arrows and punctuation', async () => {
    for (const words of ['Continue reading →', 'Read more »', 'Learn more...', 'View more ›'])
      expect((await a11y(page(`<a href="https://a.test/x">${words}</a>`)))[0]?.code, words).toBe(
        'vague_link_text',
      )
  })
})

describe('content shown only on a phone', () => {
  it('is checked as a phone-width @media rule shows it, and its findings say so', async () => {
    const html = page(
      '<div class="mobile" style="display:none"><img src="https://a.test/m.png" width="10" height="10"><p style="color:#aaaaaa">Open the app</p></div>',
      '<style>@media only screen and (max-width: 600px) { .mobile { display: block !important } }</style>',
    )
    const found = await a11y(html)
    expect(found.map((f) => f.code).sort()).toEqual(['img_missing_alt', 'low_contrast'])
    for (const f of found)
      expect(f.message).toMatch(
        /\(Shown only on a phone-width screen, by @media only screen and \(max-width: 600px\)\.\)$/,
      )
    // A dark-mode block or a print one is no phone's view: hidden stays hidden.
    const dark = html.replace('only screen and (max-width: 600px)', '(prefers-color-scheme: dark)')
    expect(await a11y(dark)).toEqual([])
  })
})
