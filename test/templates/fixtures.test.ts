import fs from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fixtureSlugOf } from '../../src/templates/fixtures.js'
import { makeCatalog, type Fixture } from './helpers.js'

let fixture: Fixture | undefined
afterEach(async () => {
  await fixture?.close()
  fixture = undefined
})

describe('fixtures', () => {
  it('reads <slug>.json as "default" and <slug>/<case>.json as named cases, default first', async () => {
    fixture = await makeCatalog(
      { 'welcome.liquid': '{{ name }}', 'order.liquid': '{{ order.id }}' },
      {
        'welcome.json': '{ "name": "Ada" }',
        'order/zeta.json': '{ "order": { "id": 3 } }',
        'order/default.json': '{ "order": { "id": 1 } }',
        'order/big.json': '{ "order": { "id": 2 } }',
        'order/notes.txt': 'ignored',
      },
    )
    const { catalog, fixturesDir } = fixture
    expect(catalog.fixtures('welcome')).toEqual([
      { name: 'default', file: path.join(fixturesDir, 'welcome.json'), variables: { name: 'Ada' } },
    ])
    expect(catalog.fixtures('order').map((c) => [c.name, c.variables])).toEqual([
      ['default', { order: { id: 1 } }],
      ['big', { order: { id: 2 } }],
      ['zeta', { order: { id: 3 } }],
    ])
    expect(catalog.fixtures('unknown')).toEqual([])
    expect(fixture.warnings).toEqual([])
  })

  it('reports invalid JSON and non-objects on the case and through warn, never throws', async () => {
    fixture = await makeCatalog(
      { 'a.liquid': '' },
      {
        'a/broken.json': '{ "name": ',
        'a/list.json': '[1, 2]',
        'a/null.json': 'null',
        'a/ok.json': '{}',
      },
    )
    const cases = fixture.catalog.fixtures('a')
    expect(cases.map((c) => c.name)).toEqual(['broken', 'list', 'null', 'ok'])
    expect(cases[0]).toMatchObject({
      name: 'broken',
      error: expect.stringMatching(/^Invalid JSON at line 1 column 11: /),
    })
    expect(cases[0]!.variables).toBeUndefined()
    expect(cases[1]).toMatchObject({
      error: 'A fixture must be a JSON object of template variables.',
    })
    expect(cases[2]).toMatchObject({
      error: 'A fixture must be a JSON object of template variables.',
    })
    expect(cases[3]).toEqual({
      name: 'ok',
      file: path.join(fixture.fixturesDir, 'a', 'ok.json'),
      variables: {},
    })
    expect(fixture.warnings).toHaveLength(3)
    expect(fixture.warnings.join('\n')).toContain(path.join('a', 'broken.json'))
  })

  it('prefers <slug>.json over <slug>/default.json, with a warning', async () => {
    fixture = await makeCatalog(
      { 'a.liquid': '' },
      { 'a.json': '{ "v": 1 }', 'a/default.json': '{ "v": 2 }' },
    )
    expect(fixture.catalog.fixtures('a')).toMatchObject([{ name: 'default', variables: { v: 1 } }])
    expect(fixture.warnings).toHaveLength(1)
  })

  it('has no fixtures when the folder is missing', async () => {
    fixture = await makeCatalog({ 'a.liquid': '' })
    await fs.rm(fixture.fixturesDir, { recursive: true })
    const { createTemplateCatalog } = await import('../../src/templates/index.js')
    const catalog = await createTemplateCatalog({
      templatesDir: fixture.templatesDir,
      fixturesDir: fixture.fixturesDir,
      watch: false,
    })
    expect(catalog.fixtures('a')).toEqual([])
    await catalog.close()
  })
})

describe('fixtureSlugOf', () => {
  it('maps changed paths to their slug', () => {
    expect(fixtureSlugOf('welcome.json')).toBe('welcome')
    expect(fixtureSlugOf('order/big.json')).toBe('order')
    expect(fixtureSlugOf('order')).toBe('order')
    expect(fixtureSlugOf('a/b/c.json')).toBeNull()
    expect(fixtureSlugOf('..')).toBeNull()
  })
})
