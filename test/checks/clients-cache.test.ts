import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { doIUseEmail } from '@jsx-email/doiuse-email'
import { describe, expect, it } from 'vitest'
import { CachingDoIUseEmail, CLIENTS } from '../../src/checks/clients.js'
import { parseHtml } from '../../src/checks/html.js'
import { createTemplateCatalog, renderMessage } from '../../src/templates/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

const SAMPLES = [
  '<div style="display:flex;gap:4px"><p style="margin:0">a</p></div>',
  '<style>.a{display:grid} .b:hover{color:red} @media (prefers-color-scheme: dark){body{background:#000}}</style><div class="a">x</div>',
  '<table role="presentation" width="600"><tr><td style="border-radius:8px;background-image:linear-gradient(red,blue)">x</td></tr></table>',
  '<svg width="10" height="10"></svg><video src="a.mp4"></video><img src="x.png" srcset="x2.png 2x">',
  '<style></style><p style="">empty styles</p><form action="/x"><input type="text"></form>',
]

/** doiuse's own answer, as a sorted list of its errors. */
function uncached(html: string): string[] {
  const result = doIUseEmail(html, { emailClients: CLIENTS })
  return result.success ? [] : [...new Set(result.errors)].sort()
}

describe('client support with cached answers', () => {
  it('gives exactly what doiuse gives, on first use and from the cache', async () => {
    const catalog = await createTemplateCatalog({
      templatesDir: `${root}/templates`,
      fixturesDir: `${root}/fixtures`,
      watch: false,
    })
    const htmls = [...SAMPLES]
    for (const template of catalog.list()) {
      for (const fixture of catalog.fixtures(template.slug)) {
        const outcome = renderMessage(catalog, template.slug, fixture.variables!, {
          lenient: false,
        })
        if (outcome.ok) htmls.push(outcome.rendered.html)
      }
    }
    await catalog.close()
    htmls.push(await readFile(`${root}/templates/layouts/base.liquid`, 'utf8'))
    const checker = new CachingDoIUseEmail({ emailClients: CLIENTS })
    for (const pass of ['first', 'cached']) {
      for (const html of htmls) {
        expect(
          [...new Set(checker.run(parseHtml(html)))].sort(),
          `${pass}: ${html.slice(0, 60)}`,
        ).toEqual(uncached(html))
      }
    }
  })
})

describe('client support replayed once a run', () => {
  it('keeps in each cached answer what it shares with an answer replayed earlier in the run', () => {
    // The <div>'s answer is computed after the <p>'s, in the same run: the declaration they share
    // was replayed already, yet the <div>'s cached answer must hold it for an email of its own.
    const checker = new CachingDoIUseEmail({ emailClients: CLIENTS })
    const both = '<p style="display:flex">a</p><div style="display:flex">b</div>'
    const alone = '<div style="display:flex">b</div>'
    for (const html of [both, alone])
      expect([...new Set(checker.run(parseHtml(html)))].sort(), html).toEqual(uncached(html))
  })
})
