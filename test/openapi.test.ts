import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { compileErrors, validate } from '@readme/openapi-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAULT_STATUSES } from '../src/core/faults.js'
import { ERROR_CODES } from '../src/http/error-catalog.js'
import { openApiPath } from '../src/http/openapi.js'
import { createApp } from '../src/server/app.js'
import { ALL_OPERATIONS } from '../src/server/openapi.js'
import { startServer, type RunningServer } from '../src/server/index.js'
import { ROOT } from './helpers/cli.js'
import { errorOf, startTestSandbox, type TestSandbox } from './helpers/sandbox.js'

type Json = Record<string, any>

async function sourceFiles(dir = join(ROOT, 'src')): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) files.push(...(await sourceFiles(join(dir, entry.name))))
    else if (entry.name.endsWith('.ts')) files.push(join(dir, entry.name))
  }
  return files
}

let sandbox: TestSandbox
let doc: Json
beforeAll(async () => {
  sandbox = await startTestSandbox({ 'welcome.liquid': 'Hello {{ name | default: "you" }}' })
  const response = await fetch(`${sandbox.url}/_sandbox/api/openapi.json`)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
  doc = (await response.json()) as Json
})
afterAll(() => sandbox?.close())

const valid = {
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: 'ada@example.com',
  subject: 'Hi',
  templateVariables: { name: 'Ada' },
}

/** Every route of docs/api.md#the-api, docs/inspector.md, docs/delivery.md#faults and the README's API and inspector tables. */
const DOCUMENTED_ROUTES: Array<[method: string, path: string]> = [
  ['post', '/messages'],
  ['get', '/templates'],
  ['get', '/templates/{slug}'],
  ['get', '/_sandbox/api/health'],
  ['get', '/_sandbox/api/messages'],
  ['delete', '/_sandbox/api/messages'],
  ['get', '/_sandbox/api/messages/wait'],
  ['get', '/_sandbox/api/messages/{id}'],
  ['delete', '/_sandbox/api/messages/{id}'],
  ['get', '/_sandbox/api/messages/{id}/html'],
  ['get', '/_sandbox/api/messages/{id}/text'],
  ['get', '/_sandbox/api/messages/{id}/eml'],
  ['get', '/_sandbox/api/events'],
  ['get', '/_sandbox/api/templates'],
  ['get', '/_sandbox/api/templates/{slug}'],
  ['get', '/_sandbox/api/templates/{slug}/render'],
  ['post', '/_sandbox/api/templates/{slug}/render'],
  ['get', '/_sandbox/api/templates/{slug}/preview'],
  ['post', '/_sandbox/api/previews'],
  ['get', '/_sandbox/api/previews/{id}'],
  ['post', '/_sandbox/api/templates/{slug}/fixtures'],
  ['get', '/_sandbox/api/messages/{id}/checks'],
  ['get', '/_sandbox/api/templates/{slug}/checks'],
  ['post', '/_sandbox/api/templates/{slug}/checks'],
  ['post', '/_sandbox/api/faults'],
  ['get', '/_sandbox/api/faults'],
  ['delete', '/_sandbox/api/faults'],
  ['get', '/_sandbox/api/openapi.json'],
  ['post', '/_sandbox/api/messages/{id}/events'],
  ['get', '/_sandbox/api/webhooks'],
  ['post', '/_sandbox/api/webhooks/{id}/retry'],
  ['get', '/_sandbox/api/suppressions'],
  ['delete', '/_sandbox/api/suppressions'],
  ['delete', '/_sandbox/api/suppressions/{address}'],
]

/** What sendbox serves that is not API: the inbox page and its assets, and the redirect to it. */
const UNDOCUMENTED = new Set([
  '/',
  '/_sandbox/',
  '/_sandbox/app.css',
  '/_sandbox/favicon.svg',
  '/_sandbox/:file',
  '/templates/**',
])

describe('GET /_sandbox/api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./)
    const result = await validate(structuredClone(doc) as never)
    if (!result.valid) throw new Error(compileErrors(result))
    expect(result.valid).toBe(true)
    expect(doc.servers).toEqual([{ url: sandbox.url }])
  })

  it('has every route of the contract', () => {
    for (const [method, path] of DOCUMENTED_ROUTES)
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined()
  })

  it('documents exactly the routes the app registers (one definition drives both)', async () => {
    const server: RunningServer = await startServer(
      { port: 0, memory: true, templates: sandbox.templatesDir },
      { open: false, logs: false },
    )
    try {
      const routes = (createApp(server.ctx) as unknown as { '~routes': Array<{ route: string }> })[
        '~routes'
      ].map((r) => r.route)
      const registered = routes
        .filter((route) => !UNDOCUMENTED.has(route))
        .map(openApiPath)
        .sort()
      expect(registered).toEqual(Object.keys(doc.paths).sort())
      // …and each documented operation comes from a definition with a handler.
      const defined = ALL_OPERATIONS.map(
        (op) => `${op.method.toLowerCase()} ${openApiPath(op.path)}`,
      ).sort()
      const documented = Object.entries(doc.paths as Record<string, Json>)
        .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
        .sort()
      expect(documented).toEqual(defined)
    } finally {
      await server.close()
    }
  })

  it("lists exactly the methods each route accepts (the server's Allow header agrees)", async () => {
    const sent = (await (await sandbox.send(valid)).json()) as { id: string }
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      const url = path.replace('{slug}', 'welcome').replace('{id}', sent.id)
      const response = await fetch(`${sandbox.url}${url}`, { method: 'PATCH' })
      expect(response.status, `PATCH ${url}`).toBe(405)
      const allowed = response.headers
        .get('allow')!
        .split(/,\s*/)
        .filter((m) => m !== 'HEAD')
        .map((m) => m.toLowerCase())
        .sort()
      expect(allowed, path).toEqual(Object.keys(item).sort())
    }
  })

  it('gives every operation and every parameter a description', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        expect(op.summary, `${method} ${path}`).toBeTruthy()
        expect(op.description, `${method} ${path}`).toBeTruthy()
        for (const param of op.parameters ?? [])
          expect(param.description, `${method} ${path} ${param.name}`).toBeTruthy()
      }
    }
  })

  it('says in each operation that it refuses query parameters it does not list (OpenAPI has no additionalProperties for them)', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        const names = (op.parameters ?? [])
          .filter((p: Json) => p.in === 'query')
          .map((p: Json) => `\`${p.name}\``)
        const rule = names.length
          ? `Query parameters other than ${names.join(', ')} are refused (400 invalid_parameter, naming the nearest).`
          : 'It takes no query parameters: any is refused (400 invalid_parameter).'
        expect(op.description, `${method} ${path}`).toContain(rule)
        expect(Object.keys(op.responses), `${method} ${path}`).toContain('400')
      }
    }
  })

  it('describes every webhook payload under the top-level webhooks (OpenAPI 3.1), and the status filter', () => {
    const types = [
      'message.sent',
      'message.delivered',
      'message.deferred',
      'message.bounced',
      'message.complained',
      'message.suppressed',
      'message.opened',
      'message.clicked',
    ]
    expect(Object.keys(doc.webhooks).sort()).toEqual([...types].sort())
    for (const type of types) {
      const post = doc.webhooks[type].post
      expect(post.parameters.map((p: Json) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ])
      const schema =
        doc.components.schemas[
          post.requestBody.content['application/json'].schema.$ref.split('/').at(-1)
        ]
      expect(schema.properties.type).toEqual({ const: type })
      expect(schema.properties.data.required).toEqual(
        expect.arrayContaining(['id', 'project', 'template', 'recipient', 'subject', 'status']),
      )
    }
    expect(doc.components.schemas.WebhookEventBounced.properties.data.required).toContain('bounce')
    for (const path of ['/_sandbox/api/messages', '/_sandbox/api/messages/wait']) {
      expect(
        doc.paths[path].get.parameters.find((p: Json) => p.name === 'status').schema.enum,
      ).toEqual(['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'deferred'])
    }
    expect(doc.components.schemas.MessageRecord.required).toContain('recipients')
  })

  it('describes the token scheme as an apiKey in the Authorization header, on the API routes only', () => {
    expect(doc.components.securitySchemes.token).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    })
    expect(doc.security).toEqual([{ token: [] }])
    expect(doc.paths['/messages'].post.security).toBeUndefined()
    expect(doc.paths['/templates/{slug}'].get.security).toBeUndefined()
    expect(doc.paths['/_sandbox/api/messages'].get.security).toEqual([])
  })

  it("POST /messages: the request schema, 201, and every error status with its codes' schemas", () => {
    const post = doc.paths['/messages'].post
    expect(post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/SendRequest',
    })
    expect(post.responses['201'].headers.Location).toBeDefined()
    const statuses = Object.keys(post.responses)
      .filter((s) => s !== '201')
      .map(Number)
    expect(statuses.sort()).toEqual([400, 401, 403, 405, 413, 415, 422, 429, 500, 502, 503, 507])
    expect(post.responses['429'].headers['Retry-After']).toBeDefined()
    expect(post.responses['401'].headers['WWW-Authenticate']).toBeDefined()
    const codesAt = (status: number) => {
      const schema = post.responses[status].content['application/json'].schema
      return (schema.oneOf ?? [schema])
        .map(
          (s: Json) =>
            doc.components.schemas[s.$ref.split('/').pop()].properties.error.properties.code.const,
        )
        .sort()
    }
    expect(codesAt(422)).toEqual([
      'missing_variables',
      'render_failed',
      'template_invalid',
      'template_not_found',
      'validation_failed',
    ])
    expect(post.responses['404']).toBeUndefined()
    expect(codesAt(507)).toEqual(['log_write_failed'])
    expect(codesAt(400)).toEqual(['invalid_json', 'invalid_parameter'])
    expect(post.parameters.map((p: Json) => p.name)).toEqual(['Prefer'])
    expect(doc.components.schemas.SendRequest.properties.template.pattern).toBeDefined()
  })

  it('every id path parameter has its whole pattern, which its examples and the ids sendbox makes match', async () => {
    const sent = (await (await sandbox.send(valid)).json()) as { id: string }
    const preview = (await (
      await fetch(`${sandbox.url}/_sandbox/api/previews`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ template: 'welcome', variables: {} }),
      })
    ).json()) as { id: string }
    const made: Record<string, string> = {
      '/_sandbox/api/messages': sent.id,
      '/_sandbox/api/previews': preview.id,
      // A webhook delivery id is made as a message id is (newId), with its own prefix.
      '/_sandbox/api/webhooks': sent.id.replace(/^msg_/, 'whd_'),
    }
    const ids: string[] = []
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
      for (const op of Object.values(item as Record<string, Json>))
        for (const param of (op.parameters ?? []) as Json[]) {
          if (param.in !== 'path' || param.name !== 'id') continue
          ids.push(path)
          const { pattern, examples = [] } = param.schema
          expect(pattern, path).toMatch(/^\^.*\$$/)
          const re = new RegExp(pattern, 'u')
          expect(examples.length, path).toBeGreaterThan(0)
          for (const example of examples) expect(re.test(example), `${path}: ${example}`).toBe(true)
          const kind = Object.keys(made).find((prefix) => path.startsWith(prefix))!
          expect(re.test(made[kind]!), `${path}: ${made[kind]}`).toBe(true)
        }
    // Twelve since the spam score (GET /_sandbox/api/messages/:id/spam).
    expect(ids.length).toBe(12)
  })

  it('every error a route raises is documented on some operation with that status', async () => {
    const files = await sourceFiles()
    const raised = new Set<string>()
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      for (const m of text.matchAll(/apiError\(\s*(\d{3}),\s*'([a-z_]+)'/g))
        raised.add(`${m[1]} ${m[2]}`)
    }
    expect(raised.size).toBeGreaterThan(15)
    const documented = new Set<string>()
    for (const item of Object.values(doc.paths as Record<string, Json>)) {
      for (const op of Object.values(item as Record<string, Json>)) {
        for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
          const schema = response.content?.['application/json']?.schema
          for (const ref of schema?.oneOf ?? (schema?.$ref ? [schema] : [])) {
            const code =
              doc.components.schemas[ref.$ref.split('/').pop()]?.properties?.error?.properties?.code
                ?.const
            if (code) documented.add(`${status} ${code}`)
          }
        }
      }
    }
    // The inbox page is not API (and an unknown route is no operation's); simulated_fault is raised with a variable status (all documented).
    const notApi = new Set(['503 inbox_not_built', '404 not_found'])
    for (const pair of raised)
      if (!notApi.has(pair) && !pair.endsWith('simulated_fault'))
        expect(documented, `${pair} is raised in src/ but documented nowhere`).toContain(pair)
    for (const status of FAULT_STATUSES) expect(documented).toContain(`${status} simulated_fault`)
    // Every code in the document has its description and detail shape from the one catalog.
    for (const pair of documented) expect(Object.keys(ERROR_CODES)).toContain(pair.split(' ')[1])
  })
})

describe('the document and the validation cannot drift', () => {
  const schema = () => doc.components.schemas.SendRequest as Json

  const detailsOf = async (body: unknown) => {
    const response = await sandbox.send(body)
    if (response.status === 201) return 'accepted' as const
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('validation_failed')
    return error.details as Array<{ field: string; code: string }>
  }

  it("a body built from the schema's examples is accepted", async () => {
    const body: Json = {}
    for (const [name, property] of Object.entries(schema().properties as Record<string, Json>))
      body[name] = property.examples[0]
    expect(await detailsOf(body)).toBe('accepted')
  })

  it('each required field, and only those, is required', async () => {
    const required = schema().required as string[]
    expect(required.sort()).toEqual(['from', 'subject', 'template', 'to'])
    for (const name of Object.keys(schema().properties)) {
      const { [name]: _dropped, ...body } = valid as Json
      const result = await detailsOf(body)
      if (required.includes(name))
        expect(result, name).toContainEqual(
          expect.objectContaining({ field: name, code: 'required' }),
        )
      else expect(result, name).toBe('accepted')
    }
  })

  it('additionalProperties: false holds (an unknown field is refused)', async () => {
    expect(schema().additionalProperties).toBe(false)
    expect(await detailsOf({ ...valid, templateVars: {} })).toContainEqual(
      expect.objectContaining({ field: 'templateVars', code: 'unknown_field' }),
    )
  })

  it('template: the slug pattern holds both ways', async () => {
    const pattern = new RegExp(schema().properties.template.pattern, 'u')
    for (const slug of ['0', 'a.b', '..x', 'x'.repeat(128)]) {
      expect(pattern.test(slug), slug).toBe(true)
      // Valid but absent: past the shape check (422 template_not_found, not validation_failed).
      expect((await errorOf(await sandbox.send({ ...valid, template: slug }))).code, slug).toBe(
        'template_not_found',
      )
    }
    for (const slug of ['.', '..', 'a/b', 'a b', 'x'.repeat(129), 'é']) {
      expect(pattern.test(slug), slug).toBe(false)
      expect(await detailsOf({ ...valid, template: slug }), slug).toEqual([
        expect.objectContaining({ field: 'template' }),
      ])
    }
  })

  it('from and to: the address pattern and maxLength hold both ways', async () => {
    const from = schema().properties.from
    const pattern = new RegExp(from.pattern, 'u')
    for (const address of ['Zoë <zoe@exämple.com>', '"Ada, L." <ada@example.com>', 'a@b']) {
      expect(pattern.test(address), address).toBe(true)
      expect(await detailsOf({ ...valid, from: address }), address).toBe('accepted')
    }
    for (const address of [
      '000',
      'ada@example.com (Ada)',
      'a@b, c@d',
      `${'a'.repeat(from.maxLength)}@b`,
    ]) {
      expect(pattern.test(address) && address.length <= from.maxLength, address).toBe(false)
      expect(await detailsOf({ ...valid, from: address }), address).toEqual([
        expect.objectContaining({ field: 'from' }),
      ])
    }
  })

  it('to: maxItems recipients pass, maxItems + 1 are refused; minItems - 1 too', async () => {
    const array = schema().properties.to.oneOf.find((s: Json) => s.type === 'array')
    const { minItems, maxItems } = array as { minItems: number; maxItems: number }
    expect(maxItems).toBe(50)
    const recipients = (n: number) =>
      Array.from({ length: n }, (_, i) => `User ${i} <user${i}@example.com>`)
    expect(await detailsOf({ ...valid, to: recipients(maxItems) })).toBe('accepted')
    expect(await detailsOf({ ...valid, to: recipients(maxItems + 1) })).toEqual([
      expect.objectContaining({ field: 'to', code: 'too_many' }),
    ])
    expect(await detailsOf({ ...valid, to: recipients(minItems - 1) })).toEqual([
      expect.objectContaining({ field: 'to', code: 'too_few' }),
    ])
  })

  it('subject: maxLength characters pass, maxLength + 1 are refused; minLength - 1 too', async () => {
    const { minLength, maxLength } = schema().properties.subject as {
      minLength: number
      maxLength: number
    }
    expect(maxLength).toBe(998)
    expect(await detailsOf({ ...valid, subject: 'x'.repeat(maxLength) })).toBe('accepted')
    expect(await detailsOf({ ...valid, subject: 'x'.repeat(maxLength + 1) })).toEqual([
      expect.objectContaining({ field: 'subject', code: 'too_long' }),
    ])
    expect(await detailsOf({ ...valid, subject: 'x'.repeat(minLength - 1) })).toEqual([
      expect.objectContaining({ field: 'subject', code: 'too_short' }),
    ])
  })

  it('types: a value of the wrong JSON type is refused for every property', async () => {
    for (const [name, property] of Object.entries(schema().properties as Record<string, Json>)) {
      const wrong = property.type === 'object' ? 'a string' : 42
      expect(await detailsOf({ ...valid, [name]: wrong }), name).toContainEqual(
        expect.objectContaining({ field: name, code: 'invalid_type' }),
      )
    }
  })

  it('fault statuses: each one in the enum can be armed, any other is refused', async () => {
    const statuses = doc.components.schemas.Fault.properties.status.enum as number[]
    const input =
      doc.paths['/_sandbox/api/faults'].post.requestBody.content['application/json'].schema
    expect(input.properties.status.enum).toEqual([...FAULT_STATUSES])
    const arm = (status: number) =>
      fetch(`${sandbox.url}/_sandbox/api/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status }),
      })
    for (const status of statuses) expect((await arm(status)).status).toBe(201)
    await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
    expect((await arm(504)).status).toBe(422)
  })

  it('paging limits: limit and offset up to their maximum pass, one more is refused', async () => {
    const params = doc.paths['/_sandbox/api/messages'].get.parameters
    const limit = params.find((p: Json) => p.name === 'limit').schema
    const offset = params.find((p: Json) => p.name === 'offset').schema
    expect(
      (await fetch(`${sandbox.url}/_sandbox/api/messages?limit=${limit.maximum}`)).status,
    ).toBe(200)
    expect(
      (await fetch(`${sandbox.url}/_sandbox/api/messages?limit=${limit.maximum + 1}`)).status,
    ).toBe(400)
    expect(
      (await fetch(`${sandbox.url}/_sandbox/api/messages?offset=${offset.maximum}`)).status,
    ).toBe(200)
    expect(
      (await fetch(`${sandbox.url}/_sandbox/api/messages?offset=${BigInt(offset.maximum) + 1n}`))
        .status,
    ).toBe(400)
    const timeout = doc.paths['/_sandbox/api/messages/wait'].get.parameters.find(
      (p: Json) => p.name === 'timeout',
    ).schema
    expect(
      (await fetch(`${sandbox.url}/_sandbox/api/messages/wait?timeout=${timeout.maximum + 1}`))
        .status,
    ).toBe(400)
  })

  it('enums: every value listed is taken, one outside is 400 invalid_parameter', async () => {
    const sent = (await (await sandbox.send(valid)).json()) as { id: string }
    const preview = (await (
      await fetch(`${sandbox.url}/_sandbox/api/previews`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ template: 'welcome' }),
      })
    ).json()) as { id: string }
    // A snapshot of welcome, and each image of one variant, for the snapshot routes to serve.
    await fetch(`${sandbox.url}/_sandbox/api/snapshots/welcome/default/accept`, { method: 'POST' })
    const png = Buffer.from('89504e470d0a1a0a', 'hex')
    await writeFile(join(sandbox.dir, 'snapshots/welcome/default.375-light.png'), png)
    await mkdir(join(sandbox.dir, 'snapshots/.diff/welcome'), { recursive: true })
    for (const kind of ['current', 'diff'])
      await writeFile(
        join(sandbox.dir, `snapshots/.diff/welcome/default.375-light.${kind}.png`),
        png,
      )
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      const op = item.get
      for (const param of op?.parameters ?? []) {
        if (param.in !== 'query' || !param.schema.enum) continue
        const id = path.startsWith('/_sandbox/api/previews') ? preview.id : sent.id
        const url = `${sandbox.url}${path
          .replace('{slug}', 'welcome')
          .replace('{id}', id)
          .replace('{template}', 'welcome')
          .replace('{case}', 'default')
          .replace('{variant}', '375-light')}`
        for (const value of param.schema.enum) {
          // after=now takes only mail that arrives later: accepted, it times out (404), never 400.
          if (param.name === 'after')
            expect(
              (await fetch(`${url}?${param.name}=${value}&timeout=0`)).status,
              `${path}?${param.name}=${value}`,
            ).toBe(404)
          // A wait for a status no message is in (yet) times out: accepted, never 400.
          else if (path.endsWith('/wait'))
            expect([200, 404], `${path}?${param.name}=${value}`).toContain(
              (await fetch(`${url}?${param.name}=${value}&timeout=0`)).status,
            )
          else
            expect(
              (await fetch(`${url}?${param.name}=${value}`)).status,
              `${path}?${param.name}=${value}`,
            ).toBe(200)
        }
        const refused = await fetch(`${url}?${param.name}=nope`)
        expect(refused.status, `${path}?${param.name}=nope`).toBe(400)
        expect(await errorOf(refused)).toMatchObject({
          code: 'invalid_parameter',
          details: [{ parameter: param.name }],
        })
      }
    }
  })
})
