import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../src/server/index.js'
import { openEventStream } from './helpers/sse.js'
import { startTestSandbox, tempDir, writeFiles, type TestSandbox } from './helpers/sandbox.js'

/**
 * docs/api.md#openapi: the document describes the templates loaded when it is asked for. POST
 * /messages takes one of their slugs, each with its variables as an object schema (what it
 * needs required, nested paths nested, fixture values and front-matter examples as examples),
 * tied to its slug by a discriminator; --lenient relaxes it as the server does; it is written
 * again when the templates change, and only then.
 */

type Json = Record<string, any>

const RECEIPT = `---
variables:
  note:
    description: A line under the total.
    example: Thanks!
    required: false
---
{{ order.id }} for {{ order.customer.email }}: {% for item in order.items %}{{ item.name }}{% endfor %}
{{ coupon | default: "no coupon" }} {{ note }}`

const templates = {
  'receipt.liquid': RECEIPT,
  'plain.liquid': 'Hello {{ name | default: "you" }}',
  'broken.liquid': '{% if %}',
}
const fixtures = {
  'receipt/default.json': JSON.stringify({
    order: { id: 7, customer: { email: 'ada@example.com' }, items: [{ name: 'Tea' }] },
  }),
  'receipt/partial.json': JSON.stringify({ order: { id: 8 } }),
}

const documentOf = async (url: string) =>
  (await (await fetch(`${url}/_sandbox/api/openapi.json`)).json()) as Json

let sandbox: TestSandbox
let doc: Json
beforeAll(async () => {
  sandbox = await startTestSandbox(templates, {}, fixtures)
  doc = await documentOf(sandbox.url)
})
afterAll(() => sandbox?.close())

const schemas = () => doc.components.schemas as Record<string, Json>

describe('POST /messages in the document', () => {
  it('takes one of the valid templates loaded, tied to its slug by a discriminator', () => {
    const send = schemas().SendRequest!
    expect(send.properties.template.enum).toEqual(['plain', 'receipt'])
    expect(send.oneOf).toEqual([
      { $ref: '#/components/schemas/SendRequest.plain' },
      { $ref: '#/components/schemas/SendRequest.receipt' },
    ])
    expect(send.discriminator).toEqual({
      propertyName: 'template',
      mapping: {
        plain: '#/components/schemas/SendRequest.plain',
        receipt: '#/components/schemas/SendRequest.receipt',
      },
    })
    expect(schemas()['SendRequest.receipt']!.properties.template).toEqual({ const: 'receipt' })
    expect(send.additionalProperties).toBe(false)
  })

  it("gives each template's variables: needed ones required, nested paths nested, the rest optional", () => {
    const receipt = schemas()['SendRequest.receipt']!
    expect(receipt.required).toEqual(['template', 'templateVariables'])
    const variables = receipt.properties.templateVariables
    expect(variables.required).toEqual(['order'])
    expect(Object.keys(variables.properties).sort()).toEqual(['coupon', 'note', 'order'])
    const order = variables.properties.order
    expect(order).toMatchObject({ type: 'object', required: ['customer', 'id', 'items'] })
    expect(order.properties.customer).toMatchObject({
      type: 'object',
      required: ['email'],
      properties: { email: { not: { type: 'null' } } },
    })
    // A loop's items are described, without requiring a list: the server takes any value.
    expect(order.properties.items).toEqual({
      not: { type: 'null' },
      items: { properties: { name: {} } },
    })
    // Read through `default`, and `required: false` in front matter: optional, any value.
    expect(variables.properties.coupon).toEqual({})
    expect(variables.properties.note).toEqual({
      description: 'A line under the total.',
      examples: ['Thanks!'],
    })
    // Nothing needed: the variables may be left out.
    expect(schemas()['SendRequest.plain']!.required).toEqual(['template'])
  })

  it('shows fixture cases that make a send as examples, and only those', () => {
    const variables = schemas()['SendRequest.receipt']!.properties.templateVariables
    expect(variables.examples).toEqual([JSON.parse(fixtures['receipt/default.json'])])
    const examples = doc.paths['/messages'].post.requestBody.content['application/json'].examples
    expect(Object.keys(examples).sort()).toEqual(['send-plain', 'send-receipt'])
  })

  it('leaves out a template that does not parse: a send of it is no send the document allows', async () => {
    expect(schemas()['SendRequest.broken']).toBeUndefined()
    expect((await sandbox.send({ ...send('broken'), templateVariables: {} })).status).toBe(422)
  })

  it('every example it shows is a send that goes through', async () => {
    const examples = doc.paths['/messages'].post.requestBody.content['application/json'].examples
    for (const [name, example] of Object.entries(examples as Record<string, { value: Json }>)) {
      const response = await sandbox.send(example.value)
      expect(response.status, `${name}: ${await response.clone().text()}`).toBe(201)
    }
  })
})

const send = (template: string) => ({
  template,
  from: 'Acme <hello@acme.test>',
  to: 'ada@example.com',
  subject: 'Hi',
})

describe('--lenient', () => {
  it('relaxes the document as the server does: unknown fields and missing variables pass', async () => {
    const lenient = await startTestSandbox(templates, { lenient: true }, fixtures)
    try {
      const relaxed = await documentOf(lenient.url)
      const parts = relaxed.components.schemas as Record<string, Json>
      expect(parts.SendRequest!.additionalProperties).toBe(true)
      const variables = parts['SendRequest.receipt']!.properties.templateVariables
      expect(variables.required).toBeUndefined()
      expect(variables.properties.order.required).toBeUndefined()
      expect(parts['SendRequest.receipt']!.required).toEqual(['template'])
      // …and the server takes what the relaxed document allows.
      const response = await lenient.send({ ...send('receipt'), extra: 1 })
      expect(response.status).toBe(201)
    } finally {
      await lenient.close()
    }
  })
})

describe('the document follows the templates', () => {
  let server: RunningServer
  let dir: string
  beforeAll(async () => {
    dir = await tempDir()
    await writeFiles(join(dir, 'templates'), { 'one.liquid': 'Hi {{ name }}' })
    server = await startServer(
      { port: 0, memory: true, templates: join(dir, 'templates'), fixtures: join(dir, 'fixtures') },
      { open: false, logs: false },
    )
  })
  afterAll(() => server?.close())

  it('is written once per state of the templates, not per request', async () => {
    const first = await documentOf(server.url)
    const written = server.ctx.openApi
    expect(written?.text).toBe(JSON.stringify(first))
    await documentOf(server.url)
    expect(server.ctx.openApi).toBe(written)
  })

  it('is written again when a template is added: its slug is then one the document takes', async () => {
    expect(
      (await documentOf(server.url)).components.schemas.SendRequest.properties.template.enum,
    ).toEqual(['one'])
    const stream = await openEventStream(server.url)
    try {
      await writeFile(join(dir, 'templates', 'two.liquid'), 'Bye {{ name }}')
      await stream.until((events) =>
        events.some((e) => e.event === 'template' && e.data.slug === 'two'),
      )
    } finally {
      stream.close()
    }
    const after = await documentOf(server.url)
    expect(after.components.schemas.SendRequest.properties.template.enum).toEqual(['one', 'two'])
    expect(
      after.components.schemas['SendRequest.two'].properties.templateVariables.required,
    ).toEqual(['name'])
  })
})
