import { cp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiPath } from '../src/http/openapi.js'
import { startSendbox, type Sendbox } from '../src/index.js'
import { ALL_OPERATIONS } from '../src/server/openapi.js'
import { ROOT } from './helpers/cli.js'
import { readDocs } from './helpers/docs.js'
import { answerValidator, matchesExample, resolve, type Json } from './helpers/openapi.js'
import { tempDir } from './helpers/sandbox.js'

/**
 * The examples are real: every request example in the served document, and the curl of the
 * README and every docs/*.md,
 * sent to a sandbox serving the shipped example templates, gets the documented status, and its
 * answer matches the documented answer example and the schema. A request example is a request
 * that succeeds (docs/api.md#openapi); a failure is shown as its answer only, and the request that gets
 * it (in the operation's definition) is sent too.
 */

let sandbox: Sendbox
let dir: string
let doc: Json
beforeAll(async () => {
  dir = await tempDir()
  await cp(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true })
  await cp(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true })
  sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: join(dir, 'templates'),
    fixtures: join(dir, 'fixtures'),
  })
  doc = (await (await fetch(`${sandbox.url}/_sandbox/api/openapi.json`)).json()) as Json
})
afterAll(async () => {
  await sandbox?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

interface Example {
  label: string
  method: string
  path: string
  pointer: string[]
  op: Json
  name: string
}

function examples(): Example[] {
  const out: Example[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item as Record<string, Json>)) {
      const names = new Set<string>([
        ...Object.keys(op.requestBody?.content?.['application/json']?.examples ?? {}),
        ...(op.parameters ?? []).flatMap((p: Json) => Object.keys(p.examples ?? {})),
      ])
      // An operation with no parameters or body still has its example when its answer does.
      for (const response of Object.values(op.responses as Record<string, Json>))
        for (const name of Object.keys(response.content?.['application/json']?.examples ?? {}))
          if (!op.parameters?.some((p: Json) => p.required) && !op.requestBody) names.add(name)
      for (const name of names)
        out.push({
          label: `${method.toUpperCase()} ${path} (${name})`,
          method,
          path,
          pointer: ['paths', path, method],
          op,
          name,
        })
    }
  }
  return out
}

/** The failing examples of the definitions: what the document shows as answers only. */
function failures() {
  return ALL_OPERATIONS.flatMap((op) =>
    Object.entries(op.examples ?? {})
      .filter(([, example]) => (example.status ?? op.success.status) >= 400)
      .map(([name, example]) => ({ op, name, example })),
  )
}

async function send(example: Example): Promise<Response> {
  const { op, name } = example
  let path = example.path
  const query = new URLSearchParams()
  const headers: Record<string, string> = {}
  for (const param of op.parameters ?? []) {
    const value = param.examples?.[name]?.value
    if (value === undefined) continue
    if (param.in === 'path') path = path.replace(`{${param.name}}`, encodeURIComponent(value))
    else if (param.in === 'query') query.set(param.name, value)
    else headers[param.name] = value
  }
  const body = op.requestBody?.content?.['application/json']?.examples?.[name]?.value
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (op.security === undefined) headers.authorization = `token ${sandbox.token}`
  return fetch(`${sandbox.url}${path}${query.size ? `?${query}` : ''}`, {
    method: example.method.toUpperCase(),
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
}

describe("the document's examples, sent to the example templates", () => {
  it('there are examples of sends, templates, renders, previews and faults', () => {
    const labels = examples().map((e) => e.label)
    expect(labels.length + failures().length).toBeGreaterThanOrEqual(10)
    for (const op of [
      'POST /messages',
      'GET /templates/{slug}',
      'POST /_sandbox/api/previews',
      'POST /_sandbox/api/faults',
    ])
      expect(
        labels.some((l) => l.startsWith(op)),
        op,
      ).toBe(true)
  })

  it('each gets the documented status, and an answer that matches its example and its schema', async () => {
    const validate = answerValidator(doc)
    const checked: string[] = []
    for (const example of examples()) {
      const { op, name, label } = example
      const documented = Object.entries(op.responses as Record<string, Json>).find(
        ([, r]) => r.content?.['application/json']?.examples?.[name],
      )
      const expected = documented
        ? Number(documented[0])
        : Number(Object.keys(op.responses).find((s) => s.startsWith('2')))
      // A request shown in the document is one that succeeds (docs/api.md#openapi): a failure is shown
      // as an answer only, never as a request a tool would send expecting success.
      expect(expected, `${label}: a request example must be a request that succeeds`).toBeLessThan(
        300,
      )
      const response = await send(example)
      const text = await response.text()
      expect(response.status, `${label}: ${text.slice(0, 300)}`).toBe(expected)
      const content = op.responses[response.status]?.content
      if (content?.['application/json']) {
        const body = JSON.parse(text)
        const check = validate([
          ...example.pointer,
          'responses',
          String(response.status),
          'content',
          'application/json',
          'schema',
        ])
        expect(check(body), `${label}: ${JSON.stringify(check.errors)}`).toBe(true)
        const wanted = content['application/json'].examples?.[name]?.value
        if (wanted !== undefined) {
          expect(
            matchesExample(wanted, body),
            `${label}\nexample: ${JSON.stringify(wanted)}\nactual:  ${text.slice(0, 600)}`,
          ).toBe(true)
          // The example itself is a valid answer, not just a look-alike.
          expect(
            check(wanted),
            `${label}: the example does not match its schema: ${JSON.stringify(check.errors)}`,
          ).toBe(true)
        }
      }
      checked.push(label)
      await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
    }
    expect(checked.length).toBeGreaterThanOrEqual(9)
  })

  it('a failure is shown as its answer, never as a request; sent, it gets that answer', async () => {
    expect(failures().length).toBeGreaterThanOrEqual(4)
    for (const { op, name, example } of failures()) {
      const label = `${op.method} ${op.path} (${name})`
      const shown = doc.paths[openApiPath(op.path)][op.method.toLowerCase()]
      expect(
        shown.requestBody?.content['application/json'].examples?.[name],
        `${label} is shown as a request`,
      ).toBeUndefined()
      for (const param of shown.parameters ?? [])
        expect(param.examples?.[name], `${label} is shown as a request`).toBeUndefined()
      expect(
        shown.responses[String(example.status)].content['application/json'].examples[name].value,
        label,
      ).toEqual(example.response)
      let path = op.path
      for (const [key, value] of Object.entries(example.params ?? {}))
        path = path.replace(`:${key}`, encodeURIComponent(value))
      const query = new URLSearchParams(example.query ?? {})
      const response = await fetch(`${sandbox.url}${path}${query.size ? `?${query}` : ''}`, {
        method: op.method,
        headers: {
          ...(op.security ? { authorization: `token ${sandbox.token}` } : {}),
          ...(example.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(example.body !== undefined ? { body: JSON.stringify(example.body) } : {}),
      })
      const text = await response.text()
      expect(response.status, `${label}: ${text.slice(0, 300)}`).toBe(example.status)
      expect(
        matchesExample(example.response, JSON.parse(text)),
        `${label}\nexample: ${JSON.stringify(example.response)}\nactual:  ${text.slice(0, 600)}`,
      ).toBe(true)
    }
  })

  it('the schema examples of the send request make a send that goes through', async () => {
    const schema = resolve(
      doc,
      doc.paths['/messages'].post.requestBody.content['application/json'].schema,
    )
    const body = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Json>).map(([key, property]) => [
        key,
        property.examples[0],
      ]),
    )
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(response.status, await response.clone().text()).toBe(201)
  })
})

describe("the README's and docs/*.md's examples", () => {
  it('every curl that sends a message, sends it (201), unless the docs show the error it gets', async () => {
    // A curl followed by a JSON error block is an example of that error (test/readme-examples.test.ts checks it answers so).
    const bodies: string[] = []
    for (const { text } of await readDocs()) {
      for (const block of text.matchAll(/```sh\n([\s\S]*?)```\n(\n```json\n\{ "error")?/g)) {
        if (block[2]) continue
        // One command at a time: a block may send, then do something with the answer.
        for (const command of block[1]!.split(/(?=curl )/)) {
          const body = /^curl [^\n]*?\/messages['"\s][\s\S]*?-d '(\{[^']*\})'/.exec(command)?.[1]
          if (body) bodies.push(body)
        }
      }
    }
    expect(bodies.length).toBeGreaterThanOrEqual(1)
    for (const body of bodies) {
      const response = await fetch(`${sandbox.url}/messages`, {
        method: 'POST',
        headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
        body,
      })
      expect(response.status, `${body}\n${await response.clone().text()}`).toBe(201)
    }
  })
})
