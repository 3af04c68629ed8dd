import { request } from 'node:http'
import { rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, startTestSandbox, type TestSandbox } from './helpers/sandbox.js'
import { jsonOf } from './helpers/http.js'

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

  async function until(check: () => Promise<boolean>) {
    const deadline = Date.now() + 5000
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the reload')
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  it('a changed partial is seen by its parent on the next send, and announced as a template event', async () => {
    const events = fetch(`${sandbox.url}/_sandbox/api/events`)
    const vars = { name: 'Ada', sender: 'Bob', company: 'Acme' }
    expect(await htmlOf(await send('welcome', vars))).toContain('-- Bob')
    await writeFile(join(sandbox.templatesDir, 'partials/sig.liquid'), 'Cheers, {{ sender }}')
    await until(async () => (await htmlOf(await send('welcome', vars))).includes('Cheers, Bob'))
    const reader = (await events).body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    while (!/event: template\ndata: .*"slug":"welcome"/.test(text)) {
      const { value, done } = await reader.read()
      if (done) break
      text += value
    }
    expect(text).toMatch(/event: template\ndata: .*"slug":"welcome"/)
    await reader.cancel()
  })

  it('an added template, an atomic save, a rename and a delete take effect without a restart', async () => {
    const file = join(sandbox.templatesDir, 'fresh.liquid')
    await writeFile(file, 'v1 {{ x }}')
    await until(async () => (await send('fresh', { x: 1 })).status === 201)
    // Editor-style save: write a temp file, then rename it over the template.
    await writeFile(`${file}.tmp`, 'v2 {{ x }}')
    await rename(`${file}.tmp`, file)
    await until(async () => (await htmlOf(await send('fresh', { x: 1 }))).startsWith('v2'))
    await rename(file, join(sandbox.templatesDir, 'renamed.liquid'))
    await until(
      async () =>
        (await send('fresh', { x: 1 })).status === 422 &&
        (await send('renamed', { x: 1 })).status === 201,
    )
    await rm(join(sandbox.templatesDir, 'renamed.liquid'))
    await until(async () => (await get('/templates/renamed')).status === 404)
    await writeFile(join(sandbox.templatesDir, 'renamed.liquid'), 'back {{ x }}')
    await until(async () => (await get('/templates/renamed')).status === 200)
  })
})
