import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { compileErrors, validate } from '@readme/openapi-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_ERRORS } from '../src/api/schema.js'
import { FAULT_STATUSES } from '../src/core/faults.js'
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
  expect(response.headers.get('content-type')).toContain('application/json')
  doc = (await response.json()) as Json
})
afterAll(() => sandbox?.close())

const valid = { template: 'welcome', from: 'Acme <hello@acme.test>', to: 'ada@example.com', subject: 'Hi', templateVariables: { name: 'Ada' } }

/** Every route of CONTRACT.md §1, §3, §6 and the README's API and inspector tables. */
const CONTRACT_ROUTES: Array<[method: string, path: string]> = [
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

describe('GET /_sandbox/api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./)
    const result = await validate(structuredClone(doc) as never)
    if (!result.valid) throw new Error(compileErrors(result))
    expect(result.valid).toBe(true)
    expect(doc.servers).toEqual([{ url: sandbox.url }])
  })

  it('has every route of the contract', () => {
    for (const [method, path] of CONTRACT_ROUTES) expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined()
  })

  it('has every API and inspector route registered in src/ (none forgotten)', async () => {
    const registered = new Set<string>()
    for (const file of await sourceFiles()) {
      for (const m of (await readFile(file, 'utf8')).matchAll(/route\(app, '((?:\/messages|\/templates|\/_sandbox\/api)[^']*)'/g)) {
        if (!m[1]!.endsWith('/**')) registered.add(m[1]!.replace(/:(\w+)/g, '{$1}'))
      }
    }
    expect(registered.size).toBeGreaterThan(15)
    for (const path of registered) expect(Object.keys(doc.paths), path).toContain(path)
  })

  it('lists exactly the methods each route accepts (the server\'s Allow header agrees)', async () => {
    const sent = (await (await sandbox.send(valid)).json()) as { id: string }
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      const url = path.replace('{slug}', 'welcome').replace('{id}', sent.id)
      const response = await fetch(`${sandbox.url}${url}`, { method: 'PATCH' })
      expect(response.status, `PATCH ${url}`).toBe(405)
      const allowed = response.headers.get('allow')!.split(/,\s*/).filter((m) => m !== 'HEAD').map((m) => m.toLowerCase()).sort()
      expect(allowed, path).toEqual(Object.keys(item).sort())
    }
  })

  it('describes every webhook payload under the top-level webhooks (OpenAPI 3.1), and the status filter', () => {
    const types = ['message.sent', 'message.delivered', 'message.deferred', 'message.bounced', 'message.complained', 'message.suppressed', 'message.opened', 'message.clicked']
    expect(Object.keys(doc.webhooks).sort()).toEqual([...types].sort())
    for (const type of types) {
      const post = doc.webhooks[type].post
      expect(post.parameters.map((p: Json) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature'])
      const schema = doc.components.schemas[post.requestBody.content['application/json'].schema.$ref.split('/').at(-1)]
      expect(schema.properties.type).toEqual({ const: type })
      expect(schema.properties.data.required).toEqual(expect.arrayContaining(['id', 'project', 'template', 'recipient', 'subject', 'status']))
    }
    expect(doc.components.schemas.WebhookEventBounced.properties.data.required).toContain('bounce')
    for (const path of ['/_sandbox/api/messages', '/_sandbox/api/messages/wait']) {
      expect(doc.paths[path].get.parameters.find((p: Json) => p.name === 'status').schema.enum).toEqual(['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'deferred'])
    }
    expect(doc.components.schemas.MessageRecord.required).toContain('recipients')
  })

  it('describes the token scheme as an apiKey in the Authorization header, on the API routes only', () => {
    expect(doc.components.securitySchemes.token).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' })
    expect(doc.security).toEqual([{ token: [] }])
    expect(doc.paths['/messages'].post.security).toBeUndefined()
    expect(doc.paths['/templates/{slug}'].get.security).toBeUndefined()
    expect(doc.paths['/_sandbox/api/messages'].get.security).toEqual([])
  })

  it('POST /messages: the request schema, 201, and every error status with the error schema', () => {
    const post = doc.paths['/messages'].post
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SendRequest' })
    expect(post.responses['201'].headers.Location).toBeDefined()
    const statuses = Object.keys(post.responses).filter((s) => s !== '201').map(Number)
    expect(statuses).toEqual(expect.arrayContaining([400, 401, 403, 405, 413, 415, 422, 500, ...FAULT_STATUSES]))
    for (const status of statuses) expect(post.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' })
    expect(post.responses['429'].headers['Retry-After']).toBeDefined()
    expect(post.responses['401'].headers['WWW-Authenticate']).toBeDefined()
    expect(Object.keys(post.responses['422'].content['application/json'].examples).sort()).toEqual(['missing_variables', 'render_failed', 'template_invalid', 'template_not_found', 'validation_failed'])
    expect(doc.components.schemas.FaultInput.properties.status.enum).toEqual([...FAULT_STATUSES])
  })

  it('every error code the source raises is in the one error list (and so in the document)', async () => {
    const files = await sourceFiles()
    const raised = new Set<string>()
    for (const file of files) {
      const text = await readFile(file, 'utf8')
      for (const m of text.matchAll(/apiError\((\d{3}), '([a-z_]+)'/g)) raised.add(`${m[1]} ${m[2]}`)
      for (const m of text.matchAll(/(\d{3}): \['([a-z_]+)'/g)) raised.add(`${m[1]} ${m[2]}`)
    }
    expect(raised.size).toBeGreaterThan(15)
    const listed = new Set(API_ERRORS.map((e) => `${e.status} ${e.code}`))
    for (const pair of raised) expect(listed, `${pair} is raised in src/ but missing from API_ERRORS`).toContain(pair)
    // Errors written without apiError (the 500 and the HTTP parse error): at least their codes.
    const codes = new Set(API_ERRORS.map((e) => e.code as string))
    for (const file of files) {
      for (const m of (await readFile(file, 'utf8')).matchAll(/errorBody\('([a-z_]+)'/g)) expect(codes, `${m[1]} (in ${file})`).toContain(m[1])
    }
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual([...new Set(API_ERRORS.map((e) => e.code))])
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

  it('a body built from the schema\'s examples is accepted', async () => {
    const body: Json = {}
    for (const [name, property] of Object.entries(schema().properties as Record<string, Json>)) body[name] = property.examples[0]
    body.template = 'welcome'
    body.templateVariables = { name: 'Ada' }
    expect(await detailsOf(body)).toBe('accepted')
  })

  it('each required field, and only those, is required', async () => {
    const required = schema().required as string[]
    expect(required.sort()).toEqual(['from', 'subject', 'template', 'to'])
    for (const name of Object.keys(schema().properties)) {
      const { [name]: _dropped, ...body } = valid as Json
      const result = await detailsOf(body)
      if (required.includes(name)) expect(result, name).toContainEqual(expect.objectContaining({ field: name, code: 'required' }))
      else expect(result, name).toBe('accepted')
    }
  })

  it('additionalProperties: false holds (an unknown field is refused)', async () => {
    expect(schema().additionalProperties).toBe(false)
    expect(await detailsOf({ ...valid, templateVars: {} })).toContainEqual(expect.objectContaining({ field: 'templateVars', code: 'unknown_field' }))
  })

  it('to: maxItems recipients pass, maxItems + 1 are refused; minItems - 1 too', async () => {
    const array = schema().properties.to.oneOf.find((s: Json) => s.type === 'array')
    const { minItems, maxItems } = array as { minItems: number; maxItems: number }
    expect(maxItems).toBe(50)
    const recipients = (n: number) => Array.from({ length: n }, (_, i) => `User ${i} <user${i}@example.com>`)
    expect(await detailsOf({ ...valid, to: recipients(maxItems) })).toBe('accepted')
    expect(await detailsOf({ ...valid, to: recipients(maxItems + 1) })).toEqual([expect.objectContaining({ field: 'to', code: 'too_many' })])
    expect(await detailsOf({ ...valid, to: recipients(minItems - 1) })).toEqual([expect.objectContaining({ field: 'to', code: 'too_few' })])
  })

  it('subject: maxLength characters pass, maxLength + 1 are refused; minLength - 1 too', async () => {
    const { minLength, maxLength } = schema().properties.subject as { minLength: number; maxLength: number }
    expect(maxLength).toBe(998)
    expect(await detailsOf({ ...valid, subject: 'x'.repeat(maxLength) })).toBe('accepted')
    expect(await detailsOf({ ...valid, subject: 'x'.repeat(maxLength + 1) })).toEqual([expect.objectContaining({ field: 'subject', code: 'too_long' })])
    expect(await detailsOf({ ...valid, subject: 'x'.repeat(minLength - 1) })).toEqual([expect.objectContaining({ field: 'subject', code: 'too_short' })])
  })

  it('types: a value of the wrong JSON type is refused for every property', async () => {
    for (const [name, property] of Object.entries(schema().properties as Record<string, Json>)) {
      const wrong = property.type === 'object' ? 'a string' : 42
      expect(await detailsOf({ ...valid, [name]: wrong }), name).toContainEqual(expect.objectContaining({ field: name, code: 'invalid_type' }))
    }
  })

  it('fault statuses: each one in the enum can be armed, any other is refused', async () => {
    const statuses = doc.components.schemas.FaultInput.properties.status.enum as number[]
    for (const status of statuses) expect((await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'POST', body: JSON.stringify({ status }) })).status).toBe(201)
    await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
    expect((await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'POST', body: JSON.stringify({ status: 504 }) })).status).toBe(422)
  })

  it('paging limits: limit up to its maximum passes, one more is refused', async () => {
    const limit = doc.paths['/_sandbox/api/messages'].get.parameters.find((p: Json) => p.name === 'limit').schema
    expect((await fetch(`${sandbox.url}/_sandbox/api/messages?limit=${limit.maximum}`)).status).toBe(200)
    expect((await fetch(`${sandbox.url}/_sandbox/api/messages?limit=${limit.maximum + 1}`)).status).toBe(400)
    const timeout = doc.paths['/_sandbox/api/messages/wait'].get.parameters.find((p: Json) => p.name === 'timeout').schema
    expect((await fetch(`${sandbox.url}/_sandbox/api/messages/wait?timeout=${timeout.maximum + 1}`)).status).toBe(400)
  })
})
