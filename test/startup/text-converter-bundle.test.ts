import { cp, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toPlainText } from '../../src/templates/render.js'
import { ROOT, startCli, type RunningCli } from '../helpers/cli.js'
import { TOKEN, tempDir, writeFiles } from '../helpers/sandbox.js'

/**
 * The built sendbox converts HTML to text with html-to-text bundled into one file
 * (dist/sendbox-html-to-text.cjs, scripts/bundle.js), where the sources load the package as
 * published: the stored text must be the same bytes. Every example template with every fixture
 * case, and the cases of test/text-part.test.ts, sent to the built CLI, against the sources'
 * `toPlainText` of the same HTML.
 */
const EXTRA = {
  'data-table.html': `<p>Your order:</p>
      <table role="presentation"><tr><th>Item</th><th>Qty</th><th>Price</th></tr>
      <tr><td>Analytical Engine manual</td><td>1</td><td>24.00</td></tr>
      <tr><td>Punch cards</td><td>200</td><td>3.50</td></tr>
      <tr><td colspan="2">Total</td><td>27.50</td></tr></table><p>Thanks!</p>`,
  'layout-tables.html': `<table><tr><td><table><tr><td><p>Hello there</p></td><td><p>Side</p></td></tr><tr><td>a</td><td>b</td></tr></table></td></tr>
      <tr><td><table><tr><td><a href="https://acme.test/go">Go</a></td></tr></table></td></tr></table>`,
  'hidden.html': `<body>
      <div style="display:none;max-height:0;overflow:hidden">Preview text one</div>
      <span class="preheader">Preview text two</span>
      <div style="color:red; DISPLAY: NONE">Hidden three</div>
      <p hidden>Hidden four</p>
      <div style="mso-hide:all">Hidden five</div>
      <h1>Welcome, Ada!</h1><p>Caf&eacute; &amp; cr&egrave;me &#x1F600; <img src="x.png" alt="x"></p></body>`,
}

/** Each example template's fixture cases: `fixtures/<slug>.json`, or each file of `fixtures/<slug>/`. */
async function casesOf(slug: string): Promise<Record<string, unknown>[]> {
  const dir = join(ROOT, 'fixtures', slug)
  const files = await readdir(dir).then(
    (names) => names.filter((n) => n.endsWith('.json')).map((n) => join(dir, n)),
    () => [`${dir}.json`],
  )
  return Promise.all(files.map(async (file) => JSON.parse(await readFile(file, 'utf8'))))
}

let cli: RunningCli
let templatesDir: string
beforeAll(async () => {
  templatesDir = join(await tempDir(), 'templates')
  await cp(join(ROOT, 'templates'), templatesDir, { recursive: true })
  await writeFiles(templatesDir, EXTRA)
  cli = await startCli([
    '--port',
    '0',
    '--memory',
    '--no-open',
    '--lenient',
    '--templates',
    templatesDir,
    '--fixtures',
    join(ROOT, 'fixtures'),
  ])
})
afterAll(() => cli?.stop())

/** Sends `slug` with `variables` to the built CLI; the stored record's html and text. */
async function sent(slug: string, variables: Record<string, unknown>) {
  const answer = await fetch(`${cli.url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template: slug,
      from: 'shop@acme.test',
      to: ['ada@example.com'],
      subject: 'Hello',
      templateVariables: variables,
    }),
  })
  expect(answer.status, await answer.clone().text()).toBe(201)
  const { id } = (await answer.json()) as { id: string }
  const record = await fetch(`${cli.url}/_sandbox/api/messages/${id}`)
  return (await record.json()) as { html: string; text: string }
}

describe('the built text converter', () => {
  it('gives the same text as html-to-text as published, for every example template and fixture case', async () => {
    const slugs = (await readdir(join(ROOT, 'templates')))
      .filter((n) => n.endsWith('.liquid'))
      .map((n) => n.replace(/\.liquid$/, ''))
    expect(slugs.length).toBeGreaterThan(2)
    for (const slug of slugs)
      for (const variables of await casesOf(slug)) {
        const { html, text } = await sent(slug, variables)
        expect(text, slug).toBe(toPlainText(html))
      }
  })

  it("gives the same text for test/text-part.test.ts's cases: data and layout tables, what HTML hides, entities", async () => {
    for (const file of Object.keys(EXTRA)) {
      const { html, text } = await sent(file.replace(/\.html$/, ''), {})
      expect(text.length, file).toBeGreaterThan(0)
      expect(text, file).toBe(toPlainText(html))
    }
  })
})
