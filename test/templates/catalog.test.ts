import fs from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createTemplateCatalog } from '../../src/templates/index.js'
import { html, makeCatalog, template, tempDir, type Fixture } from './helpers.js'

let fixture: Fixture | undefined
afterEach(async () => {
  await fixture?.close()
  fixture = undefined
})

describe('scanning the templates folder', () => {
  it('takes <slug>.liquid and <slug>.html at the top level only', async () => {
    fixture = await makeCatalog({
      'welcome.liquid': 'Hi',
      'invoice.html': '<p>Invoice</p>',
      'partials/button.liquid': 'button',
      'layouts/base.liquid': 'base',
      'deep/er/thing.liquid': 'deep',
      '_footer.liquid': 'footer',
      'notes.txt': 'not a template',
      'bad name.liquid': 'bad slug',
      '.hidden.liquid': 'hidden',
    })
    const { catalog } = fixture
    expect(catalog.list().map((t) => t.slug)).toEqual(['invoice', 'welcome'])
    expect(catalog.count()).toBe(2)
    expect(catalog.lookup('button').ok).toBe(false)
    expect(catalog.lookup('_footer').ok).toBe(false)
  })

  it('prefers x.liquid over x.html', async () => {
    fixture = await makeCatalog({ 'x.html': 'from html', 'x.liquid': 'from liquid' })
    expect(fixture.catalog.count()).toBe(1)
    expect(template(fixture.catalog, 'x').file).toBe(path.join(fixture.templatesDir, 'x.liquid'))
    expect(html(fixture.catalog, 'x')).toBe('from liquid')
  })

  it('yields an empty catalog for a missing folder', async () => {
    const root = await tempDir()
    const catalog = await createTemplateCatalog({
      templatesDir: path.join(root, 'nope'),
      fixturesDir: path.join(root, 'nope-either'),
      watch: false,
    })
    expect(catalog.count()).toBe(0)
    expect(catalog.list()).toEqual([])
    expect(catalog.lookup('welcome')).toEqual({ ok: false, reason: 'not_found', suggestions: [] })
    expect(catalog.fixtures('welcome')).toEqual([])
    await catalog.close()
    await catalog.close() // idempotent
    await fs.rm(root, { recursive: true })
  })

  it('fills the Template fields: absolute file, body without front matter, description, updatedAt', async () => {
    fixture = await makeCatalog({
      'welcome.liquid': '---\ndescription: Hello\n---\nHi {{ name }}\n',
    })
    const t = template(fixture.catalog, 'welcome')
    expect(t).toMatchObject({
      slug: 'welcome',
      file: path.join(fixture.templatesDir, 'welcome.liquid'),
      body: 'Hi {{ name }}\n',
      description: 'Hello',
      variables: ['name'],
      requiredPaths: ['name'],
      declared: {},
    })
    expect(new Date(t.updatedAt).toISOString()).toBe(t.updatedAt)
    expect(fixture.catalog.list()).toEqual([
      { slug: 'welcome', description: 'Hello', variables: ['name'], updatedAt: t.updatedAt },
    ])
  })

  it('sets updatedAt to the newest of the template and the partials it uses', async () => {
    fixture = await makeCatalog({
      'a.liquid': '{% include "partials/p" %}',
      'partials/p.liquid': 'p',
    })
    const { templatesDir } = fixture
    await fs.utimes(
      path.join(templatesDir, 'a.liquid'),
      new Date('2026-01-01T00:00:00Z'),
      new Date('2026-01-01T00:00:00Z'),
    )
    await fs.utimes(
      path.join(templatesDir, 'partials/p.liquid'),
      new Date('2026-02-01T00:00:00Z'),
      new Date('2026-02-01T00:00:00Z'),
    )
    const catalog = await createTemplateCatalog({
      templatesDir,
      fixturesDir: fixture.fixturesDir,
      watch: false,
    })
    expect(template(catalog, 'a').updatedAt).toBe('2026-02-01T00:00:00.000Z')
    await catalog.close()
  })
})

describe('lookup', () => {
  it('suggests near slugs and slugs containing the query', async () => {
    fixture = await makeCatalog({
      'welcome.liquid': '',
      'order-receipt.liquid': '',
      'order-shipped.liquid': '',
    })
    expect(fixture.catalog.lookup('welcom')).toEqual({
      ok: false,
      reason: 'not_found',
      suggestions: ['welcome'],
    })
    expect(fixture.catalog.lookup('order')).toEqual({
      ok: false,
      reason: 'not_found',
      suggestions: ['order-receipt', 'order-shipped'],
    })
    expect(fixture.catalog.lookup('completely-different')).toMatchObject({ suggestions: [] })
    expect(fixture.catalog.lookup('../etc/passwd')).toMatchObject({
      ok: false,
      reason: 'not_found',
    })
  })

  it('reports a Liquid syntax error with file, line (front matter counted) and column', async () => {
    fixture = await makeCatalog({
      'broken.liquid': '---\ndescription: x\n---\nline 4\n  {% if name %}never closed\n',
    })
    const found = fixture.catalog.lookup('broken')
    expect(found).toEqual({
      ok: false,
      reason: 'invalid',
      error: {
        file: 'broken.liquid',
        line: 5,
        column: 3,
        message: expect.stringMatching(/not closed/),
      },
    })
    if (!found.ok && found.reason === 'invalid') {
      expect(found.error.message).not.toMatch(/\n|line:|col:|file:/)
    }
    // Invalid templates are listed with their error.
    expect(fixture.catalog.list()[0]).toMatchObject({
      slug: 'broken',
      description: 'x',
      error: { line: 5 },
    })
    expect(fixture.catalog.count()).toBe(1)
    expect(fixture.catalog.lookup('broken')).toMatchObject({ ok: false, error: { line: 5 } })
  })

  it('treats an unknown filter or tag as a parse error', async () => {
    fixture = await makeCatalog({
      'f.liquid': 'ok\n{{ name | shout }}',
      'g.liquid': '{% frobnicate %}',
    })
    expect(fixture.catalog.lookup('f')).toMatchObject({
      reason: 'invalid',
      error: { file: 'f.liquid', line: 2, message: 'Unknown filter "shout".' },
    })
    expect(fixture.catalog.lookup('g')).toMatchObject({
      reason: 'invalid',
      error: { message: 'Unknown tag "frobnicate".' },
    })
  })

  it('reports invalid YAML front matter at its line in the file', async () => {
    fixture = await makeCatalog({
      'y.liquid': '---\ndescription: ok\nvariables:\n  name: [unclosed\n---\nHi',
    })
    const found = fixture.catalog.lookup('y')
    expect(found).toMatchObject({ ok: false, reason: 'invalid', error: { file: 'y.liquid' } })
    if (!found.ok && found.reason === 'invalid') {
      expect(found.error.line).toBeGreaterThanOrEqual(4)
      expect(found.error.line).toBeLessThanOrEqual(5)
    }
  })

  it('reports a syntax error inside a partial at the partial', async () => {
    fixture = await makeCatalog({
      'a.liquid': 'Hello\n{% include "partials/bad" %}',
      'partials/bad.liquid': 'one\ntwo {{ oops \n',
    })
    expect(fixture.catalog.lookup('a')).toMatchObject({
      ok: false,
      reason: 'invalid',
      error: { file: 'partials/bad.liquid', line: 2, column: 5 },
    })
  })

  it('reports a missing partial at the tag that names it', async () => {
    fixture = await makeCatalog({ 'a.liquid': 'Hello\n  {% render "partials/nope" %}' })
    expect(fixture.catalog.lookup('a')).toEqual({
      ok: false,
      reason: 'invalid',
      error: {
        file: 'a.liquid',
        line: 2,
        column: 3,
        message: 'Partial or layout "partials/nope" was not found in the templates folder.',
      },
    })
  })

  it('reports a template over the parse limit', async () => {
    fixture = await makeCatalog({ 'huge.liquid': 'x'.repeat(1_000_001) })
    expect(fixture.catalog.lookup('huge')).toMatchObject({
      reason: 'invalid',
      error: { message: expect.stringMatching(/longer than 1,000,000 characters/) },
    })
  })
})
