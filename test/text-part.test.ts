import { mkdir, rm, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../src/index.js'
import { toPlainText } from '../src/templates/render.js'
import { ROOT, runCli } from './helpers/cli.js'
import { errorOf, startTestSandbox, type TestSandbox } from './helpers/sandbox.js'

/**
 * The text part a reader of plain text gets: data tables as aligned rows, nothing hidden from the
 * HTML's reader (the preheader), and a hand-written `<slug>.txt.liquid` instead when there is one.
 */

describe('toPlainText', () => {
  it('renders a data table as aligned rows, not a wall of words', () => {
    const text = toPlainText(`<p>Your order:</p>
      <table role="presentation"><tr><th>Item</th><th>Qty</th><th>Price</th></tr>
      <tr><td>Analytical Engine manual</td><td>1</td><td>24.00</td></tr>
      <tr><td>Punch cards</td><td>200</td><td>3.50</td></tr>
      <tr><td colspan="2">Total</td><td>27.50</td></tr></table><p>Thanks!</p>`)
    const lines = text.split('\n')
    const header = lines.find((l) => l.startsWith('Item'))!
    expect(header).toMatch(/^Item\s{2,}Qty\s{2,}Price$/)
    const rows = lines.filter((l) => /^(Item|Analytical|Punch)/.test(l))
    expect(rows).toHaveLength(3)
    // Each column starts at the same place on every row.
    const qty = header.indexOf('Qty')
    expect(rows.map((r) => r.slice(qty).split(/\s+/)[0])).toEqual(['Qty', '1', '200'])
    expect(lines.find((l) => l.startsWith('Total'))).toMatch(/^Total\s+27\.50$/)
    expect(text).toMatch(/^Your order:/)
    expect(text).toMatch(/Thanks!$/)
  })

  it('keeps layout tables (nested, or one cell a row) as plain blocks', () => {
    const text =
      toPlainText(`<table><tr><td><table><tr><td><p>Hello there</p></td><td><p>Side</p></td></tr><tr><td>a</td><td>b</td></tr></table></td></tr>
      <tr><td><table><tr><td><a href="https://acme.test/go">Go</a></td></tr></table></td></tr></table>`)
    expect(text).toContain('Hello there')
    expect(text).toContain('Go [https://acme.test/go]')
    // The outer table holds tables: it is layout; the inner 2×2 one is data.
    expect(text).not.toMatch(/^ {2,}/m)
  })

  it('leaves out what the HTML hides: the preheader, display:none, hidden, mso-hide:all', () => {
    const text = toPlainText(`<body>
      <div style="display:none;max-height:0;overflow:hidden">Preview text one</div>
      <span class="preheader">Preview text two</span>
      <div style="color:red; DISPLAY: NONE">Hidden three</div>
      <p hidden>Hidden four</p>
      <div style="mso-hide:all">Hidden five</div>
      <h1>Welcome, Ada!</h1></body>`)
    expect(text).toBe('Welcome, Ada!')
  })
})

describe('the example templates, sent', () => {
  let sandbox: Sendbox
  beforeAll(async () => {
    sandbox = await startSendbox({
      port: 0,
      memory: true,
      templates: join(ROOT, 'templates'),
      fixtures: join(ROOT, 'fixtures'),
    })
  })
  afterAll(() => sandbox?.close())

  it("order-receipt's text starts with the greeting (no preheader) and lists the items as rows", async () => {
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'order-receipt',
        from: 'Acme <hello@acme.test>',
        to: 'ada@example.com',
        subject: 'Your receipt',
        templateVariables: {
          customer: { name: 'Ada' },
          order: {
            id: '7',
            url: 'https://acme.test/o/7',
            total: '27.50',
            items: [
              { name: 'Manual', quantity: 1, price: '24.00' },
              { name: 'Punch cards', quantity: 200, price: '3.50' },
            ],
          },
        },
      }),
    })
    expect(response.status).toBe(201)
    const { text } = await sandbox.waitForMessage({ template: 'order-receipt' })
    expect(text.startsWith('Thanks for your order, Ada!')).toBe(true)
    expect(text).not.toContain('Thanks for your order. Here is your receipt.')
    const rows = text.split('\n').filter((l) => /^(Item|Manual|Punch cards)\s/.test(l))
    expect(rows).toHaveLength(3)
    const qty = rows[0]!.indexOf('Qty')
    expect(rows.map((r) => r.slice(qty).split(/\s+/)[0])).toEqual(['Qty', '1', '200'])
    expect(rows[2]).toMatch(/^Punch cards\s+200\s+3\.50$/)
  })
})

describe('a hand-written text version: <slug>.txt.liquid', () => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox({
      'welcome.liquid': '<div class="preheader">Hi</div><h1>Welcome, {{ name }}!</h1>',
      'welcome.txt.liquid': 'Welcome, {{ name }} & co <3\n{% include "partials/sig" %}',
      'partials/sig.liquid': '-- {{ team | default: "The Acme team" }}',
      'plain.liquid': '<p>No text version: {{ x }}</p>',
      'notes.txt.liquid': '<p>A template named notes.txt</p>',
    })
  })
  afterAll(() => sandbox?.close())

  const send = (template: string, templateVariables: Record<string, unknown>) =>
    sandbox.send({
      template,
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject: 'Hi',
      templateVariables,
    })
  const textOf = async (response: Response) => {
    expect(response.status, await response.clone().text()).toBe(201)
    const { id } = (await response.json()) as { id: string }
    return (await fetch(`${sandbox.url}/_sandbox/api/messages/${id}/text`)).text()
  }
  const previewText = async (slug: string, variables: Record<string, unknown>) =>
    (
      (await (
        await sandbox.api(`/_sandbox/api/templates/${slug}/render`, {
          method: 'POST',
          json: { variables },
          auth: false,
        })
      ).json()) as { text: string }
    ).text

  it('is the text part, rendered with the same variables, not HTML-escaped', async () => {
    expect(await textOf(await send('welcome', { name: 'Ada' }))).toBe(
      'Welcome, Ada & co <3\n-- The Acme team',
    )
    // And the HTML is still the template's, escaped as ever.
    const [record] = await sandbox.messages({ template: 'welcome', limit: 1 })
    expect(record!.html).toBe('<div class="preheader">Hi</div><h1>Welcome, Ada!</h1>')
  })

  it('is not a template of its own; without a template beside it, x.txt.liquid is the template x.txt (docs/templates.md slugs)', async () => {
    const { templates } = (await (await sandbox.api('/templates')).json()) as {
      templates: Array<{ slug: string }>
    }
    expect(templates.map((t) => t.slug)).toEqual(['notes.txt', 'plain', 'welcome'])
    expect((await sandbox.api('/templates/welcome.txt')).status).toBe(404)
    expect(await textOf(await send('notes.txt', {}))).toBe('A template named notes.txt')
  })

  it("its variables are the template's too: one only it reads is required", async () => {
    await writeFile(join(sandbox.templatesDir, 'plain.txt.liquid'), 'Code: {{ code }}')
    await expect
      .poll(
        async () =>
          ((await (await sandbox.api('/templates/plain')).json()) as { variables: string[] })
            .variables,
        { timeout: 10_000 },
      )
      .toEqual(['code', 'x'])
    const response = await send('plain', { x: 1 })
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('missing_variables')
    expect(error.details).toEqual([expect.objectContaining({ variable: 'code' })])
    expect(await textOf(await send('plain', { x: 1, code: 'A7' }))).toBe('Code: A7')
  })

  it('hot-reloads: added, changed, removed (then the text is derived from the HTML again)', async () => {
    const file = join(sandbox.templatesDir, 'plain.txt.liquid')
    await writeFile(file, 'Version two {{ x }}')
    await expect
      .poll(() => previewText('plain', { x: 1 }), { timeout: 10_000 })
      .toBe('Version two 1')
    await unlink(file)
    await expect
      .poll(() => previewText('plain', { x: 1 }), { timeout: 10_000 })
      .toBe('No text version: 1')
    await writeFile(file, 'Back {{ x }}')
    await expect.poll(() => previewText('plain', { x: 2 }), { timeout: 10_000 }).toBe('Back 2')
    // A partial it uses, changed.
    await writeFile(
      join(sandbox.templatesDir, 'partials', 'sig.liquid'),
      '-- signed, {{ team | default: "us" }}',
    )
    await expect
      .poll(() => previewText('welcome', { name: 'Ada' }), { timeout: 10_000 })
      .toBe('Welcome, Ada & co <3\n-- signed, us')
  })

  it('one that does not parse makes the template invalid, pointing into it', async () => {
    const file = join(sandbox.templatesDir, 'broken.liquid')
    await writeFile(file, '<p>fine</p>')
    await writeFile(
      join(sandbox.templatesDir, 'broken.txt.liquid'),
      'line one\n{% if x %}never closed',
    )
    await expect
      .poll(async () => (await errorOf(await send('broken', {}))).code, { timeout: 10_000 })
      .toBe('template_invalid')
    const error = await errorOf(await send('broken', {}))
    expect(error.code).toBe('template_invalid')
    expect(error.details).toEqual([expect.objectContaining({ file: 'broken.txt.liquid', line: 2 })])
    await rm(join(sandbox.templatesDir, 'broken.txt.liquid'))
    await expect.poll(async () => (await send('broken', {})).status, { timeout: 10_000 }).toBe(201)
  })

  it('sendbox render --text prints it; sendbox check does not take it for a template', async () => {
    await mkdir(join(sandbox.dir, 'fixtures'), { recursive: true })
    await writeFile(
      join(sandbox.dir, 'fixtures', 'welcome.json'),
      JSON.stringify({ name: 'Grace' }),
    )
    const rendered = await runCli([
      'render',
      'welcome',
      '--text',
      '--templates',
      sandbox.templatesDir,
      '--fixtures',
      join(sandbox.dir, 'fixtures'),
    ])
    expect(rendered.stdout).toContain('Welcome, Grace & co <3')
    const check = await runCli([
      'check',
      '--no-email-checks',
      '--templates',
      sandbox.templatesDir,
      '--fixtures',
      join(sandbox.dir, 'fixtures'),
    ])
    expect(check.stdout).not.toContain('welcome.txt')
  })
})
