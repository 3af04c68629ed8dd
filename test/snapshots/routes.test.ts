import { request } from 'node:http'
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { openEventStream, type EventStream } from '../helpers/sse.js'
import { errorOf, startTestSandbox, tempDir, type TestSandbox } from '../helpers/sandbox.js'

/**
 * The inspector's snapshot routes (docs/snapshots.md#while-you-edit-the-server) on a real server: the list and its statuses,
 * one case with both renders and the diffs, either side as sandboxed HTML, the images, accept one
 * and all, the `snapshot` event when a save changes a status, and the §8 protections of a write.
 */

const WELCOME = '<html><body>\n<h1>Welcome, {{ name }}!</h1>\n</body></html>\n'
const TEMPLATES = {
  'welcome.liquid': `---\nvariables:\n  name: { example: Ada }\n---\n${WELCOME}`,
  'receipt.liquid': '<p>Order {{ order.id }}</p>\n',
}
const FIXTURES = {
  'receipt/default.json': '{ "order": { "id": "1" } }',
  'receipt/big.json': '{ "order": { "id": "2" } }',
}

let sandbox: TestSandbox
let snapshots: string
let outside: string
let stream: EventStream | undefined
beforeAll(async () => {
  const dir = await tempDir('sendbox-snap-routes-')
  snapshots = join(dir, 'snapshots')
  outside = join(dir, 'outside')
  await mkdir(outside)
  sandbox = await startTestSandbox(TEMPLATES, { snapshots }, FIXTURES)
})
afterAll(async () => {
  await sandbox?.close()
})
afterEach(() => stream?.close())

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${sandbox.url}/_sandbox/api${path}`, init)
const json = async (path: string, init: RequestInit = {}) => {
  const response = await api(path, init)
  return { status: response.status, body: (await response.json()) as any }
}
const post = (path: string) => json(path, { method: 'POST' })
const statuses = async () =>
  Object.fromEntries(
    (
      (await json('/snapshots')).body.snapshots as Array<{
        template: string
        case: string
        status: string
      }>
    ).map((s) => [`${s.template}/${s.case}`, s.status]),
  )
const writeTemplate = (name: string, text: string) =>
  writeFile(join(sandbox.templatesDir, name), text)

/** One request with the path exactly as given (fetch and URL fold `..` and `%2e%2e`). */
function rawRequest(
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(sandbox.url)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        method: init.method ?? 'GET',
        headers: { connection: 'close', ...init.headers },
      },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => {
          let body: unknown = text
          try {
            body = JSON.parse(text)
          } catch {}
          resolve({ status: res.statusCode ?? 0, body })
        })
      },
    )
    req.on('error', reject)
    req.end()
  })
}

describe('the snapshot routes', () => {
  it('lists every case, new before any snapshot, with counts and the folder', async () => {
    const { status, body } = await json('/snapshots')
    expect(status).toBe(200)
    expect(body.snapshots).toEqual([
      { template: 'receipt', case: 'default', status: 'new' },
      { template: 'receipt', case: 'big', status: 'new' },
      { template: 'welcome', case: 'default', status: 'new' },
    ])
    expect(body.counts).toEqual({ same: 0, changed: 0, new: 3, obsolete: 0 })
    expect(body.folder).toMatch(/snapshots$/)
  })

  it('accepting one writes it owner-only and says so on the event stream', async () => {
    stream = await openEventStream(sandbox.url)
    const { status, body } = await post('/snapshots/welcome/default/accept')
    expect(status).toBe(200)
    expect(body).toMatchObject({ template: 'welcome', case: 'default', status: 'same' })
    expect(body.files.map((f: string) => f.split('/').slice(-2).join('/'))).toEqual([
      'welcome/default.html',
      'welcome/default.txt',
    ])
    expect(body.counts).toEqual({ same: 1, changed: 0, new: 2, obsolete: 0 })
    expect(await readFile(join(snapshots, 'welcome/default.html'), 'utf8')).toBe(
      '<html><body>\n    <h1>Welcome, Ada!</h1>\n  </body></html>\n',
    )
    expect((await stat(join(snapshots, 'welcome/default.html'))).mode & 0o777).toBe(0o600)
    expect((await stat(join(snapshots, 'welcome'))).mode & 0o777).toBe(0o700)
    const events = await stream.until((e) => e.some((f) => f.event === 'snapshot'))
    expect(events.find((f) => f.event === 'snapshot')!.data).toEqual({
      template: 'welcome',
      case: 'default',
      status: 'same',
      previous: 'new',
      counts: { same: 1, changed: 0, new: 2, obsolete: 0 },
    })
  })

  it('saving a template that changes a render: a snapshot event, and the case in full with both sides and the diffs', async () => {
    stream = await openEventStream(sandbox.url)
    await writeTemplate('welcome.liquid', TEMPLATES['welcome.liquid'].replace('Welcome', 'Hello'))
    const events = await stream.until((e) => e.some((f) => f.event === 'snapshot'))
    expect(events.find((f) => f.event === 'snapshot')!.data).toMatchObject({
      template: 'welcome',
      case: 'default',
      status: 'changed',
      previous: 'same',
    })
    const { status, body } = await json('/snapshots/welcome/default')
    expect(status).toBe(200)
    expect(body).toMatchObject({
      template: 'welcome',
      case: 'default',
      status: 'changed',
      snapshot: {
        html: '<html><body>\n    <h1>Welcome, Ada!</h1>\n  </body></html>\n',
        text: 'Welcome, Ada!\n',
      },
      current: {
        html: '<html><body>\n    <h1>Hello, Ada!</h1>\n  </body></html>\n',
        text: 'Hello, Ada!\n',
      },
      html: {
        snapshot: '/_sandbox/api/snapshots/welcome/default/html?version=snapshot',
        current: '/_sandbox/api/snapshots/welcome/default/html?version=current',
      },
    })
    expect(body.diff.text).toContain('-Welcome, Ada!\n+Hello, Ada!')
    expect(body.diff.html).toContain('-    <h1>Welcome, Ada!</h1>\n+    <h1>Hello, Ada!</h1>')
    expect(body.images).toHaveLength(4)
    expect(body.images[0]).toEqual({
      variant: '375-light',
      width: 375,
      scheme: 'light',
      snapshot: false,
      current: false,
      diff: false,
      urls: {},
    })
    // Either side, served for a sandboxed frame like a message's HTML.
    for (const [version, text] of [
      ['snapshot', 'Welcome, Ada!'],
      ['current', 'Hello, Ada!'],
    ]) {
      const page = await api(`/snapshots/welcome/default/html?version=${version}&scheme=dark`)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-security-policy')).toContain('sandbox')
      expect(await page.text()).toContain(text)
    }
  })

  it('accepting all writes every changed and new case that renders, and skips one that does not', async () => {
    await writeTemplate('broken.liquid', '<p>{% if x %}</p>')
    await expect.poll(async () => (await statuses())['broken/default']).toBe('new')
    const { status, body } = await post('/snapshots/accept')
    expect(status).toBe(200)
    expect(body.accepted).toEqual([
      { template: 'receipt', case: 'default' },
      { template: 'receipt', case: 'big' },
      { template: 'welcome', case: 'default' },
    ])
    expect(body.skipped).toEqual([
      {
        template: 'broken',
        case: 'default',
        error: { code: 'template_invalid', message: expect.stringContaining('broken') },
      },
    ])
    expect(body.counts).toEqual({ same: 3, changed: 0, new: 1, obsolete: 0 })
    const broken = await json('/snapshots/broken/default')
    expect(broken.body).toMatchObject({
      status: 'new',
      error: { code: 'template_invalid' },
      current: null,
      diff: { html: null, text: null },
    })
    const one = await json('/snapshots/broken/default/accept', { method: 'POST' })
    expect(one.status).toBe(422)
    expect(one.body.error.code).toBe('template_invalid')
    await rm(join(sandbox.templatesDir, 'broken.liquid'))
    await expect.poll(async () => (await statuses())['broken/default']).toBeUndefined()
  })

  it('a snapshot whose case is gone is obsolete; accepting it removes its files', async () => {
    stream = await openEventStream(sandbox.url)
    await rm(join(sandbox.dir, 'fixtures/receipt/big.json'))
    const events = await stream.until((e) =>
      e.some(
        (f) => f.event === 'snapshot' && f.data.case === 'big' && f.data.status === 'obsolete',
      ),
    )
    expect(events.find((f) => f.event === 'snapshot')!.data).toMatchObject({ previous: 'same' })
    const { status, body } = await post('/snapshots/receipt/big/accept')
    expect(status).toBe(200)
    expect(body).toMatchObject({ template: 'receipt', case: 'big', status: null })
    expect((await readdir(join(snapshots, 'receipt'))).sort()).toEqual([
      'default.html',
      'default.txt',
    ])
    expect((await statuses())['receipt/big']).toBeUndefined()
  })

  it('a snapshot file changed on disk (a checkout, sendbox check -u) is seen and said', async () => {
    stream = await openEventStream(sandbox.url)
    await writeFile(join(snapshots, 'receipt/default.txt'), 'Order 0\n')
    const events = await stream.until((e) => e.some((f) => f.event === 'snapshot'))
    expect(events.find((f) => f.event === 'snapshot')!.data).toMatchObject({
      template: 'receipt',
      case: 'default',
      status: 'changed',
      previous: 'same',
    })
  })

  it('images: a PNG that is there is served as image/png, one that is not is 404 image_not_found', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    await writeFile(join(snapshots, 'welcome/default.375-dark.png'), png)
    const detail = await json('/snapshots/welcome/default')
    const image = detail.body.images.find((i: { variant: string }) => i.variant === '375-dark')
    expect(image).toMatchObject({ snapshot: true, current: false, diff: false })
    const served = await fetch(`${sandbox.url}${image.urls.snapshot}`)
    expect(served.status).toBe(200)
    expect(served.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await served.arrayBuffer())).toEqual(png)
    const missing = await api('/snapshots/welcome/default/images/600-light?image=diff')
    expect(missing.status).toBe(404)
    expect((await errorOf(missing)).code).toBe('image_not_found')
    const unknown = await api('/snapshots/welcome/default/images/800-light')
    expect(unknown.status).toBe(400)
    expect((await errorOf(unknown)).code).toBe('invalid_parameter')
  })

  it('an unknown case is 404 snapshot_not_found, for reading and for accepting', async () => {
    for (const response of [
      await api('/snapshots/welcome/nope'),
      await api('/snapshots/nope/default/accept', { method: 'POST' }),
    ]) {
      expect(response.status).toBe(404)
      expect((await errorOf(response)).code).toBe('snapshot_not_found')
    }
  })
})

describe('a write of the snapshot routes stays in the snapshot folder and on this site (docs/security.md)', () => {
  it('a template or case name that would leave the folder is refused: .., %2F, NUL, a leading dot', async () => {
    const before = await readdir(join(snapshots, '..'))
    // `..` and `%2E%2E` are folded by the server before routing, as URLs are: no snapshot
    // route is reached.
    for (const path of [
      '/_sandbox/api/snapshots/../default/accept',
      '/_sandbox/api/snapshots/%2E%2E/default/accept',
    ]) {
      const folded = await rawRequest(path, { method: 'POST' })
      expect([path, folded.status, folded.body?.error?.code]).toEqual([path, 404, 'not_found'])
    }
    const attempts = [
      ['/_sandbox/api/snapshots/..%2Foutside/default/accept', 'invalid_slug'],
      ['/_sandbox/api/snapshots/welcome%00/default/accept', 'invalid_slug'],
      ['/_sandbox/api/snapshots/.hidden/default/accept', 'invalid_slug'],
      ['/_sandbox/api/snapshots/welcome/..%2F..%2Fx/accept', 'invalid_parameter'],
      ['/_sandbox/api/snapshots/welcome/%2E%2E%2Fx/accept', 'invalid_parameter'],
      ['/_sandbox/api/snapshots/welcome/default%00.html/accept', 'invalid_parameter'],
      ['/_sandbox/api/snapshots/welcome/..%5C..%5Cx/accept', 'invalid_parameter'],
    ] as const
    for (const [path, code] of attempts) {
      const response = await rawRequest(path, { method: 'POST' })
      expect([path, response.status, response.body?.error?.code]).toEqual([path, 400, code])
    }
    expect(await readdir(join(snapshots, '..'))).toEqual(before)
    expect(await readdir(outside)).toEqual([])
  })

  it('a slug folder that is a symlink out of the snapshot folder is refused (403 snapshot_outside)', async () => {
    await rm(join(snapshots, 'welcome'), { recursive: true, force: true })
    await symlink(outside, join(snapshots, 'welcome'))
    try {
      const response = await api('/snapshots/welcome/default/accept', { method: 'POST' })
      expect(response.status).toBe(403)
      expect((await errorOf(response)).code).toBe('snapshot_outside')
      expect(await readdir(outside)).toEqual([])
    } finally {
      await rm(join(snapshots, 'welcome'))
    }
  })

  it('an accept from another site is refused (403 cross_origin_forbidden) and writes nothing', async () => {
    await rm(join(snapshots, 'welcome'), { recursive: true, force: true })
    // The folder's watcher tells the book of the removal: the case is new before anyone accepts.
    await expect.poll(async () => (await statuses())['welcome/default']).toBe('new')
    for (const headers of [
      { origin: 'http://127.0.0.2:8000' } as Record<string, string>,
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
      { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' },
    ]) {
      for (const path of [
        '/_sandbox/api/snapshots/welcome/default/accept',
        '/_sandbox/api/snapshots/accept',
      ]) {
        const response = await rawRequest(path, { method: 'POST', headers })
        expect([path, response.status, response.body?.error?.code]).toEqual([
          path,
          403,
          'cross_origin_forbidden',
        ])
      }
    }
    await expect(stat(join(snapshots, 'welcome'))).rejects.toThrow()
    expect((await statuses())['welcome/default']).toBe('new')
  })
})

describe('a saved partial changes the status of every template that uses it', () => {
  it('one snapshot event per case of each template rendering it, none for the others', async () => {
    const own = await startTestSandbox({
      'a.liquid': '<p>A</p>\n{% render "partials/footer" %}',
      'b.liquid': '<p>B</p>\n{% render "partials/footer" %}',
      'c.liquid': '<p>C</p>',
      'partials/footer.liquid': '<footer>Acme</footer>',
    })
    const events = await openEventStream(own.url)
    try {
      const accepted = await fetch(`${own.url}/_sandbox/api/snapshots/accept`, { method: 'POST' })
      expect(((await accepted.json()) as { accepted: unknown[] }).accepted).toHaveLength(3)
      await writeFile(
        join(own.templatesDir, 'partials/footer.liquid'),
        '<footer>Acme Inc.</footer>',
      )
      const seen = await events.until(
        (e) => e.filter((f) => f.event === 'snapshot' && f.data.status === 'changed').length >= 2,
      )
      const changed = seen
        .filter((f) => f.event === 'snapshot' && f.data.status === 'changed')
        .map((f) => `${f.data.template}/${f.data.case}`)
      expect(changed.sort()).toEqual(['a/default', 'b/default'])
      const list = (await (await fetch(`${own.url}/_sandbox/api/snapshots`)).json()) as {
        counts: Record<string, number>
      }
      expect(list.counts).toEqual({ same: 1, changed: 2, new: 0, obsolete: 0 })
    } finally {
      events.close()
      await own.close()
    }
  })
})
