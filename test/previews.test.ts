import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, startTestSandbox, type TestSandbox } from './helpers/sandbox.js'
import { jsonOf } from './helpers/http.js'
import { afterTemplateEvents } from './helpers/sse.js'

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox(
    {
      'welcome.liquid':
        '---\nvariables:\n  name: { example: Example }\n---\n<p>Hi {{ name }}</p><a href="http://localhost:3000/x">local</a>',
      'broken.liquid': 'ok\n{% for %}',
      'runaway.liquid': '{% for i in (1..100000000) %}x{% endfor %}',
      'defaulted.liquid': '<title>{{ title | default: "Hi" }}</title><p>{{ name }}</p>',
      'digest.liquid':
        '{% for story in stories %}<h2>{{ story.title }}</h2>{% for tag in story.tags %}<i>{{ tag }}</i>{% endfor %}{% endfor %}',
    },
    {},
    {
      'welcome/ada.json': '{"name":"Ada"}',
      'welcome/bob.json': '{"name":"Bob"}',
      'welcome/bad.json': '{nope',
    },
  )
})
afterAll(() => sandbox?.close())

const get = async (path: string) => fetch(`${sandbox.url}/_sandbox/api${path}`)

/** Runs `change`; resolves once the event stream says welcome's fixtures were reloaded. */
const fixtureReloaded = (change: () => Promise<unknown>) =>
  afterTemplateEvents(sandbox.url, change, { slug: 'welcome', source: 'fixture' })

describe('template previews (inspector)', () => {
  it('lists templates with their fixture cases', async () => {
    const body = await jsonOf(get('/templates'))
    const welcome = body.templates.find((t: { slug: string }) => t.slug === 'welcome')
    expect(welcome.fixtures.map((f: { name: string }) => f.name).sort()).toEqual([
      'ada',
      'bad',
      'bob',
    ])
    expect(body.templates.find((t: { slug: string }) => t.slug === 'broken').error).toMatchObject({
      line: 2,
    })
  })

  it('renders with a named case, the first usable case, or posted variables', async () => {
    expect((await jsonOf(get('/templates/welcome/render?case=bob'))).html).toContain('Hi Bob')
    expect((await jsonOf(get('/templates/welcome/render'))).html).toContain('Hi Ada')
    const posted = await fetch(`${sandbox.url}/_sandbox/api/templates/welcome/render`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ variables: {} }),
    })
    const body = await jsonOf(posted)
    expect(body.missing).toEqual(['name'])
    expect(body.html).toContain('<p>Hi </p>')
  })

  it('reports a broken fixture, a missing case, a broken template and a runaway render as JSON errors', async () => {
    expect((await errorOf(await get('/templates/welcome/render?case=bad'))).code).toBe(
      'fixture_invalid',
    )
    expect((await errorOf(await get('/templates/welcome/render?case=zed'))).code).toBe(
      'fixture_not_found',
    )
    const broken = await errorOf(await get('/templates/broken/render'))
    expect(broken.code).toBe('template_invalid')
    expect(broken.details[0]).toMatchObject({ file: 'broken.liquid', line: 2 })
    expect((await errorOf(await get('/templates/runaway/render'))).code).toBe('render_failed')
    expect((await errorOf(await get('/templates/nope/render'))).code).toBe('template_not_found')
  })

  it('serves the preview HTML with the sandboxing CSP', async () => {
    const response = await get('/templates/welcome/preview?case=ada')
    expect(response.headers.get('content-security-policy')).toMatch(/(^|; )sandbox/)
    expect(await response.text()).toContain('Hi Ada')
  })

  it('checks a template preview and a stored message', async () => {
    const report = await jsonOf(get('/templates/welcome/checks?case=ada'))
    expect(report.findings.map((f: { code: string }) => f.code)).toContain('localhost_link')
    const sent = await sandbox.send({
      template: 'welcome',
      from: 'a@acme.test',
      to: 'b@example.com',
      subject: 's',
      templateVariables: { name: 'Ada' },
    })
    const checks = await jsonOf(fetch(`${sandbox.url}${sent.headers.get('location')}/checks`))
    expect(
      checks.findings.find((f: { code: string }) => f.code === 'localhost_link'),
    ).toMatchObject({ severity: 'error', line: 1, column: 14, fix: expect.any(String) })
    expect(checks.clients.length).toBeGreaterThan(5)
    // Accessibility, everywhere checks are: a fragment has no <html lang> and no <title>.
    for (const found of [report.findings, checks.findings])
      expect(
        found
          .filter((f: { check: string }) => f.check === 'accessibility')
          .map((f: { code: string; severity: string }) => `${f.code} ${f.severity}`),
      ).toEqual(['missing_lang warning', 'missing_title warning'])
  })

  it('sees a fixture change on disk', async () => {
    await fixtureReloaded(() =>
      writeFile(join(sandbox.dir, 'fixtures/welcome/bob.json'), '{"name":"Robert"}'),
    )
    const { html } = await jsonOf(get('/templates/welcome/render?case=bob'))
    expect(html).toContain('Hi Robert')
  })
})

describe('live previews and fixture cases (for the variables editor)', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${sandbox.url}/_sandbox/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('renders posted variables into a sandboxed preview by id, reporting what is missing', async () => {
    const created = await post('/previews', { template: 'welcome', variables: { name: 'Live' } })
    expect(created.status).toBe(201)
    const body = await jsonOf(created)
    expect(body.missing).toEqual([])
    const page = await fetch(`${sandbox.url}${body.url}`)
    expect(page.headers.get('content-security-policy')).toMatch(/(^|; )sandbox/)
    expect(await page.text()).toContain('Hi Live')
    const empty = await jsonOf(post('/previews', { template: 'welcome', variables: {} }))
    expect(empty.missing).toEqual(['name'])
    expect((await errorOf(await post('/previews', { variables: {} }))).code).toBe(
      'validation_failed',
    )
    expect((await errorOf(await fetch(`${sandbox.url}/_sandbox/api/previews/pv_nope`))).code).toBe(
      'preview_not_found',
    )
  })

  it('?images=off blocks images through the CSP', async () => {
    const csp = (await get('/templates/welcome/preview?case=ada&images=off')).headers.get(
      'content-security-policy',
    )
    expect(csp).toContain("img-src 'none'")
    expect(
      (await get('/templates/welcome/preview?case=ada')).headers.get('content-security-policy'),
    ).not.toContain("img-src 'none'")
  })

  it('saves the current values as a new fixture case, refusing to overwrite by accident', async () => {
    await fixtureReloaded(async () => {
      const saved = await post('/templates/welcome/fixtures', {
        name: 'carol',
        variables: { name: 'Carol' },
      })
      expect(saved.status).toBe(201)
    })
    const cases = (await jsonOf(get('/templates/welcome'))).fixtures.map(
      (f: { name: string }) => f.name,
    )
    expect(cases).toContain('carol')
    expect((await jsonOf(get('/templates/welcome/render?case=carol'))).html).toContain('Hi Carol')
    expect(
      (await post('/templates/welcome/fixtures', { name: 'carol', variables: {} })).status,
    ).toBe(409)
    expect(
      (
        await post('/templates/welcome/fixtures', {
          name: 'carol',
          variables: { name: 'C2' },
          overwrite: true,
        })
      ).status,
    ).toBe(201)
    expect(
      (await errorOf(await post('/templates/welcome/fixtures', { name: '../evil', variables: {} })))
        .code,
    ).toBe('validation_failed')
  })

  it('offers a skeleton of the variables from examples and the analysis', async () => {
    const body = await jsonOf(get('/templates/welcome'))
    expect(body.skeleton).toEqual({ name: 'Example' })
  })

  it('leaves out of the skeleton a name read only through default: its default shows', async () => {
    const body = await jsonOf(get('/templates/defaulted'))
    expect(body.variables).toEqual(['name', 'title'])
    expect(body.skeleton).toEqual({ name: '<name>' })
  })

  it('gives a loop an array of objects in the skeleton, so the loop renders once with placeholders', async () => {
    const { skeleton } = await jsonOf(get('/templates/digest'))
    expect(skeleton).toEqual({
      stories: [{ tags: ['<stories[].tags[]>'], title: '<stories[].title>' }],
    })
    const rendered = await jsonOf(post('/templates/digest/render', { variables: skeleton }))
    expect(rendered.html).toBe('<h2>&lt;stories[].title&gt;</h2><i>&lt;stories[].tags[]&gt;</i>')
  })
})

describe('one preview per edit: POST /previews answers everything the inbox tabs need', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${sandbox.url}/_sandbox/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('renders posted variables: the kept HTML, the text, warnings, missing variables, the variables and the checks', async () => {
    const created = await post('/previews', {
      template: 'welcome',
      variables: { name: 'Live', extra: 1 },
    })
    expect(created.status).toBe(201)
    const body = await jsonOf(created)
    expect(body).toMatchObject({
      ok: true,
      id: expect.stringMatching(/^pv_/),
      url: `/_sandbox/api/previews/${body.id}`,
      text: expect.stringContaining('Hi Live'),
      missing: [],
      variables: { name: 'Live', extra: 1 },
    })
    expect(body.html).toContain('<p>Hi Live</p>')
    expect(body.warnings.map((w: { code: string }) => w.code)).toEqual(['unused_variable'])
    expect(body.checks.findings.map((f: { code: string }) => f.code)).toContain('localhost_link')
    expect(body.checks.counts.error).toBeGreaterThan(0)
    expect(await (await fetch(`${sandbox.url}${body.url}`)).text()).toContain('Hi Live')
  })

  it('renders a fixture case by name (its variables come back); neither variables nor a case is none', async () => {
    const bob = await jsonOf(post('/previews', { template: 'welcome', case: 'bob' }))
    expect(bob).toMatchObject({
      ok: true,
      variables: { name: expect.stringMatching(/^(Bob|Robert)$/) },
    })
    const none = await jsonOf(post('/previews', { template: 'welcome' }))
    expect(none).toMatchObject({ variables: {}, missing: ['name'] })
    const problem = await errorOf(
      await post('/previews', { template: 'welcome', case: 'bob', variables: {} }),
    )
    expect(problem.code).toBe('validation_failed')
    expect(
      (await errorOf(await post('/previews', { template: 'welcome', case: 'zed' }))).code,
    ).toBe('fixture_not_found')
  })

  it('with ?soft=1 answers 201 { ok: false } with the error, and the offending lines of the file', async () => {
    const broken = await post('/previews?soft=1', { template: 'broken' })
    // One status per operation (its definition documents it): a soft failure keeps the 201.
    expect(broken.status).toBe(201)
    const body = await jsonOf(broken)
    expect(body).toMatchObject({
      ok: false,
      error: { code: 'template_invalid', details: [{ file: 'broken.liquid', line: 2 }] },
    })
    expect(body.error.details[0].excerpt).toEqual([
      { line: 1, text: 'ok' },
      { line: 2, text: '{% for %}' },
    ])
    const runaway = await jsonOf(post('/previews?soft=1', { template: 'runaway', variables: {} }))
    expect(runaway).toMatchObject({
      ok: false,
      error: {
        code: 'render_failed',
        details: [{ file: 'runaway.liquid', excerpt: [{ line: 1 }] }],
      },
    })
    expect(
      (await jsonOf(post('/previews?soft=1', { template: 'welcome', case: 'zed' }))).error.code,
    ).toBe('fixture_not_found')
    expect((await errorOf(await post('/previews', { template: 'broken' }))).code).toBe(
      'template_invalid',
    )
  })

  it("gives the template's own source (front matter too) in its detail", async () => {
    const body = await jsonOf(get('/templates/welcome'))
    expect(body.source.startsWith('---\nvariables:')).toBe(true)
    expect(body.source).toContain('<p>Hi {{ name }}</p>')
  })
})

describe('?soft=1', () => {
  it('answers 200 with ok:false and the error instead of a 4xx', async () => {
    const broken = await get('/templates/broken/render?soft=1')
    expect(broken.status).toBe(200)
    const body = await jsonOf(broken)
    expect(body).toMatchObject({
      ok: false,
      error: { code: 'template_invalid', details: [{ file: 'broken.liquid', line: 2 }] },
    })
    const runaway = await jsonOf(get('/templates/runaway/render?soft=1'))
    expect(runaway).toMatchObject({ ok: false, error: { code: 'render_failed' } })
    const fine = await jsonOf(get('/templates/welcome/render?soft=1&case=ada'))
    expect(fine).toMatchObject({ ok: true, html: expect.stringContaining('Hi Ada') })
  })
})
