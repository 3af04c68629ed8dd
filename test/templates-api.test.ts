import { request } from 'node:http'
import { rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, startTestSandbox, type TestSandbox } from './helpers/sandbox.js'
import { jsonOf } from './helpers/http.js'
import { afterTemplateEvents } from './helpers/sse.js'

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({
    'welcome.liquid':
      '---\ndescription: Says hello\n---\n{% layout "layouts/base" %}{% block content %}Hi {{ name }} {% include "partials/sig" %}{% endblock %}',
    'order.html':
      '{% for item in order.items %}{{ item.name }}{% endfor %}{% assign total = order.total %}{{ total }}{% render "partials/button", url: link %}',
    'broken.liquid': 'line one\n{% if %}',
    'layouts/base.liquid':
      '<main>{% block content %}{% endblock %}</main><footer>{{ company }}</footer>',
    'partials/sig.liquid': '-- {{ sender }}',
    'partials/button.liquid': '<a href="{{ url }}">{{ label | default: "Go" }}</a>',
    '_hidden.liquid': 'a partial at the top level',
  })
})
afterAll(() => sandbox?.close())

const get = (path: string) => sandbox.api(path)

function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(sandbox.url)
    const req = request(
      { host: url.hostname, port: url.port, path, headers: { authorization: 'token sandbox_x' } },
      (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('GET /templates/:slug', () => {
  it('gives the body without front matter, sorted variables (partials and layout included), description and updatedAt', async () => {
    const response = await get('/templates/welcome')
    expect(response.status).toBe(200)
    const body = await jsonOf(response)
    expect(body).toEqual({
      slug: 'welcome',
      body: '{% layout "layouts/base" %}{% block content %}Hi {{ name }} {% include "partials/sig" %}{% endblock %}',
      variables: ['company', 'name', 'sender'],
      description: 'Says hello',
      updatedAt: expect.any(String),
    })
    expect(Number.isNaN(Date.parse(body.updatedAt))).toBe(false)
  })

  it("excludes loop variables, assigned names and a render partial's own parameters", async () => {
    const body = await jsonOf(get('/templates/order'))
    expect(body.variables).toEqual(['link', 'order'])
  })

  it.each([
    ['/templates/..', 'dot-dot'],
    ['/templates/%2e%2e', 'encoded dot-dot'],
    ['/templates/a%2Fb', 'encoded slash'],
    ['/templates/a/b', 'slash'],
    ['/templates/a%00b', 'NUL'],
    [`/templates/${'a'.repeat(129)}`, 'over 128 characters'],
  ])('%s (%s) is 400 invalid_slug', async (path) => {
    const response = await rawGet(path)
    expect(response.status).toBe(400)
    expect(JSON.parse(response.body).error.code).toBe('invalid_slug')
  })

  it('128 characters is still a valid slug (404)', async () => {
    const response = await get(`/templates/${'a'.repeat(128)}`)
    expect(response.status).toBe(404)
  })

  it('a missing template is 404 template_not_found with the nearest slugs', async () => {
    const response = await get('/templates/welcom')
    expect(response.status).toBe(404)
    const error = await errorOf(response)
    expect(error.code).toBe('template_not_found')
    expect(error.message).toContain('"welcome"')
  })

  it('a template that does not parse is 422 template_invalid with file, line, column', async () => {
    const response = await get('/templates/broken')
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('template_invalid')
    expect(error.details[0]).toMatchObject({
      file: 'broken.liquid',
      line: 2,
      column: expect.any(Number),
    })
  })

  it('needs authentication', async () => {
    expect((await sandbox.api('/templates/welcome', { auth: false })).status).toBe(401)
    expect((await sandbox.api('/templates', { auth: 'live_key' })).status).toBe(403)
  })
})

describe('GET /templates and health', () => {
  it('lists templates only, sorted; health counts templates only', async () => {
    const body = (await (await get('/templates')).json()) as { templates: Array<{ slug: string }> }
    expect(body.templates.map((t) => t.slug)).toEqual(['broken', 'order', 'welcome'])
    const health = await jsonOf(fetch(`${sandbox.url}/_sandbox/api/health`))
    expect(health.templates).toBe(3)
  })
})

describe('hot reload over HTTP', () => {
  const send = (template: string, templateVariables: Record<string, unknown>) =>
    sandbox.send({
      template,
      from: 'a@acme.test',
      to: 'b@example.com',
      subject: 's',
      templateVariables,
    })
  const htmlOf = async (response: Response) =>
    (await jsonOf(fetch(`${sandbox.url}${response.headers.get('location')}`))).html as string

  /** Runs `change`; resolves once the event stream announced each `[slug, change]`. */
  const reloaded = (change: () => Promise<unknown>, ...expected: Array<[string, string]>) =>
    afterTemplateEvents(
      sandbox.url,
      change,
      ...expected.map(([slug, kind]) => ({ slug, change: kind })),
    )

  it('a changed partial is seen by its parent on the next send, and announced as a template event', async () => {
    const vars = { name: 'Ada', sender: 'Bob', company: 'Acme' }
    expect(await htmlOf(await send('welcome', vars))).toContain('-- Bob')
    // The partial's user is announced as changed, its source the partial.
    await reloaded(
      () => writeFile(join(sandbox.templatesDir, 'partials/sig.liquid'), 'Cheers, {{ sender }}'),
      ['welcome', 'changed'],
    )
    expect(await htmlOf(await send('welcome', vars))).toContain('Cheers, Bob')
  })

  it('an added template, an atomic save, a rename and a delete take effect without a restart', async () => {
    const file = join(sandbox.templatesDir, 'fresh.liquid')
    await reloaded(() => writeFile(file, 'v1 {{ x }}'), ['fresh', 'added'])
    expect((await send('fresh', { x: 1 })).status).toBe(201)
    // Editor-style save: write a temp file, then rename it over the template.
    await reloaded(async () => {
      await writeFile(`${file}.tmp`, 'v2 {{ x }}')
      await rename(`${file}.tmp`, file)
    }, ['fresh', 'changed'])
    expect(await htmlOf(await send('fresh', { x: 1 }))).toMatch(/^v2/)
    await reloaded(
      () => rename(file, join(sandbox.templatesDir, 'renamed.liquid')),
      ['fresh', 'removed'],
      ['renamed', 'added'],
    )
    expect((await send('fresh', { x: 1 })).status).toBe(422)
    expect((await send('renamed', { x: 1 })).status).toBe(201)
    await reloaded(() => rm(join(sandbox.templatesDir, 'renamed.liquid')), ['renamed', 'removed'])
    expect((await get('/templates/renamed')).status).toBe(404)
    await reloaded(
      () => writeFile(join(sandbox.templatesDir, 'renamed.liquid'), 'back {{ x }}'),
      ['renamed', 'added'],
    )
    expect((await get('/templates/renamed')).status).toBe(200)
  })
})
