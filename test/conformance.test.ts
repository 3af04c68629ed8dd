import { spawnSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cp, mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { compileErrors, validate } from '@readme/openapi-parser'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../src/index.js'
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js'
import { ROOT } from './helpers/cli.js'
import { answerValidator, arbitraryOf, resolve, type Json } from './helpers/openapi.js'
import { tempDir } from './helpers/sandbox.js'
import { cannedSpamd } from './helpers/spamd.js'

/**
 * Conformance, from the outside, as Schemathesis does it: load the served document, validate
 * it, and for every operation send requests generated from its schemas, valid ones and
 * invalid ones, asserting that every answer's status is documented for that operation and that
 * its body matches the documented schema (with every object closed: a property the document
 * does not name fails). Seeded and bounded in cases and time.
 *
 * Both ways, as Schemathesis checks them: a request the document allows is never refused for
 * its shape (no `validation_failed`, `invalid_parameter` or `invalid_slug`), and a request it
 * does not allow (a value outside a parameter's schema, the empty string included, a parameter
 * the operation does not take, fields it says are exclusive) is refused with a 4xx.
 */

const SEED = 14
const VALID_RUNS = 80
const INVALID_RUNS = 40
/** Per operation and kind; a slow machine runs fewer cases rather than time out. */
const TIME_LIMIT_MS = 3000
/** What a refusal of the request's shape is answered with: never for a request the document allows. */
const SHAPE_CODES = new Set(['validation_failed', 'invalid_parameter', 'invalid_slug'])

let sandbox: Sendbox
let dir: string
let doc: Json
let check: ReturnType<typeof answerValidator>
const ids: string[] = []
const previewIds: string[] = []
const deliveryIds: string[] = []
let receiver: Server
const SLUGS = ['welcome', 'order-receipt', 'password-reset']

const goodSends = [
  {
    template: 'welcome',
    from: 'Acme <hello@acme.test>',
    to: 'Ada <ada@example.com>',
    subject: 'Welcome',
    templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/d' },
  },
  {
    template: 'password-reset',
    from: 'hello@acme.test',
    to: ['ada@example.com', '"Lovelace, Ada" <ada@example.org>'],
    subject: 'Reset',
    templateVariables: { name: 'Ada', resetUrl: 'https://acme.test/r' },
  },
]

const BOUNCED = 'bounce@example.com'

/** A suppressed address to look up and remove: a send to it bounces (docs/delivery.md). */
async function seedSuppression() {
  if ((await sandbox.suppressions()).some((entry) => entry.address === BOUNCED)) return
  const response = await fetch(`${sandbox.url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...goodSends[0], to: BOUNCED }),
  })
  const { id } = (await response.json()) as { id: string }
  await expect
    .poll(async () => (await sandbox.suppressions()).some((entry) => entry.address === BOUNCED), {
      message: `the bounce of ${id}`,
    })
    .toBe(true)
}

async function seedMessages() {
  if (
    ids.length > 0 &&
    (await fetch(`${sandbox.url}/_sandbox/api/messages/${ids[0]}`)).status === 200
  )
    return
  ids.length = 0
  for (const body of goodSends) {
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    ids.push(((await response.json()) as { id: string }).id)
  }
}

/** The one address releases may go to. */
const RELEASE_TO = ['me@example.com']
let smtp: TestSmtpServer
let spamd: Awaited<ReturnType<typeof cannedSpamd>>

beforeAll(async () => {
  dir = await tempDir()
  await cp(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true })
  await cp(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
  // A webhook receiver that takes everything, so that deliveries exist to list, read and retry.
  receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()))
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done))
  const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  // An SMTP server for releases to reach.
  smtp = await startSmtpServer()
  // A stand-in spamd, so that the spam score answers 200 (its own tests use a real one).
  spamd = await cannedSpamd()
  sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: join(dir, 'templates'),
    fixtures: join(dir, 'fixtures'),
    // Accepting writes snapshots: here, never into the repository.
    snapshots: join(dir, 'snapshots'),
    webhook,
    relay: `smtp://127.0.0.1:${smtp.port}`,
    relayAllow: RELEASE_TO,
    spamassassin: spamd.address,
  })
  doc = (await (await fetch(`${sandbox.url}/_sandbox/api/openapi.json`)).json()) as Json
  check = answerValidator(doc)
  await seedMessages()
  const preview = await fetch(`${sandbox.url}/_sandbox/api/previews`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ template: 'welcome' }),
  })
  previewIds.push(((await preview.json()) as { id: string }).id)
  // Snapshots of every case, and every image of welcome's, for the snapshot routes to serve.
  await fetch(`${sandbox.url}/_sandbox/api/snapshots/accept`, { method: 'POST' })
  const png = Buffer.from('89504e470d0a1a0a', 'hex')
  await mkdir(join(dir, 'snapshots/.diff/welcome'), { recursive: true })
  for (const variant of ['375-light', '375-dark', '600-light', '600-dark']) {
    await writeFile(join(dir, `snapshots/welcome/default.${variant}.png`), png)
    for (const kind of ['current', 'diff'])
      await writeFile(join(dir, `snapshots/.diff/welcome/default.${variant}.${kind}.png`), png)
  }
  // Once a seeded message is delivered, its message.sent and message.delivered deliveries exist.
  await sandbox.waitForMessage({ template: 'welcome', status: 'delivered' })
  deliveryIds.push(...(await sandbox.webhooks()).map((d) => d.id))
})
afterAll(async () => {
  await sandbox?.close()
  await spamd?.close()
  await smtp?.close()
  await new Promise((done) => receiver?.close(done))
  if (dir) await rm(dir, { recursive: true, force: true })
})

interface Request {
  path: Record<string, string>
  query: Record<string, string>
  headers: Record<string, string>
  /** A JSON value, or raw text (`{ raw }`) for bodies that are not JSON. */
  body?: { json: unknown } | { raw: string }
}

interface Operation {
  label: string
  method: string
  path: string
  op: Json
}

function operations(): Operation[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Json>).map(([method, op]) => ({
      label: `${method.toUpperCase()} ${path}`,
      method,
      path,
      op,
    })),
  )
}

const asString = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/** Values that exist in the sandbox, mostly, so that valid requests get past the lookups. */
function pathArbitrary(name: string, path: string, schema: Json): fc.Arbitrary<string> {
  const generated = arbitraryOf(doc, schema).map(asString)
  if (name === 'template')
    return fc.oneof(
      { arbitrary: fc.constant('welcome'), weight: 4 },
      { arbitrary: fc.constantFrom(...SLUGS), weight: 2 },
      { arbitrary: generated, weight: 1 },
    )
  if (name === 'case')
    return fc.oneof(
      { arbitrary: fc.constant('default'), weight: 4 },
      { arbitrary: generated, weight: 1 },
    )
  if (name === 'slug')
    return fc.oneof(
      { arbitrary: fc.constantFrom(...SLUGS), weight: 4 },
      { arbitrary: generated, weight: 1 },
    )
  if (name === 'address')
    return fc.oneof(
      { arbitrary: fc.constant(BOUNCED), weight: 4 },
      { arbitrary: generated, weight: 1 },
    )
  if (name === 'id' && path.startsWith('/_sandbox/api/webhooks'))
    return fc.oneof(
      { arbitrary: fc.constantFrom(...deliveryIds), weight: 4 },
      { arbitrary: generated, weight: 1 },
    )
  if (name === 'id' && path.startsWith('/_sandbox/api/previews'))
    return fc.oneof(
      { arbitrary: fc.constantFrom(...previewIds), weight: 4 },
      { arbitrary: generated, weight: 1 },
    )
  if (name === 'id')
    return fc.oneof(
      { arbitrary: fc.constant('@seeded'), weight: 4 },
      { arbitrary: generated, weight: 1 },
    )
  return generated
}

function queryArbitrary(name: string, schema: Json): fc.Arbitrary<string> {
  // A wait answers at once or times out: keep it short.
  if (name === 'timeout') return fc.integer({ min: 0, max: 30 }).map(String)
  if (name === 'case')
    return fc.oneof(fc.constantFrom('default', 'big-order'), arbitraryOf(doc, schema).map(asString))
  // The documented examples (`to=ada@example.com`, `template=welcome`) match seeded messages.
  if (schema.examples?.length)
    return fc.oneof(
      fc.constantFrom(...(schema.examples as unknown[]).map(asString)),
      arbitraryOf(doc, schema).map(asString),
    )
  return arbitraryOf(doc, schema).map(asString)
}

function bodyArbitrary(op: Operation): fc.Arbitrary<unknown> | undefined {
  const schema = op.op.requestBody?.content?.['application/json']?.schema
  if (!schema) return undefined
  const generated = arbitraryOf(doc, schema)
  if (op.label === 'POST /messages') return fc.oneof(fc.constantFrom(...goodSends), generated)
  // A simulated event on a seeded message succeeds when it names no stranger and no missing link.
  if (op.label === 'POST /_sandbox/api/messages/{id}/events')
    return fc.oneof(
      fc.record({ type: fc.constantFrom('opened', 'delivered', 'bounced', 'complained') }),
      generated,
    )
  // A release to the allowed address goes out (generated ones are mostly not allowed).
  if (op.label === 'POST /_sandbox/api/messages/{id}/release')
    return fc.oneof(fc.constant({ to: RELEASE_TO }), generated)
  if (op.label === 'POST /_sandbox/api/previews')
    return fc.oneof(
      fc.record({ template: fc.constantFrom(...SLUGS), variables: fc.constant({ name: 'Ada' }) }),
      generated,
    )
  return generated
}

function validRequest(op: Operation): fc.Arbitrary<Request> {
  const params = (op.op.parameters ?? []) as Json[]
  const path = fc.record(
    Object.fromEntries(
      params
        .filter((p) => p.in === 'path')
        .map((p) => [p.name, pathArbitrary(p.name, op.path, p.schema)]),
    ),
  )
  // A wait without a timeout would take its default 5 s: always give one.
  // `after=now` makes a wait take only mail that arrives later, which none does here: send it
  // rarely, so that most valid waits can still find a seeded message.
  const rare = params.filter((p) => p.in === 'query' && p.name === 'after')
  const query = fc
    .tuple(
      fc.record<Record<string, unknown>>(
        Object.fromEntries(
          params
            .filter((p) => p.in === 'query' && !rare.includes(p))
            .map((p) => [p.name, queryArbitrary(p.name, p.schema)]),
        ),
        { requiredKeys: params.some((p) => p.name === 'timeout') ? ['timeout'] : [] },
      ),
      fc.record(
        Object.fromEntries(
          rare.map((p) => [
            p.name,
            fc.option(queryArbitrary(p.name, p.schema), { freq: 5, nil: undefined }),
          ]),
        ),
      ),
    )
    .map(([common, sometimes]) => ({
      ...common,
      ...Object.fromEntries(Object.entries(sometimes).filter(([, v]) => v !== undefined)),
    }))
  // A quarter carry only the required parameters: random filters rarely match the seeded mail,
  // and each operation must still meet plain valid requests within its time budget.
  const required = fc.record(
    Object.fromEntries(
      params
        .filter((p) => p.in === 'query' && (p.required || p.name === 'timeout'))
        .map((p) => [p.name, queryArbitrary(p.name, p.schema)]),
    ),
  )
  const queries = fc.oneof({ arbitrary: query, weight: 3 }, { arbitrary: required, weight: 1 })
  const prefer = params.some((p) => p.name === 'Prefer')
    ? fc.option(fc.constantFrom('code=503', 'code=429', 'return=minimal'), {
        freq: 6,
        nil: undefined,
      })
    : fc.constant(undefined)
  const body = bodyArbitrary(op)
  return fc
    .record({
      path,
      query: queries,
      prefer,
      body: body ? body.map((json) => ({ json })) : fc.constant(undefined),
    })
    .map(({ path, query, prefer, body }) => ({
      path: path as Record<string, string>,
      query: query as Record<string, string>,
      headers: {
        ...(op.op.security === undefined ? { authorization: `token ${sandbox.token}` } : {}),
        ...(prefer ? { prefer } : {}),
      },
      ...(body ? { body } : {}),
    }))
}

/** A value of another JSON type than the schema's. */
const wrongValue = (schema: Json): unknown => {
  const s = resolve(doc, schema)
  const types = [s.type].flat()
  if (types.includes('string') || s.enum) return 42
  if (types.includes('integer') || types.includes('number')) return 'not a number'
  if (types.includes('boolean')) return 'yes'
  if (types.includes('array')) return { not: 'an array' }
  return null
}

/** One thing wrong with a valid request: the body, a query value, a path segment, or auth. */
function invalidRequest(op: Operation): fc.Arbitrary<Request> {
  const params = (op.op.parameters ?? []) as Json[]
  const bodySchema = op.op.requestBody
    ? resolve(doc, op.op.requestBody.content['application/json'].schema)
    : undefined
  const mutations: Array<fc.Arbitrary<(request: Request) => Request>> = []
  if (bodySchema) {
    mutations.push(
      fc
        .constantFrom<unknown>(null, 'text', [1, 2], 5, true)
        .map((json) => (r: Request) => ({ ...r, body: { json } })),
    )
    mutations.push(
      fc
        .constantFrom('{', '', '{"a":}', 'nul')
        .map((raw) => (r: Request) => ({ ...r, body: { raw } })),
    )
    mutations.push(
      fc.constant((r: Request) => ({
        ...r,
        body: { json: { ...(r.body as { json: Json }).json, unknownField: 1 } },
      })),
    )
    const properties = Object.entries((bodySchema.properties ?? {}) as Record<string, Json>)
    if (properties.length) {
      mutations.push(
        fc.constantFrom(...properties).map(([key, schema]) => (r: Request) => ({
          ...r,
          body: { json: { ...(r.body as { json: Json }).json, [key]: wrongValue(schema) } },
        })),
      )
    }
    // Fields the document says go one without the other (`not: { required: [a, b] }`), together.
    const exclusive = (bodySchema.not?.required ?? []) as string[]
    if (exclusive.length)
      mutations.push(
        fc
          .tuple(
            ...exclusive.map((key) =>
              arbitraryOf(doc, (bodySchema.properties as Record<string, Json>)[key]!),
            ),
          )
          .map((values) => (r: Request) => ({
            ...r,
            body: {
              json: {
                ...(r.body as { json: Json }).json,
                ...Object.fromEntries(exclusive.map((key, i) => [key, values[i]])),
              },
            },
          })),
      )
    for (const key of bodySchema.required ?? []) {
      mutations.push(
        fc.constant((r: Request) => {
          const { [key]: _dropped, ...rest } = (r.body as { json: Json }).json
          return { ...r, body: { json: rest } }
        }),
      )
    }
  }
  params.forEach((param, index) => {
    if (param.in !== 'query') return
    const s = param.schema
    // A parameter given with no value is a value too: refused wherever the schema refuses "".
    const accepts = check(['paths', op.path, op.method, 'parameters', String(index), 'schema'])
    // A pattern's: those it refuses of a few (free text refuses only a NUL character).
    const bad = s.enum
      ? ['nope']
      : s.type === 'integer'
        ? ['abc', String((s.maximum ?? 0) + 1), '1.5', '-1']
        : s.anyOf
          ? ['yesterday']
          : s.pattern
            ? ['a b/c', 'x\u0000y'].filter((value) => !accepts(value))
            : []
    if (!accepts('')) bad.push('')
    if (bad.length)
      mutations.push(
        fc
          .constantFrom(...bad)
          .map((value) => (r: Request) => ({ ...r, query: { ...r.query, [param.name]: value } })),
      )
  })
  // A parameter the operation does not take is refused, not ignored: one rule for every route.
  mutations.push(
    fc
      .constantFrom('x-unknown', 'limits', 'templte')
      .map((name) => (r: Request) => ({ ...r, query: { ...r.query, [name]: '42' } })),
  )
  for (const param of params.filter((p) => p.in === 'path')) {
    // Not `..`: clients resolve dot segments before sending (RFC 3986 §5.2.4), and so does the server.
    mutations.push(
      fc
        .constantFrom('a b', 'x'.repeat(129), 'nope', '%', 'a/b')
        .map((value) => (r: Request) => ({ ...r, path: { ...r.path, [param.name]: value } })),
    )
  }
  if (op.op.security === undefined) {
    mutations.push(
      fc
        .constantFrom('', 'Bearer x', 'token live_x')
        .map((auth) => (r: Request) => ({ ...r, headers: { ...r.headers, authorization: auth } })),
    )
    mutations.push(
      fc
        .constantFrom('code=201', 'code=418', 'code=x')
        .map((prefer) => (r: Request) => ({ ...r, headers: { ...r.headers, prefer } })),
    )
  }
  if (mutations.length === 0) return fc.constant(undefined as never)
  return fc
    .tuple(validRequest(op), fc.oneof(...mutations))
    .map(([request, mutate]) => mutate(request))
}

const stats = { cases: 0, byStatus: new Map<string, number>() }

async function sendAndCheck(
  op: Operation,
  request: Request,
  kind: 'valid' | 'invalid',
): Promise<void> {
  let path = op.path
  for (const [name, value] of Object.entries(request.path))
    path = path.replace(
      `{${name}}`,
      encodeURIComponent(value === '@seeded' ? (ids[0] ?? 'none') : value),
    )
  const query = new URLSearchParams(request.query)
  const headers: Record<string, string> = { ...request.headers }
  let body: string | undefined
  if (request.body) {
    headers['content-type'] = 'application/json'
    body = 'raw' in request.body ? request.body.raw : JSON.stringify(request.body.json)
  }
  const url = `${sandbox.url}${path}${query.size ? `?${query}` : ''}`
  const abort = new AbortController()
  const response = await fetch(url, {
    method: op.method.toUpperCase(),
    headers,
    body,
    signal: abort.signal,
    redirect: 'manual',
  })
  const type = response.headers.get('content-type') ?? ''
  // The event stream stays open: its head is the answer.
  const text = type.startsWith('text/event-stream') ? (abort.abort(), '') : await response.text()
  stats.cases++
  const key = `${op.label} ${response.status}`
  stats.byStatus.set(key, (stats.byStatus.get(key) ?? 0) + 1)
  const where = `${kind} ${op.method.toUpperCase()} ${url} ${body ?? ''} → ${response.status} ${text.slice(0, 300)}`
  const documented = op.op.responses[String(response.status)]
  expect(documented, `undocumented status: ${where}`).toBeDefined()
  // The document allowed this request: its shape is not what is refused.
  if (kind === 'valid' && response.status >= 400 && type.startsWith('application/json'))
    expect(SHAPE_CODES.has(JSON.parse(text).error?.code), `refused a valid request: ${where}`).toBe(
      false,
    )
  // With ?soft=1 a template that cannot render is a 200 { ok: false } by design.
  if (kind === 'invalid' && request.query.soft !== '1')
    expect(response.status, where).toBeGreaterThanOrEqual(400)
  expect(response.status, where).toBeLessThan(response.status === 500 ? 0 : 600)
  if (response.status === 204) return
  const mediaTypes = Object.keys(documented.content ?? {})
  expect(
    mediaTypes.some((media) => type.startsWith(media)),
    `${type} is not among ${mediaTypes.join(', ')}: ${where}`,
  ).toBe(true)
  if (type.startsWith('application/json')) {
    expect(type, where).toBe('application/json; charset=utf-8')
    const validateAnswer = check([
      'paths',
      op.path,
      op.method,
      'responses',
      String(response.status),
      'content',
      'application/json',
      'schema',
    ])
    expect(
      validateAnswer(JSON.parse(text)),
      `${JSON.stringify(validateAnswer.errors)}: ${where}`,
    ).toBe(true)
  }
}

describe('conformance to the served OpenAPI document', () => {
  it('the document is valid OpenAPI 3.1 (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(doc) as never)
    if (!result.valid) throw new Error(compileErrors(result))
  })

  it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
    "every pattern means the same in Python's re (where Schemathesis generates from it) as in JavaScript",
    () => {
      const patterns = new Set<string>()
      const collect = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(collect)
        if (typeof node !== 'object' || node === null) return
        for (const [key, value] of Object.entries(node))
          key === 'pattern' && typeof value === 'string' ? patterns.add(value) : collect(value)
      }
      collect(doc)
      expect(patterns.size).toBeGreaterThanOrEqual(5)
      const cases = [...patterns].map((pattern) => ({
        pattern,
        samples: [
          ...fc.sample(arbitraryOf(doc, { type: 'string', pattern }), { numRuns: 30, seed: SEED }),
          '',
          'a b',
          '..',
          'Ada <ada@example.com>',
          'x'.repeat(129),
          'é@é',
          '"a"@b',
        ] as string[],
      }))
      const script =
        'import json,re,sys\ncases=json.load(sys.stdin)\nprint(json.dumps([[bool(re.search(c["pattern"], s)) for s in c["samples"]] for c in cases]))'
      const python = spawnSync('python3', ['-c', script], {
        input: JSON.stringify(cases),
        encoding: 'utf8',
      })
      expect(python.status, python.stderr).toBe(0)
      const answers = JSON.parse(python.stdout) as boolean[][]
      cases.forEach(({ pattern, samples }, i) => {
        const js = new RegExp(pattern, 'u')
        samples.forEach((sample, j) =>
          expect(answers[i]![j], `${pattern} on ${JSON.stringify(sample)}`).toBe(js.test(sample)),
        )
      })
    },
  )

  it('every operation, fed generated valid and invalid requests, answers only documented statuses with bodies that match their schemas', async () => {
    const started = performance.now()
    for (const op of operations()) {
      await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
      await seedMessages()
      await seedSuppression()
      for (const kind of ['valid', 'invalid'] as const) {
        const arbitrary = kind === 'valid' ? validRequest(op) : invalidRequest(op)
        await fc.assert(
          fc.asyncProperty(arbitrary, async (request) => {
            if (request === undefined) return
            await sendAndCheck(op, request, kind)
          }),
          {
            seed: SEED,
            numRuns: kind === 'valid' ? VALID_RUNS : INVALID_RUNS,
            interruptAfterTimeLimit: TIME_LIMIT_MS,
            markInterruptAsFailure: false,
            endOnFailure: true,
          },
        )
      }
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    const succeeded = new Set(
      [...stats.byStatus.keys()]
        .filter((key) => /\s2\d\d$/.test(key))
        .map((key) => key.replace(/\s\d+$/, '')),
    )
    console.info(
      `conformance: ${stats.cases} requests over ${operations().length} operations in ${seconds} s; ${succeeded.size} operations answered 2xx`,
    )
    expect(stats.cases).toBeGreaterThan(1500)
    // Generated valid requests get through on every operation, so the document is not narrower than it says.
    for (const op of operations())
      expect(succeeded, `${op.label} never answered 2xx to a generated valid request`).toContain(
        op.label,
      )
  }, 180_000)

  it('every send the document allows is accepted: sends generated from its per-template schemas are each a 201', async () => {
    await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
    const schema = doc.paths['/messages'].post.requestBody.content['application/json'].schema
    let sent = 0
    await fc.assert(
      fc.asyncProperty(arbitraryOf(doc, schema), async (body) => {
        const response = await fetch(`${sandbox.url}/messages`, {
          method: 'POST',
          headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        const text = await response.text()
        expect(response.status, `${JSON.stringify(body)} → ${text.slice(0, 300)}`).toBe(201)
        sent++
      }),
      {
        seed: SEED,
        numRuns: 60,
        interruptAfterTimeLimit: 15_000,
        markInterruptAsFailure: false,
        endOnFailure: true,
      },
    )
    expect(sent).toBeGreaterThanOrEqual(20)
  }, 60_000)
})
