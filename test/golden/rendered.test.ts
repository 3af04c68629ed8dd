import { readFileSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../../src/index.js'
import {
  createTemplateCatalog,
  createTextParts,
  exampleVariables,
  renderMessage,
  type TemplateCatalog,
  toPlainText,
} from '../../src/templates/index.js'
import { ROOT } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'

/** The worker's bundle: npm run build makes it. */
const WORKER = join(ROOT, 'dist/sendbox-text-worker.js')

/**
 * What a send stores (its html, its text part, its warnings) is the same, byte for byte, as main
 * stored before the send path's speed work: rendered.json was written by make-rendered.mjs from
 * that build, for every template and fixture case of the repository and the HTML samples beside it.
 */
const golden = JSON.parse(readFileSync(join(import.meta.dirname, 'rendered.json'), 'utf8')) as {
  templates: Record<string, unknown>
  samples: Record<string, string>
}
const samples = JSON.parse(
  readFileSync(join(import.meta.dirname, 'html-samples.json'), 'utf8'),
) as Record<string, string>

/** Each template/case name of rendered.json with its variables, from the repository's folders. */
function casesOf(catalog: TemplateCatalog): [string, string, Record<string, unknown>][] {
  return catalog.list().flatMap(({ slug }) => {
    const lookup = catalog.lookup(slug)
    if (!lookup.ok) throw new Error(`${slug} does not load`)
    const cases: [string, string, Record<string, unknown>][] = [
      [slug, 'examples', exampleVariables(lookup.template)],
    ]
    for (const c of catalog.fixtures(slug)) cases.push([slug, c.name, c.variables ?? {}])
    return cases
  })
}

let catalog: TemplateCatalog
beforeAll(async () => {
  catalog = await createTemplateCatalog({
    templatesDir: join(ROOT, 'templates'),
    fixturesDir: join(ROOT, 'fixtures'),
    watch: false,
  })
})
afterAll(() => catalog?.close())

describe('rendered as before', () => {
  it('covers every template and fixture case of the repository', () => {
    expect(casesOf(catalog).map(([slug, name]) => `${slug}/${name}`)).toEqual(
      Object.keys(golden.templates),
    )
  })

  it('renders each template and case to the same html, text and warnings', () => {
    for (const [slug, name, variables] of casesOf(catalog)) {
      const outcome = renderMessage(catalog, slug, variables, { lenient: true })
      expect(outcome.ok && outcome.rendered, `${slug}/${name}`).toEqual(
        golden.templates[`${slug}/${name}`],
      )
    }
  })

  it('turns each HTML sample into the same text', () => {
    for (const [name, html] of Object.entries(samples))
      expect(toPlainText(html), name).toBe(golden.samples[name])
  })

  it('turns each into the same text on the worker thread of overlapping sends', async () => {
    const texts = createTextParts(WORKER)
    try {
      texts.begin()
      texts.begin()
      // The first starts the worker (and is converted here).
      expect(texts.of('')).toBe('')
      expect(await texts.ready(), 'a worker (npm run build makes its file)').toBe(true)
      const rendered = Object.values(golden.templates) as { html: string; text: string }[]
      const htmls = [...rendered.map((r) => r.html), ...Object.values(samples)]
      const answers = htmls.map((html) => texts.of(html))
      for (const answer of answers) expect(answer).toBeInstanceOf(Promise)
      expect(await Promise.all(answers)).toEqual([
        ...rendered.map((r) => r.text),
        ...Object.values(golden.samples),
      ])
    } finally {
      await texts.close()
    }
  })
})

describe.each([
  ['the log file', false],
  ['memory', true],
])('stored as before, in %s', (_, memory) => {
  let sandbox: Sendbox
  let dir: string
  beforeAll(async () => {
    dir = await tempDir()
    sandbox = await startSendbox({
      port: 0,
      // The front matter's examples leave some variables out: they render empty, with warnings.
      lenient: true,
      ...(memory ? { memory: true } : { db: join(dir, 'messages.jsonl') }),
      templates: join(ROOT, 'templates'),
      fixtures: join(ROOT, 'fixtures'),
    })
  })
  afterAll(async () => {
    await sandbox?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('stores each template and case with the same html, text and warnings over HTTP', async () => {
    // One at a time, then all at once (three times over): sends alone convert their text parts
    // on the main thread, sends that overlap on a worker thread once it is up.
    const cases = casesOf(catalog)
    const sent: [string, string][] = []
    const send = async ([slug, name, templateVariables]: (typeof cases)[number]) => {
      const response = await fetch(`${sandbox.url}/messages`, {
        method: 'POST',
        headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          template: slug,
          from: 'Acme <hello@acme.test>',
          to: 'ada@example.com',
          subject: name,
          templateVariables,
        }),
      })
      expect(response.status, `${slug}/${name}: ${await response.clone().text()}`).toBe(201)
      sent.push([((await response.json()) as { id: string }).id, `${slug}/${name}`])
    }
    for (const c of cases) await send(c)
    await Promise.all([...cases, ...cases, ...cases].map(send))
    for (const [id, name] of sent) {
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages/${id}`)
      const { html, text, warnings } = (await response.json()) as Record<string, unknown>
      expect({ html, text, warnings }, name).toEqual(golden.templates[name])
    }
    if (!memory) {
      const lines = (await readFile(join(dir, 'messages.jsonl'), 'utf8')).trim().split('\n')
      const stored = lines
        .map((line) => JSON.parse(line) as { html?: string; text?: string })
        .filter((r) => r.html !== undefined)
      expect(stored.map((r) => r.text)).toEqual(
        sent.map(([, name]) => (golden.templates[name] as { text: string }).text),
      )
    }
  })
})
