import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createEngine } from '../../src/templates/engine.js'
import { html, makeCatalog, renderSlug, type Fixture } from './helpers.js'

let fixture: Fixture | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await fixture?.close()
  fixture = undefined
})

describe('render', () => {
  it('HTML-escapes output by default; | raw opts out', async () => {
    fixture = await makeCatalog({ 't.liquid': '{{ name }}|{{ name | raw }}|{{ name | upcase }}' })
    expect(html(fixture.catalog, 't', { name: '<b>"Ada" & co</b>' })).toBe(
      '&lt;b&gt;&#34;Ada&#34; &amp; co&lt;/b&gt;|<b>"Ada" & co</b>|&lt;B&gt;&#34;ADA&#34; &amp; CO&lt;/B&gt;',
    )
  })

  it('supports size/first/last and keeps prototypes out of reach', async () => {
    fixture = await makeCatalog({
      't.liquid':
        '{{ items.size }} {{ items.first.name }} {{ items.last.name }} {{ word.size }} [{{ items.constructor }}{{ word.__proto__ }}]',
    })
    expect(
      html(fixture.catalog, 't', { items: [{ name: 'a' }, { name: 'b' }], word: 'four' }),
    ).toBe('2 a b 4 []')
  })

  it('includes top-level partials whose name starts with _', async () => {
    fixture = await makeCatalog({
      't.liquid': '{% include "_footer" %}',
      '_footer.liquid': 'footer {{ year }}',
    })
    expect(html(fixture.catalog, 't', { year: 2026 })).toBe('footer 2026')
    expect(fixture.catalog.list().map((s) => s.slug)).toEqual(['t'])
  })

  it('renders missing variables empty', async () => {
    fixture = await makeCatalog({ 't.liquid': '[{{ name }}][{{ order.id }}]' })
    expect(html(fixture.catalog, 't', {})).toBe('[][]')
  })

  it('does not modify the variables it is given', async () => {
    fixture = await makeCatalog({
      't.liquid': '{% increment n %}{% assign name = "x" %}{{ name }}',
    })
    const variables = { name: 'Ada' }
    html(fixture.catalog, 't', variables)
    expect(variables).toEqual({ name: 'Ada' })
  })

  it('finds partials without extension: .liquid first, then .html', async () => {
    fixture = await makeCatalog({
      't.liquid':
        '{% include "partials/sig" %}|{% render "partials/only-html" %}|{% include "partials/sig.html" %}',
      'partials/sig.liquid': 'liquid sig',
      'partials/sig.html': 'html sig',
      'partials/only-html.html': 'only html',
    })
    expect(html(fixture.catalog, 't')).toBe('liquid sig|only html|html sig')
  })

  it('renders layouts with blocks and parameters, and relative includes', async () => {
    fixture = await makeCatalog({
      't.liquid':
        '{% layout "layouts/base", title: "T" %}{% block content %}Hello {{ name }}{% endblock %}',
      'layouts/base.liquid':
        '<title>{{ title }}</title><main>{% block content %}{% endblock %}</main>{% include "./foot" %}',
      'layouts/foot.liquid': '<footer>f</footer>',
    })
    expect(html(fixture.catalog, 't', { name: 'Ada' })).toBe(
      '<title>T</title><main>Hello Ada</main><footer>f</footer>',
    )
  })

  it('reports a render failure inside a partial at the partial', async () => {
    fixture = await makeCatalog({
      't.liquid': '---\ndescription: x\n---\n{% include "partials/loop" %}',
      'partials/loop.liquid': 'a\n  {% for i in (1..100000000) %}x{% endfor %}',
    })
    const result = renderSlug(fixture.catalog, 't', {})
    expect(result).toEqual({
      ok: false,
      error: {
        file: 'partials/loop.liquid',
        line: 2,
        column: 3,
        message: expect.stringMatching(/^Memory limit exceeded/),
      },
    })
  })

  it('adds the front matter lines to render failure positions', async () => {
    fixture = await makeCatalog({
      't.liquid': '---\ndescription: x\n---\nfirst\n{% for i in (1..100000000) %}x{% endfor %}',
    })
    expect(renderSlug(fixture.catalog, 't', {})).toMatchObject({
      ok: false,
      error: { file: 't.liquid', line: 5, column: 1 },
    })
  })

  it('answers an unknown slug with a lookup failure, not a throw', async () => {
    fixture = await makeCatalog({})
    expect(fixture.catalog.lookup('nope')).toMatchObject({ ok: false, reason: 'not_found' })
  })
})

describe('limits', () => {
  it('stops a huge range fast', async () => {
    fixture = await makeCatalog({ 't.liquid': '{% for i in (1..100000000) %}x{% endfor %}' })
    const started = performance.now()
    const result = renderSlug(fixture.catalog, 't', {})
    expect(performance.now() - started).toBeLessThan(1000)
    expect(result).toMatchObject({ ok: false, error: { file: 't.liquid', line: 1, column: 1 } })
  })

  it('stops a long-running loop at the render time limit', async () => {
    fixture = await makeCatalog({
      't.liquid': '{% for i in (1..5000) %}{% for j in (1..5000) %}{% endfor %}{% endfor %}',
    })
    const started = performance.now()
    const result = renderSlug(fixture.catalog, 't', {})
    expect(performance.now() - started).toBeLessThan(2000)
    expect(result).toMatchObject({
      ok: false,
      error: { message: 'Render took longer than 500 ms (a runaway loop?).' },
    })
  })

  it('stops output that grows without bound', async () => {
    fixture = await makeCatalog({
      't.liquid':
        '{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}',
    })
    expect(renderSlug(fixture.catalog, 't', {})).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^Memory limit/) },
    })
  })
})

describe('confinement to the templates folder', () => {
  async function withSecret(
    templates: Record<string, string>,
  ): Promise<{ fixture: Fixture; secret: string }> {
    const f = await makeCatalog(templates)
    const secret = path.join(f.root, 'secret.liquid')
    await fsp.writeFile(secret, 'TOP SECRET')
    return { fixture: f, secret }
  }

  it('refuses absolute paths and .. without reading the file', async () => {
    const made = await makeCatalog({})
    fixture = made
    const secret = path.join(made.root, 'secret.liquid')
    await fsp.writeFile(secret, 'TOP SECRET')
    await fsp.writeFile(path.join(made.templatesDir, 'abs.liquid'), `{% include "${secret}" %}`)
    await fsp.writeFile(path.join(made.templatesDir, 'up.liquid'), '{% include "../secret" %}')
    await fsp.writeFile(
      path.join(made.templatesDir, 'layout.liquid'),
      '{% layout "../secret.liquid" %}',
    )
    await fsp.writeFile(
      path.join(made.templatesDir, 'rel.liquid'),
      '{% render "./partials/../../secret" %}',
    )
    await fsp.mkdir(path.join(made.templatesDir, 'partials'))
    const reads = vi.spyOn(fs, 'readFileSync')
    const { createTemplateCatalog } = await import('../../src/templates/index.js')
    const catalog = await createTemplateCatalog({
      templatesDir: made.templatesDir,
      fixturesDir: made.fixturesDir,
      watch: false,
    })
    for (const slug of ['abs', 'up', 'layout', 'rel']) {
      const found = catalog.lookup(slug)
      expect(found, slug).toMatchObject({
        ok: false,
        reason: 'invalid',
        error: { file: `${slug}.liquid`, line: 1 },
      })
      expect('render' in found, `${slug} must not be renderable`).toBe(false)
    }
    expect(reads.mock.calls.filter(([file]) => String(file).includes('secret'))).toEqual([])
    await catalog.close()
  })

  it('refuses a partial that is a symlink to a file outside', async () => {
    const made = await withSecret({ 't.liquid': '{% include "partials/evil" %}' })
    fixture = made.fixture
    await fsp.mkdir(path.join(fixture.templatesDir, 'partials'))
    await fsp.symlink(made.secret, path.join(fixture.templatesDir, 'partials/evil.liquid'))
    const { createTemplateCatalog } = await import('../../src/templates/index.js')
    const catalog = await createTemplateCatalog({
      templatesDir: fixture.templatesDir,
      fixturesDir: fixture.fixturesDir,
      watch: false,
    })
    expect(catalog.lookup('t')).toMatchObject({
      ok: false,
      reason: 'invalid',
      error: {
        file: 't.liquid',
        message: 'Partials and layouts must be inside the templates folder.',
      },
    })
    await catalog.close()
  })

  it('refuses a template that is a symlink to a file outside, but follows links inside', async () => {
    const made = await withSecret({ 'real.liquid': 'real' })
    fixture = made.fixture
    await fsp.symlink(made.secret, path.join(fixture.templatesDir, 'evil.liquid'))
    await fsp.symlink(
      path.join(fixture.templatesDir, 'real.liquid'),
      path.join(fixture.templatesDir, 'alias.liquid'),
    )
    const { createTemplateCatalog } = await import('../../src/templates/index.js')
    const catalog = await createTemplateCatalog({
      templatesDir: fixture.templatesDir,
      fixturesDir: fixture.fixturesDir,
      watch: false,
    })
    expect(catalog.lookup('evil')).toMatchObject({ ok: false, reason: 'invalid' })
    expect('render' in catalog.lookup('evil')).toBe(false)
    expect(html(catalog, 'alias')).toBe('real')
    await catalog.close()
  })

  it('refuses a partial name computed at render time that leaves the folder', async () => {
    const made = await withSecret({
      't.liquid': '[{% include name %}]',
      'partials/ok.liquid': 'fine',
    })
    fixture = made.fixture
    expect(html(fixture.catalog, 't', { name: 'partials/ok' })).toBe('[fine]')
    for (const name of ['../secret', made.secret, 'partials/../../secret']) {
      const result = renderSlug(fixture.catalog, 't', { name })
      expect(result, name).toMatchObject({
        ok: false,
        error: { file: 't.liquid', line: 1, column: 2 },
      })
    }
  })
})

describe('caching', () => {
  it('renders without touching the disk once loaded', async () => {
    fixture = await makeCatalog({
      't.liquid':
        '{% layout "layouts/base" %}{% block content %}{% include "partials/a" %}{% render "partials/b" %}{% endblock %}',
      'layouts/base.liquid': '<main>{% block content %}{% endblock %}</main>',
      'partials/a.liquid': 'A',
      'partials/b.html': 'B',
    })
    const calls = [
      vi.spyOn(fs, 'readFileSync'),
      vi.spyOn(fs, 'statSync'),
      vi.spyOn(fs, 'realpathSync'),
      vi.spyOn(fs, 'existsSync'),
      vi.spyOn(fs, 'openSync'),
      vi.spyOn(fs.promises, 'readFile'),
    ]
    for (let i = 0; i < 5; i++) expect(html(fixture.catalog, 't')).toBe('<main>AB</main>')
    for (const spy of calls) expect(spy).not.toHaveBeenCalled()
  })

  it('parses each partial once through the engine', () => {
    const engine = createEngine(fileURLToPath(new URL('../../templates', import.meta.url)))
    const tpl = engine.liquid.parse(
      '{% layout "layouts/base" %}{% block content %}{% render "partials/button", url: "https://example.com", label: "x" %}{% endblock %}',
      path.join(engine.root, 'x.liquid'),
    )
    engine.liquid.renderSync(tpl, {})
    const reads = engine.fs.stats.reads
    expect(reads).toBe(2)
    for (let i = 0; i < 10; i++) engine.liquid.renderSync(tpl, {})
    expect(engine.fs.stats.reads).toBe(reads)
    engine.cache.clear()
    engine.liquid.renderSync(tpl, {})
    expect(engine.fs.stats.reads).toBe(reads + 2)
  })
})
