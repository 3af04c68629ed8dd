import { afterAll, beforeAll, expect, it } from 'vitest'
import { resolve, type Json } from './helpers/openapi.js'
import type { TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

/**
 * Every bad input is a 4xx, on both stores, walked from the served document (a route added later
 * is walked too): a NUL character in any query or path parameter is `400`, and every integer a
 * body or a query takes is bounded in the document (within what a PostgreSQL `integer` holds
 * where one lands in a column), its maximum taken and one more refused. PostgreSQL refuses a NUL
 * in text and a number past 2^31 − 1 in an integer with an error the route would answer 500.
 */

/** The largest value of a PostgreSQL `integer` column. */
const PG_INTEGER_MAX = 2 ** 31 - 1

/** A body each operation with one is walked with, where the document shows none. */
const BODIES: Record<string, Json> = {
  createSession: { token: 'sandbox_walk' },
  simulateEvent: { type: 'opened' },
  releaseMessage: { to: ['me@example.com'] },
  checkTemplate: { variables: {} },
  saveFixture: { name: 'walked', variables: { name: 'Ada' } },
}

interface Walked {
  method: string
  path: string
  op: Json
}

onEachStore((store) => {
  let sandbox: TestSandbox
  let doc: Json
  const values: Record<string, string> = {
    slug: 'welcome',
    template: 'welcome',
    case: 'default',
    variant: '375-light',
    address: 'ada%40example.com',
  }
  beforeAll(async () => {
    sandbox = await store.start({ 'welcome.liquid': '<p>Hi {{ name }}</p>' })
    doc = (await (await sandbox.api('/_sandbox/api/openapi.json')).json()) as Json
    const sent = await sandbox.send({
      template: 'welcome',
      from: 'a@acme.test',
      to: 'ada@example.com',
      subject: 'Hi',
      templateVariables: { name: 'Ada' },
    })
    values.id = ((await sent.json()) as { id: string }).id
  })
  afterAll(() => sandbox?.close())

  const operations = (): Walked[] =>
    Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    )

  /** The path with each `{name}` a value that exists, but `name` given as `raw` (encoded already). */
  const pathOf = (path: string, name?: string, raw?: string) =>
    path.replace(/\{(\w+)\}/g, (_, key: string) => (key === name ? raw! : values[key]!))

  /** Sends and reads the answer; a stream that opened is cancelled (its status is what counts). */
  async function call(method: string, url: string, body?: unknown) {
    const response = await sandbox.api(url, {
      method,
      ...(body === undefined ? {} : { json: body }),
    })
    const type = response.headers.get('content-type') ?? ''
    const text = type.includes('event-stream')
      ? (await response.body?.cancel(), '')
      : await response.text()
    return { status: response.status, type, text }
  }

  it('a NUL in any query or path parameter is 400 with the one error shape', async () => {
    let walked = 0
    for (const { method, path, op } of operations()) {
      for (const param of (op.parameters ?? []) as Json[]) {
        if (param.in !== 'query' && param.in !== 'path') continue
        const url =
          param.in === 'path'
            ? pathOf(path, param.name, 'x%00y')
            : `${pathOf(path)}?${param.name}=x%00y${op.parameters.some((p: Json) => p.name === 'timeout') ? '&timeout=0' : ''}`
        const body = op.requestBody ? (BODIES[op.operationId] ?? {}) : undefined
        const answer = await call(method, url, body)
        const where = `${method} ${url} → ${answer.text.slice(0, 200)}`
        expect(answer.status, where).toBe(400)
        expect(answer.type, where).toContain('application/json')
        expect(JSON.parse(answer.text).error.code, where).toMatch(/^invalid_/)
        walked++
      }
    }
    expect(walked).toBeGreaterThan(60)
  }, 60_000)

  /** Every integer of a schema, with where it sits in a body (`count`, `match.limit`). */
  function integersOf(schema: Json, at: string[] = []): Array<{ at: string[]; schema: Json }> {
    const s = resolve(doc, schema)
    // An enum (a fault's status) is bounded by its values.
    if (s.type === 'integer') return s.enum ? [] : [{ at, schema: s }]
    const nested = [...(s.oneOf ?? []), ...(s.anyOf ?? [])] as Json[]
    return [
      ...Object.entries((s.properties ?? {}) as Record<string, Json>).flatMap(([key, value]) =>
        integersOf(value, [...at, key]),
      ),
      ...nested.flatMap((option) => integersOf(option, at)),
    ]
  }

  const withValue = (body: Json, at: string[], value: number): Json => {
    const [key, ...rest] = at
    return { ...body, [key!]: rest.length ? withValue(body[key!] ?? {}, rest, value) : value }
  }

  it('every integer of a body is bounded in the document: its maximum is taken, one more is 422', async () => {
    let walked = 0
    for (const { method, path, op } of operations()) {
      const content = op.requestBody?.content?.['application/json']
      if (!content) continue
      const example = Object.values((content.examples ?? {}) as Record<string, Json>)[0]?.value
      const base = (example ?? BODIES[op.operationId] ?? {}) as Json
      for (const { at, schema } of integersOf(content.schema)) {
        const where = `${method} ${path} ${at.join('.')}`
        expect(schema.maximum, `${where} has no maximum`).toBeTypeOf('number')
        expect(schema.maximum, where).toBeLessThanOrEqual(PG_INTEGER_MAX)
        const top = await call(method, pathOf(path), withValue(base, at, schema.maximum))
        expect(top.status, `${where} = ${schema.maximum} → ${top.text.slice(0, 200)}`).toBeLessThan(
          300,
        )
        const past = await call(method, pathOf(path), withValue(base, at, schema.maximum + 1))
        expect(past.status, `${where} = ${schema.maximum + 1} → ${past.text.slice(0, 200)}`).toBe(
          422,
        )
        walked++
      }
      // What the walk armed goes, so that it fails no later send.
      await sandbox.api('/_sandbox/api/faults', { method: 'DELETE' })
    }
    expect(walked).toBeGreaterThanOrEqual(2)
  })

  /** Every string property of a schema, with where it sits in a body (`match.to`). */
  function stringsOf(schema: Json, at: string[] = []): string[][] {
    const s = resolve(doc, schema)
    if (s.type === 'string' && at.length) return [at]
    return Object.entries((s.properties ?? {}) as Record<string, Json>).flatMap(([key, value]) =>
      stringsOf(value, [...at, key]),
    )
  }

  const withText = (body: Json, at: string[], text: string): Json => {
    const [key, ...rest] = at
    return { ...body, [key!]: rest.length ? withText(body[key!] ?? {}, rest, text) : text }
  }

  it('a NUL in any string of a body is answered, never 5xx (stored as json, which keeps it)', async () => {
    let walked = 0
    for (const { method, path, op } of operations()) {
      const content = op.requestBody?.content?.['application/json']
      if (!content || path === '/messages') continue
      const example = Object.values((content.examples ?? {}) as Record<string, Json>)[0]?.value
      const base = (example ?? BODIES[op.operationId] ?? {}) as Json
      for (const at of stringsOf(content.schema)) {
        const answer = await call(method, pathOf(path), withText(base, at, 'x\u0000y'))
        const where = `${method} ${path} ${at.join('.')} → ${answer.text.slice(0, 200)}`
        expect(answer.status, where).toBeLessThan(500)
        walked++
      }
      await sandbox.api('/_sandbox/api/faults', { method: 'DELETE' })
    }
    expect(walked).toBeGreaterThanOrEqual(4)
  })

  it('every integer query parameter at its maximum is answered, not 5xx', async () => {
    for (const { method, path, op } of operations()) {
      for (const param of (op.parameters ?? []) as Json[]) {
        if (param.in !== 'query' || param.schema?.type !== 'integer') continue
        const value = param.name === 'timeout' ? 0 : param.schema.maximum
        const answer = await call(method, `${pathOf(path)}?${param.name}=${value}`)
        expect(answer.status, `${method} ${path}?${param.name}=${value}`).toBeLessThan(500)
      }
    }
  })
})
