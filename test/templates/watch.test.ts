import fs from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createTemplateCatalog, type TemplateChange } from '../../src/templates/index.js'
import { html, makeCatalog, nextChange, template, tempDir, type Fixture } from './helpers.js'

let fixture: Fixture | undefined
afterEach(async () => {
  await fixture?.close()
  fixture = undefined
})

async function watched(templates: Record<string, string>, fixtures: Record<string, string> = {}) {
  fixture = await makeCatalog(templates, fixtures, { watch: true })
  const events: TemplateChange[] = []
  fixture.catalog.onChange((change) => events.push(change))
  const t = (name: string) => path.join(fixture!.templatesDir, name)
  const f = (name: string) => path.join(fixture!.fixturesDir, name)
  return { catalog: fixture.catalog, events, t, f }
}

describe('hot reload', () => {
  it('picks up an added template', async () => {
    const { catalog, t } = await watched({ 'a.liquid': 'a' })
    const added = nextChange(catalog, (c) => c.slug === 'fresh')
    await fs.writeFile(t('fresh.liquid'), 'Hello {{ name }}')
    expect(await added).toEqual({
      slug: 'fresh',
      change: 'added',
      source: 'template',
      path: 'fresh.liquid',
    })
    expect(html(catalog, 'fresh', { name: 'Ada' })).toBe('Hello Ada')
    expect(catalog.count()).toBe(2)
  })

  it('picks up a change, and listeners see the new version', async () => {
    const { catalog, t } = await watched({ 'a.liquid': 'v1 {{ x }}' })
    let seen = ''
    catalog.onChange((c) => {
      if (c.slug === 'a') seen = html(catalog, 'a', { x: 1, y: 2 })
    })
    const changed = nextChange(catalog, (c) => c.slug === 'a')
    await fs.writeFile(t('a.liquid'), 'v2 {{ y }}')
    expect(await changed).toEqual({
      slug: 'a',
      change: 'changed',
      source: 'template',
      path: 'a.liquid',
    })
    expect(seen).toBe('v2 2')
    expect(template(catalog, 'a').variables).toEqual(['y'])
  })

  it('handles delete then re-add', async () => {
    const { catalog, t } = await watched({ 'a.liquid': 'one' })
    const removed = nextChange(catalog, (c) => c.slug === 'a' && c.change === 'removed')
    await fs.rm(t('a.liquid'))
    await removed
    expect(catalog.lookup('a')).toMatchObject({ ok: false, reason: 'not_found' })
    const added = nextChange(catalog, (c) => c.slug === 'a' && c.change === 'added')
    await fs.writeFile(t('a.liquid'), 'two')
    await added
    expect(html(catalog, 'a')).toBe('two')
  })

  it('handles a rename', async () => {
    const { catalog, t, events } = await watched({ 'old.liquid': 'content' })
    const added = nextChange(catalog, (c) => c.slug === 'new' && c.change === 'added')
    const removed = nextChange(catalog, (c) => c.slug === 'old' && c.change === 'removed')
    await fs.rename(t('old.liquid'), t('new.liquid'))
    await Promise.all([added, removed])
    expect(catalog.list().map((s) => s.slug)).toEqual(['new'])
    expect(html(catalog, 'new')).toBe('content')
    expect(events.filter((e) => e.source !== 'template')).toEqual([])
  })

  it('handles an editor-style atomic save (temp file + rename) and ignores editor droppings', async () => {
    const { catalog, t, events } = await watched({ 'a.liquid': 'before' })
    const changed = nextChange(catalog, (c) => c.slug === 'a')
    await fs.writeFile(t('a.liquid~'), 'backup')
    await fs.writeFile(t('4913'), '')
    await fs.writeFile(t('.a.liquid.swp'), 'swap')
    await fs.writeFile(t('.a.liquid.tmp-1234'), 'after')
    await fs.rename(t('.a.liquid.tmp-1234'), t('a.liquid'))
    expect(await changed).toMatchObject({ slug: 'a', change: 'changed', source: 'template' })
    expect(html(catalog, 'a')).toBe('after')
    expect(catalog.list().map((s) => s.slug)).toEqual(['a'])
    expect(events.every((e) => e.slug === 'a')).toBe(true)
  })

  it('lets a .liquid file take over from an .html one with the same slug', async () => {
    const { catalog, t } = await watched({ 'x.html': 'html' })
    const changed = nextChange(catalog, (c) => c.slug === 'x')
    await fs.writeFile(t('x.liquid'), 'liquid')
    expect(await changed).toMatchObject({ change: 'changed', path: 'x.liquid' })
    expect(html(catalog, 'x')).toBe('liquid')
  })

  it('re-renders a template whose partial changed, and tells only its users', async () => {
    const { catalog, t, events } = await watched({
      'user.liquid': '[{% include "partials/p" %}]',
      'renders.liquid': '({% render "partials/p" %})',
      'other.liquid': 'other',
      'partials/p.liquid': 'v1',
    })
    expect(html(catalog, 'user')).toBe('[v1]')
    const userChanged = nextChange(catalog, (c) => c.slug === 'user')
    const rendersChanged = nextChange(catalog, (c) => c.slug === 'renders')
    await fs.writeFile(t('partials/p.liquid'), 'v2 {{ who }}')
    expect(await userChanged).toEqual({
      slug: 'user',
      change: 'changed',
      source: 'partial',
      path: 'partials/p.liquid',
    })
    await rendersChanged
    expect(html(catalog, 'user', { who: 'Ada' })).toBe('[v2 Ada]')
    expect(html(catalog, 'renders', { who: 'Ada' })).toBe('(v2 )')
    expect(template(catalog, 'user').variables).toEqual(['who'])
    expect(events.map((e) => e.slug)).not.toContain('other')
  })

  it('picks up a layout change', async () => {
    const { catalog, t } = await watched({
      'page.liquid': '{% layout "layouts/base" %}{% block content %}body{% endblock %}',
      'layouts/base.liquid': '<old>{% block content %}{% endblock %}</old>',
    })
    const changed = nextChange(catalog, (c) => c.slug === 'page')
    // An atomic save of the layout.
    await fs.writeFile(
      t('layouts/.base.liquid.tmp'),
      '<new>{% block content %}{% endblock %}</new>',
    )
    await fs.rename(t('layouts/.base.liquid.tmp'), t('layouts/base.liquid'))
    expect(await changed).toMatchObject({ source: 'partial', path: 'layouts/base.liquid' })
    expect(html(catalog, 'page')).toBe('<new>body</new>')
  })

  it('makes a template valid when its missing partial appears, and invalid when it goes', async () => {
    const { catalog, t } = await watched({ 'a.liquid': '{% include "partials/late" %}' })
    expect(catalog.lookup('a')).toMatchObject({ ok: false, reason: 'invalid' })
    const fixed = nextChange(catalog, (c) => c.slug === 'a')
    await fs.mkdir(t('partials'))
    await fs.writeFile(t('partials/late.liquid'), 'here')
    await fixed
    expect(html(catalog, 'a')).toBe('here')
    const broken = nextChange(catalog, (c) => c.slug === 'a')
    await fs.rm(t('partials/late.liquid'))
    await broken
    expect(catalog.lookup('a')).toMatchObject({ ok: false, reason: 'invalid' })
  })

  it('reloads fixtures', async () => {
    const { catalog, f } = await watched({ 'a.liquid': '{{ v }}' }, { 'a.json': '{ "v": 1 }' })
    const changed = nextChange(catalog, (c) => c.source === 'fixture')
    await fs.writeFile(f('a.json'), '{ "v": 2 }')
    expect(await changed).toEqual({
      slug: 'a',
      change: 'changed',
      source: 'fixture',
      path: 'a.json',
    })
    expect(catalog.fixtures('a')).toMatchObject([{ name: 'default', variables: { v: 2 } }])

    const added = nextChange(catalog, (c) => c.source === 'fixture' && c.path === 'a/big.json')
    await fs.mkdir(f('a'))
    await fs.writeFile(f('a/big.json'), '{ "v": 3 }')
    await added
    expect(catalog.fixtures('a').map((c) => c.name)).toEqual(['default', 'big'])

    const broken = nextChange(catalog, (c) => c.source === 'fixture' && c.path === 'a.json')
    await fs.writeFile(f('a.json'), '{ nope')
    await broken
    expect(catalog.fixtures('a')[0]).toMatchObject({ name: 'default', error: expect.any(String) })
    expect(fixture!.warnings.length).toBeGreaterThan(0)
  })

  it('stops on close (idempotent) and emits nothing after', async () => {
    const { catalog, t, events } = await watched({ 'a.liquid': 'a' })
    await catalog.close()
    await catalog.close()
    await fs.writeFile(t('b.liquid'), 'b')
    // "Nothing happens after close" has no event to wait for: a window longer than the watcher's
    // debounce (25 ms) and chokidar's own delays has to pass.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(events).toEqual([])
    expect(catalog.count()).toBe(1)
  })

  it('notices folders that did not exist at start', async () => {
    const root = await tempDir()
    const templatesDir = path.join(root, 'templates')
    const fixturesDir = path.join(root, 'fixtures')
    const catalog = await createTemplateCatalog({ templatesDir, fixturesDir, watch: true })
    try {
      expect(catalog.count()).toBe(0)
      const added = nextChange(catalog, (c) => c.slug === 'late' && c.source === 'template')
      await fs.mkdir(templatesDir)
      await fs.writeFile(path.join(templatesDir, 'late.liquid'), 'late')
      await added
      expect(html(catalog, 'late')).toBe('late')
      const fixtureAdded = nextChange(catalog, (c) => c.slug === 'late' && c.source === 'fixture')
      await fs.mkdir(fixturesDir)
      await fs.writeFile(path.join(fixturesDir, 'late.json'), '{ "a": 1 }')
      await fixtureAdded
      expect(catalog.fixtures('late')).toMatchObject([{ name: 'default', variables: { a: 1 } }])
      // Files added afterwards come through the regular watch.
      const more = nextChange(catalog, (c) => c.slug === 'more')
      await fs.writeFile(path.join(templatesDir, 'more.liquid'), 'more')
      await more
    } finally {
      await catalog.close()
      await fs.rm(root, { recursive: true, force: true })
    }
  })

  it('follows the templates folder when it is deleted and created again', async () => {
    const { catalog } = await watched({ 'a.liquid': 'a' })
    const { templatesDir } = fixture!
    const removed = nextChange(catalog, (c) => c.slug === 'a' && c.change === 'removed')
    await fs.rm(templatesDir, { recursive: true })
    await removed
    expect(catalog.count()).toBe(0)
    const added = nextChange(catalog, (c) => c.slug === 'b' && c.change === 'added')
    await fs.mkdir(templatesDir)
    await fs.writeFile(path.join(templatesDir, 'b.liquid'), 'b')
    await added
    const changed = nextChange(catalog, (c) => c.slug === 'b' && c.change === 'changed')
    await fs.writeFile(path.join(templatesDir, 'b.liquid'), 'b2')
    await changed
    expect(html(catalog, 'b')).toBe('b2')
  })
})
