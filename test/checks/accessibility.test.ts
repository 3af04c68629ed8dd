import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_RULES } from '../../src/checks/css.js'
import { checkEmail } from '../../src/checks/index.js'
import { MAX_DEPTH, parseHtml } from '../../src/checks/html.js'
import { computeBoxes, contrast } from '../../src/checks/styles.js'
import { CORPUS, corpusHtml } from './a11y-corpus.js'

const TEXT = 'Order 1042 left our warehouse today and should reach you by Friday.'
const problems = async (html: string) =>
  (await checkEmail({ html, text: TEXT })).findings.filter((f) => f.severity !== 'info')
const a11y = async (html: string) =>
  (await checkEmail({ html, text: TEXT })).findings.filter((f) => f.check === 'accessibility')

/** A clean page around `body`, with `head` added to the head. */
const page = (body: string, head = '') =>
  `<!doctype html>\n<html lang="en"><head><title>Hi</title>${head}</head>\n<body>\n${body}\n</body></html>`

describe('the accessibility corpus', () => {
  it('holds exactly the listed cases, each a problem and its clean twin', () => {
    const files = readdirSync(join(import.meta.dirname, '..', 'fixtures', 'a11y')).sort()
    expect(files).toEqual(CORPUS.flatMap((c) => [`${c.name}.clean.html`, `${c.name}.html`]).sort())
  })

  for (const c of CORPUS)
    it(`${c.name}: ${c.code} at ${c.line}:${c.column}, and nothing in the twin`, async () => {
      const { problem, clean } = corpusHtml(c.name)
      const found = await problems(problem)
      expect(found.map((f) => [f.check, f.code, f.severity, f.line, f.column])).toEqual([
        ['accessibility', c.code, 'warning', c.line, c.column],
      ])
      expect(found[0]!.fix).toMatch(/\w{3,}.*\./)
      expect(await problems(clean)).toEqual([])
    })
})

describe('contrast', () => {
  it("is WCAG's ratio, unrounded", () => {
    const grey = { r: 0x77, g: 0x77, b: 0x77, a: 1 }
    const white = { r: 255, g: 255, b: 255, a: 1 }
    expect(contrast(grey, white)).toBeCloseTo(4.478, 3)
    expect(contrast(white, { r: 0, g: 0, b: 0, a: 1 })).toBe(21)
  })

  it('names the colours and the ratio, and says nothing for text on an image', async () => {
    const [finding] = await a11y(page('<p style="color:#777777">Grey on white</p>'))
    expect(finding?.message).toContain('#777777 on #ffffff, a contrast of 4.47:1, under the 4.5:1')
    expect(
      await a11y(page('<td background="bg.png"><p style="color:#777777">On an image</p></td>')),
    ).toEqual([])
    expect(await a11y(page('<div style="opacity:.5;color:#000">Faded, unknown</div>'))).toEqual([])
  })

  it('follows the cascade: !important in a <style> beats inline, inline beats a rule', async () => {
    const rule = (css: string, style: string) =>
      a11y(page(`<p class="x" style="${style}">Some words</p>`, `<style>${css}</style>`))
    expect(await rule('.x { color: #eeeeee !important }', 'color:#000000')).toHaveLength(1)
    expect(await rule('.x { color: #eeeeee }', 'color:#000000')).toEqual([])
    expect(await rule('p.x { color: #111111 } .x { color: #eeeeee }', '')).toEqual([])
    expect(await rule('@media (prefers-color-scheme: dark) { .x { color: #eeeeee } }', '')).toEqual(
      [],
    )
  })

  it('follows the order of the rules, a selector written twice at each of its places', async () => {
    const rule = (css: string) =>
      a11y(page('<div id="d"><p class="x">Some words</p></div>', `<style>${css}</style>`))
    // The later rule wins at the same specificity, wherever the same selector was written before.
    expect(await rule('.x { color: #eee } .y, .x { color: #111 }')).toEqual([])
    expect(await rule('.x { color: #111 } .y, .x { color: #eee }')).toHaveLength(1)
    expect(await rule('.x { color: #eee } p.y { color: #111 } .x { color: #111 }')).toEqual([])
    expect(await rule('.x { color: #eee !important } .x { color: #111 }')).toHaveLength(1)
    // Filed by subject: an id, a class, a tag, or any element.
    expect(await rule('#d .x { color: #eee }')).toHaveLength(1)
    expect(await rule('#d p { color: #eee }')).toHaveLength(1)
    expect(await rule('div > * { color: #eee }')).toHaveLength(1)
    expect(await rule('#d > [class~="x"] { color: #eee }')).toHaveLength(1)
    expect(await rule('.X { color: #eee } P.x#D { color: #eee }')).toEqual([])
  })

  it('ranks a more specific rule above a later one, across as many rules as are read', async () => {
    const many = Array.from({ length: MAX_RULES - 2 }, (_, i) => `.r${i} { color: #000 }`).join(' ')
    const html = page(
      '<div><p class="x">Some words</p></div>',
      `<style>div p { color: #eee } ${many} p { color: #111 }</style>`,
    )
    expect((await a11y(html)).map((f) => f.code)).toEqual(['low_contrast'])
  })

  it('reads no <style> of an email past the rules it reads, and says so once', async () => {
    // Split over two blocks, and a third that repeats one: the email's distinct rules count.
    const rules = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `.r${from + i} { color: #000 }`).join(' ')
    const grey = '<style>p { color: #eee; position: sticky }</style>'.repeat(2)
    const html = (n: number) =>
      page(
        '<p>Some words</p>',
        `${grey}<style>${rules(0, n >> 1)}</style>\n<style>${rules(n, n - (n >> 1))}</style>`,
      )
    const read = await checkEmail({ html: html(MAX_RULES - 1), text: TEXT })
    expect(read.findings.map((f) => f.code)).toContain('low_contrast')
    expect(read.findings.map((f) => f.code)).not.toContain('styles_not_read')
    expect(JSON.stringify(read.findings)).toContain('position')

    const past = await checkEmail({ html: html(MAX_RULES), text: TEXT })
    const unread = past.findings.filter((f) => f.check === 'accessibility')
    expect(unread.map((f) => [f.code, f.line, f.column])).toEqual([['styles_not_read', 2, 40]])
    expect(unread[0]!.message).toContain(`hold ${MAX_RULES + 1} rules, more than the ${MAX_RULES}`)
    // Nor are the features of its CSS looked up: `position` was an unsupported feature above.
    expect(JSON.stringify(past.findings)).not.toContain('position')
  })

  it('says nothing of text the colour of its background (hidden on purpose), as axe does', async () => {
    expect(await a11y(page('<p style="color:#fff;background:#fff">Spacer</p>'))).toEqual([])
  })

  // E-Com Plus's templates write `<td … bgcolor="">` around most of their text (the npm corpus):
  // read as an unknown colour, 51 of their low-contrast links went unreported.
  it('ignores an empty or transparent colour attribute, as HTML does (the parent colour shows)', async () => {
    const cell = (attribute: string) =>
      a11y(
        page(
          `<table role="presentation" bgcolor="#ffffff"><tr><td ${attribute}><a href="https://acme.test" style="color:#007bff">Visit our store</a></td></tr></table>`,
        ),
      )
    for (const attribute of ['bgcolor=""', 'bgcolor=" "', 'bgcolor="transparent"']) {
      const [finding] = await cell(attribute)
      expect(finding?.message, attribute).toContain('#007bff on #ffffff, a contrast of 3.97:1')
    }
    const font = await a11y(page('<p style="color:#999999"><font color="">Grey words</font></p>'))
    expect(font[0]?.message).toContain('#999999 on #ffffff')
    expect(await a11y(page('<body text=""><p>Black on white</p></body>'))).toEqual([])
  })

  // SuperTokens' email verification sets `.footerContainer { background-color: #transparent }`
  // (the npm corpus): read as an unknown colour, its footer's grey text went unreported.
  it('drops a colour declaration no browser reads, as CSS does, but not one it cannot compute', async () => {
    const footer = (style: string, head = '') =>
      a11y(
        page(
          `<div style="background:#f4f4f4"><p class="f" style="color:#808080;${style}">This email is meant for ada@example.com</p></div>`,
          head,
        ),
      )
    for (const [style, head] of [
      ['background-color:#transparent', ''],
      ['background-color: nonsense !important', ''],
      ['', '<style>.f { background-color: #transparent }</style>'],
    ]) {
      const [finding] = await footer(style!, head)
      expect(finding?.message, style || head).toContain('#808080 on #f4f4f4, a contrast of 3.59:1')
    }
    expect(await footer('background-color:var(--brand)')).toEqual([])
  })

  it('blends a translucent text colour over its background', async () => {
    const [finding] = await a11y(page('<p style="color:rgba(0,0,0,0.3)">Faint</p>'))
    expect(finding?.code).toBe('low_contrast')
    expect(finding?.message).toContain('#b3b3b3 on #ffffff')
  })
})

describe('boxes', () => {
  it("are shared down the tree where an element looks as its parent, a new one where it doesn't", () => {
    const parsed = parseHtml(
      '<p><b>Bold <b>still <i>and <b>again <b style="color:#777">grey</b></b></i></b></b></p>',
    )
    const boxes = computeBoxes(parsed)
    const [p, b1, b2, i, b3, grey] = parsed.elements.map((el) => boxes.get(el)!)
    expect(b1!.bold).toBe(true)
    expect(b1).not.toBe(p)
    // 350,000 nested <b>s (1 MiB) made as many boxes: one now.
    expect([b2, i, b3].every((box) => box === b1)).toBe(true)
    expect(grey).not.toBe(b1)
    expect(grey!.color).toEqual({ r: 0x77, g: 0x77, b: 0x77, a: 1 })
  })
})

describe('names', () => {
  it('reads a name as deep as the checks read, and each nested link by its own text', async () => {
    // Levels to spare for the page's own <html>, <body> and preheader.
    const levels = MAX_DEPTH - 10
    const deep = `<a href="https://a.test">${'<span>'.repeat(levels)}Track order 1042${'</span>'.repeat(levels)}</a>`
    expect(parseHtml(page(deep)).unread).toBeNull()
    expect(await a11y(page(deep))).toEqual([])
    const links = levels / 2
    const nested = `${'<a href="https://a.test"><b>'.repeat(links)}Read more${'</b></a>'.repeat(links)}`
    expect(parseHtml(page(nested)).unread).toBeNull()
    const found = await a11y(page(nested))
    expect(found.map((f) => f.code)).toEqual(Array(links).fill('vague_link_text'))
  })

  it('takes a link name from aria-label, an image alt or a title', async () => {
    for (const link of [
      '<a href="https://a.test" aria-label="Acme home"></a>',
      '<a href="https://a.test"><img src="l.png" alt="Acme home"></a>',
      '<a href="https://a.test" title="Acme home"> </a>',
    ])
      expect(await a11y(page(link)), link).toEqual([])
    expect((await a11y(page('<a href="https://a.test"> </a>')))[0]?.code).toBe('link_missing_text')
  })

  it('finds vague link text in any case and with punctuation, but not in a longer text', async () => {
    for (const words of ['Click here', 'Read more »', 'here', 'MORE...'])
      expect((await a11y(page(`<a href="https://a.test">${words}</a>`)))[0]?.code, words).toBe(
        'vague_link_text',
      )
    expect(await a11y(page('<a href="https://a.test">Read more about your order</a>'))).toEqual([])
  })

  it('skips hidden and decorative images', async () => {
    for (const img of [
      '<img src="a.png" role="presentation">',
      '<div style="display:none"><img src="a.png"></div>',
      '<img src="a.png" aria-hidden="true">',
    ])
      expect(await a11y(page(img)), img).toEqual([])
  })
})

describe('the rest', () => {
  it('reports small text once for the element that sets the size', async () => {
    const found = await a11y(page('<div style="font-size:11px">\n<p>One</p>\n<p>Two</p>\n</div>'))
    expect(found.map((f) => [f.code, f.line])).toEqual([['small_text', 4]])
  })

  it('counts a table with a header cell or a caption as data, at any depth of its own rows', async () => {
    expect(await a11y(page('<table><tbody><tr><th>Item</th></tr></tbody></table>'))).toEqual([])
    expect(await a11y(page('<table><caption>Items</caption><tr><td>x</td></tr></table>'))).toEqual(
      [],
    )
    // A header in a nested table makes only that one a data table.
    const nested = await a11y(
      page('<table><tr><td><table><tr><th>x</th></tr></table></td></tr></table>'),
    )
    expect(nested.map((f) => [f.code, f.line, f.column])).toEqual([
      ['layout_table_without_role', 4, 1],
    ])
  })
})

describe('image alt', () => {
  it('takes an alt of only spaces as no alt, whatever label the image has, as axe-core does', async () => {
    for (const img of [
      '<img src="l.png" width="1" height="1" alt=" ">',
      '<img src="l.png" width="1" height="1" alt="&nbsp;" title="Logo">',
      '<img src="l.png" width="1" height="1" alt="  " aria-label="Logo">',
    ]) {
      const found = await a11y(page(img))
      expect(found.map((f) => f.code)).toEqual(['img_missing_alt'])
      expect(found[0]!.message).toContain('an alt of only spaces')
    }
    expect(await a11y(page('<img src="l.png" width="1" height="1" alt="">'))).toEqual([])
    expect(
      await a11y(page('<img src="l.png" width="1" height="1" alt=" " role="presentation">')),
    ).toEqual([])
  })
})
