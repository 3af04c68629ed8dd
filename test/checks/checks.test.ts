import { describe, expect, it } from 'vitest'
import { MAX_DEPTH, MAX_NODES } from '../../src/checks/html.js'
import { checkEmail, GMAIL_CLIP_BYTES, SIZE_WARN_BYTES } from '../../src/checks/index.js'

const PRE = '<div style="display:none;max-height:0;overflow:hidden">Your order shipped</div>'
const page = (body: string, head = '') =>
  `<!doctype html>\n<html><head>${head}</head>\n<body>\n${PRE}\n${body}\n</body></html>`
const TEXT = 'Your order has shipped and is on its way to you.'
const codes = async (html: string, text = TEXT, marketing?: boolean) =>
  (
    await checkEmail({ html, text, ...(marketing === undefined ? {} : { marketing }) })
  ).findings.map((f) => f.code)
const find = async (html: string, code: string, text = TEXT) =>
  (await checkEmail({ html, text })).findings.find((f) => f.code === code)

describe('size', async () => {
  it('errors at Gmail clipping, warns from 75 KB, quiet below', async () => {
    const pad = (bytes: number) => page(`<p>${'x'.repeat(bytes)}</p>`)
    expect((await find(pad(GMAIL_CLIP_BYTES), 'gmail_clipping'))?.severity).toBe('error')
    expect((await find(pad(SIZE_WARN_BYTES), 'size_near_clipping'))?.severity).toBe('warning')
    expect(await codes(pad(10_000))).not.toEqual(expect.arrayContaining(['gmail_clipping']))
    expect(await codes(pad(10_000))).not.toContain('size_near_clipping')
  })
})

describe('an email past the nodes the checks read', () => {
  // <html>, <head>, <title>, its text, <body>, the <i>s, a line break's text, then the <img>.
  const email = (is: number) =>
    `<html lang="en"><head><title>Big</title></head><body>${'<i></i>'.repeat(is)}\n<img src="https://cdn.test/a.png" width="1" height="1"></body></html>`
  it('reads every node up to the cap: the last, an image without alt, is found', async () => {
    const found = await codes(email(MAX_NODES - 7))
    expect(found).toContain('img_missing_alt')
    expect(found).not.toContain('html_not_read')
  })
  it('past it, stops where the first node left out starts, and says so once', async () => {
    const { findings } = await checkEmail({ html: email(MAX_NODES - 6), text: TEXT })
    expect(findings.map((f) => f.code)).not.toContain('img_missing_alt')
    const unread = findings.filter((f) => f.code === 'html_not_read')
    expect(unread).toMatchObject([{ check: 'size', severity: 'warning', line: 2, column: 1 }])
    expect(unread[0]!.message).toContain('more than the 40,000 nodes')
  })
})

describe('an email nested deeper than the checks read', () => {
  // <html>, <body>, the <div>s, then the <img>: its depth is the <div>s and 3.
  const email = (divs: number) =>
    `<html lang="en"><head><title>Deep</title></head><body>${'<div>'.repeat(divs)}<img src="https://cdn.test/a.png" width="1" height="1"></body></html>`
  it('reads every node up to the cap: the deepest, an image without alt, is found', async () => {
    const found = await codes(email(MAX_DEPTH - 3))
    expect(found).toContain('img_missing_alt')
    expect(found).not.toContain('html_not_read')
  })
  it('past it, stops at the first node deeper, and says so once', async () => {
    const html = email(MAX_DEPTH - 2)
    const { findings } = await checkEmail({ html, text: TEXT })
    expect(findings.map((f) => f.code)).not.toContain('img_missing_alt')
    const unread = findings.filter((f) => f.code === 'html_not_read')
    const column = html.indexOf('<img') + 1
    expect(unread).toMatchObject([{ check: 'size', severity: 'warning', line: 1, column }])
    expect(unread[0]!.message).toContain('nests elements more than 512 deep')
  })
})

describe('images', async () => {
  it('flags a missing alt, a missing size, http and localhost sources, with the line', async () => {
    const html = page(
      '<p>hi</p>\n<img src="http://cdn.test/a.png">\n<img src="https://localhost:3000/b.png" alt="b" width="1" height="1">',
    )
    const found = (await checkEmail({ html, text: TEXT })).findings
    expect(found.find((f) => f.code === 'img_missing_alt')).toMatchObject({
      severity: 'warning',
      line: 6,
    })
    expect(found.find((f) => f.code === 'image_missing_size')).toMatchObject({ line: 6 })
    expect(found.find((f) => f.code === 'insecure_image')).toMatchObject({ line: 6 })
    expect(found.find((f) => f.code === 'localhost_image')).toMatchObject({
      severity: 'error',
      line: 7,
    })
    for (const f of found) expect(f.fix.length).toBeGreaterThan(10)
  })

  it('is quiet for a well-formed image', async () => {
    const html = page('<img src="https://cdn.test/a.png" alt="Logo" width="120" height="40">')
    expect(
      (await codes(html)).filter((c) => c.startsWith('image') || c.endsWith('_image')),
    ).toEqual([])
  })
})

describe('links', async () => {
  it('flags http, localhost, 127.0.0.1, empty and # links', async () => {
    const html = page(
      '<a href="http://acme.test">a</a>\n<a href="http://localhost:8080/x">b</a>\n<a href="https://127.0.0.1/y">c</a>\n<a href="#">d</a>\n<a>e</a>',
    )
    const found = await codes(html)
    expect(found.filter((c) => c === 'localhost_link')).toHaveLength(2)
    expect(found.filter((c) => c === 'empty_link')).toHaveLength(1)
    expect(found.filter((c) => c === 'placeholder_link')).toHaveLength(1)
    expect(found).toContain('insecure_link')
  })

  it('wants an unsubscribe link in marketing mail only', async () => {
    const html = page('<a href="https://acme.test/sale">Shop the sale</a>')
    expect(await codes(html, 'Our big sale starts today, 30% off everything in store.')).toContain(
      'missing_unsubscribe',
    )
    expect(await codes(html, TEXT)).not.toContain('missing_unsubscribe')
    const withLink = page(
      '<a href="https://acme.test/sale">Shop</a> <a href="https://acme.test/u">Unsubscribe</a>',
    )
    expect(
      await codes(withLink, 'Our big sale starts today, 30% off everything in store.'),
    ).not.toContain('missing_unsubscribe')
    expect(await codes(html, TEXT, true)).toContain('missing_unsubscribe')
  })

  it('is quiet for https links', async () => {
    expect(
      (await codes(page('<a href="https://acme.test/orders/1">View</a>'))).filter((c) =>
        c.endsWith('_link'),
      ),
    ).toEqual([])
  })
})

describe('text', async () => {
  it('errors on an empty text version and warns on a near-empty one', async () => {
    expect(
      (
        await find(
          page('<img src="https://a.test/x.png" alt="" width="1" height="1">'),
          'empty_text',
          '',
        )
      )?.severity,
    ).toBe('error')
    expect((await find(page('<p>Hi</p>'), 'short_text', 'Hi'))?.severity).toBe('warning')
    expect(await codes(page('<p>long enough</p>'))).not.toContain('short_text')
  })

  it('warns when there is no preheader', async () => {
    const html = '<!doctype html><html><body><p>Hello there, your order shipped.</p></body></html>'
    expect((await find(html, 'missing_preheader'))?.line).toBe(1)
    expect(await codes(page('<p>x</p>'))).not.toContain('missing_preheader')
  })
})

describe('client support', async () => {
  it('scores each client on the features used, from bundled caniemail data', async () => {
    const report = await checkEmail({
      html: page('<div style="display:grid">x</div>', '<style>.a:hover{color:red}</style>'),
      text: TEXT,
    })
    const outlook = report.clients.find((c) => c.client === 'outlook.windows')!
    const apple = report.clients.find((c) => c.client === 'apple-mail.macos')!
    expect(outlook.score).toBeLessThan(apple.score)
    expect(outlook.unsupported).toContain('display:grid')
    const grid = report.findings.find(
      (f) => f.check === 'clients' && f.message.includes('display:grid'),
    )
    expect(grid).toMatchObject({ line: 5 })
    expect(['warning', 'info']).toContain(grid!.severity)
  })

  it('a plain table email uses nothing unsupported', async () => {
    const report = await checkEmail({ html: '<table><tr><td>Hi</td></tr></table>', text: TEXT })
    expect(report.clients.every((c) => c.score === 100)).toBe(true)
  })
})
