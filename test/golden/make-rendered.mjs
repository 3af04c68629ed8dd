// Writes test/golden/rendered.json: the html, text and warnings a send stores for every template
// of templates/ with each of its fixture cases (and its front matter's examples), plus the text
// part of each HTML sample of test/golden/html-samples.json, as a built checkout renders them.
// The golden file was made from main before the send path's speed work (issue #46):
//   node test/golden/make-rendered.mjs /work/before
// test/golden/rendered.test.ts renders the same through src and expects the same bytes.
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = resolve(import.meta.dirname, '..', '..')
const built = resolve(process.argv[2] ?? ROOT)
const templates = await import(pathToFileURL(join(built, 'dist/templates/index.js')).href)
const catalog = await templates.createTemplateCatalog({
  templatesDir: join(ROOT, 'templates'),
  fixturesDir: join(ROOT, 'fixtures'),
  watch: false,
})
const rendered = {}
for (const { slug } of catalog.list()) {
  const lookup = catalog.lookup(slug)
  const cases = [
    ['examples', templates.exampleVariables(lookup.template)],
    ...catalog.fixtures(slug).map((c) => [c.name, c.variables]),
  ]
  for (const [name, variables] of cases) {
    const outcome = templates.renderMessage(catalog, slug, variables, { lenient: true })
    rendered[`${slug}/${name}`] = outcome.ok ? outcome.rendered : outcome.failure
  }
}
await catalog.close?.()
const samples = JSON.parse(readFileSync(join(import.meta.dirname, 'html-samples.json'), 'utf8'))
const texts = Object.fromEntries(
  Object.entries(samples).map(([name, html]) => [name, templates.toPlainText(html)]),
)
writeFileSync(
  join(import.meta.dirname, 'rendered.json'),
  `${JSON.stringify({ templates: rendered, samples: texts }, null, 2)}\n`,
)
