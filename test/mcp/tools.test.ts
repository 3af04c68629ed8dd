import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SIMULATED_EVENT_TYPES } from '../../src/core/delivery.js'
import { WAIT_MAX_MS } from '../../src/core/wait.js'
import {
  EVENT_TYPES,
  MESSAGE_STATUSES,
  WAIT_MAX_MS as MCP_WAIT_MAX_MS,
} from '../../src/mcp/schemas.js'
import { MESSAGE_STATUSES as STORE_STATUSES } from '../../src/store/index.js'
import { connectMcp, type McpSession, textOf } from '../helpers/mcp.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

/**
 * `sendbox mcp` driven as a coding agent drives it: the SDK's own client over stdio, spawning
 * bin/sendbox.js (the bundles), attached to a real sandbox on port 0. Every tool against it, its
 * answers compared with the inspector's own.
 */

const RESET = `---
description: Password reset
variables:
  name: { example: Ada }
---
<p>Hello {{ name }},</p>
<p><a href="{{ resetUrl }}">Reset your password</a></p>
<p>Or type the code {{ code }}.</p>
<img src="https://acme.test/logo.png">
`
const FIXTURES = {
  'reset.json': JSON.stringify({ name: 'Ada', resetUrl: 'https://acme.test/r/1', code: '482913' }),
  'reset/grace.json': JSON.stringify({
    name: 'Grace',
    resetUrl: 'https://acme.test/r/2',
    code: '111222',
  }),
}

let sandbox: TestSandbox
let mcp: McpSession

beforeAll(async () => {
  // Delivery held back for an hour: records stay "sent" while a test compares them, so the
  // MCP answer and the inspector's can be compared whole.
  sandbox = await startTestSandbox(
    { 'reset.liquid': RESET },
    { deliveryDelay: 3_600_000 },
    FIXTURES,
  )
  mcp = await connectMcp(['--url', sandbox.url])
})
afterAll(async () => {
  await mcp?.close()
  await sandbox?.close()
})
beforeEach(async () => {
  await sandbox.api('/_sandbox/api/messages', { method: 'DELETE', auth: false })
})

async function send(to: string, name = 'Ada'): Promise<string> {
  const response = await sandbox.send({
    template: 'reset',
    from: 'Acme <hello@acme.test>',
    to,
    subject: `Reset for ${name}`,
    templateVariables: { name, resetUrl: `https://acme.test/r/${name}`, code: '482913' },
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const inspector = async (path: string, init: RequestInit = {}) =>
  (await sandbox.api(`/_sandbox/api${path}`, { ...init, auth: false })).json()

/** A successful result: structured content, and the same JSON as its text. */
function structured(result: Awaited<ReturnType<McpSession['call']>>): Record<string, unknown> {
  expect(result.isError, textOf(result)).toBeFalsy()
  expect(JSON.parse(textOf(result))).toEqual(result.structuredContent)
  return result.structuredContent as Record<string, unknown>
}

describe('the tools an agent sees', () => {
  it('lists the nine tools of docs/mcp.md#tools, each with a description, strict input and an output schema', async () => {
    const { tools } = await mcp.client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'list_messages',
      'get_message',
      'wait_for_message',
      'list_templates',
      'get_template',
      'render_template',
      'check_template',
      'simulate_event',
      'clear_messages',
    ])
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80)
      // An argument an agent misspells is refused, not silently ignored.
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false)
      expect(tool.outputSchema?.type, tool.name).toBe('object')
    }
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema
    // The inspector's names.
    expect(Object.keys(schema('wait_for_message').properties!)).toEqual(
      expect.arrayContaining(['to', 'recipient', 'template', 'status', 'timeout']),
    )
    expect(schema('get_message').required).toEqual(['id'])
    expect(Object.keys(schema('render_template').properties!)).toEqual([
      'slug',
      'variables',
      'case',
    ])
    expect(schema('render_template').required).toEqual(['slug'])
    expect(schema('simulate_event').required).toEqual(['id', 'type'])
    expect(Object.keys(schema('simulate_event').properties!)).toEqual([
      'id',
      'type',
      'recipient',
      'url',
    ])
    // Units and limits an agent can act on.
    const timeout = schema('wait_for_message').properties!.timeout as Record<string, unknown>
    expect(timeout).toMatchObject({ type: 'integer', minimum: 0, maximum: WAIT_MAX_MS })
    expect(timeout.description).toMatch(/milliseconds.*default 5000/)
  })

  it("takes the inspector's query parameters as they are: each shared argument's JSON Schema is the OpenAPI document's", async () => {
    const { tools } = await mcp.client.listTools()
    const document = (await inspector('/openapi.json')) as {
      paths: Record<string, Record<string, { parameters: { name: string; schema: object }[] }>>
    }
    // Types, bounds, patterns and values; the words and the defaults are each side's own.
    const shape = ({
      description: _d,
      default: _x,
      examples: _e,
      ...rest
    }: Record<string, unknown>) => rest
    for (const [tool, path] of [
      ['wait_for_message', '/_sandbox/api/messages/wait'],
      ['list_messages', '/_sandbox/api/messages'],
    ] as const) {
      const parameters = document.paths[path]!.get!.parameters
      const properties = tools.find((t) => t.name === tool)!.inputSchema.properties!
      for (const [name, schema] of Object.entries(properties)) {
        const parameter = parameters.find((p) => p.name === name)
        expect(parameter, `${tool} ${name}`).toBeDefined()
        expect(shape(schema as Record<string, unknown>), `${tool} ${name}`).toEqual(
          shape(parameter!.schema as Record<string, unknown>),
        )
      }
    }
  })

  it("offers the same states and event types as the sandbox's own lists", () => {
    expect([...MESSAGE_STATUSES]).toEqual([...STORE_STATUSES])
    expect([...EVENT_TYPES]).toEqual([...SIMULATED_EVENT_TYPES])
    expect(MCP_WAIT_MAX_MS).toBe(WAIT_MAX_MS)
  })

  it('names itself sendbox, with instructions for a typical check of an email flow', () => {
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'sendbox' })
    expect(mcp.client.getInstructions()).toContain('wait_for_message')
    expect(mcp.client.getInstructions()).toContain(sandbox.url)
  })
})

describe('messages', () => {
  it('list_messages: summaries newest first with the total; filters narrow; fields "full" adds the bodies', async () => {
    const first = await send('ada@example.com')
    const second = await send('grace@example.com', 'Grace')
    const all = structured(await mcp.call('list_messages'))
    expect(all.total).toBe(2)
    const messages = all.messages as Array<Record<string, unknown>>
    expect(messages.map((m) => m.id)).toEqual([second, first])
    expect(messages[0]).not.toHaveProperty('html')
    const listed = (await inspector('/messages?fields=summary')) as { messages: unknown[] }
    expect(messages).toEqual(listed.messages)

    const filtered = structured(await mcp.call('list_messages', { to: 'grace', fields: 'full' }))
    expect(filtered.total).toBe(1)
    const [grace] = filtered.messages as Array<Record<string, unknown>>
    expect(grace).toMatchObject({ id: second, subject: 'Reset for Grace' })
    expect(grace!.html).toContain('https://acme.test/r/Grace')
    expect(structured(await mcp.call('list_messages', { limit: 1, offset: 1 }))).toMatchObject({
      total: 2,
      messages: [{ id: first }],
    })
  })

  it('get_message: the record exactly as the inspector has it', async () => {
    const id = await send('ada@example.com')
    const record = structured(await mcp.call('get_message', { id }))
    expect(record).toEqual(await inspector(`/messages/${id}`))
    expect(record.text).toContain('482913')
  })

  it("get_message: an unknown id is a tool error carrying the inspector's code and message", async () => {
    const result = await mcp.call('get_message', { id: 'msg_nope' })
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    expect(textOf(result)).toMatch(/^message_not_found: There is no message "msg_nope"/)
    expect(textOf(result)).toContain('list_messages lists the ones there are')
    expect(textOf(result)).not.toContain('GET /')
  })

  it('wait_for_message: waits for a message that has not come yet, and answers with its record', async () => {
    const health = async () => ((await inspector('/health')) as { subscribers: number }).subscribers
    const before = await health()
    const waiting = mcp.call('wait_for_message', {
      recipient: 'late@example.com',
      to: 'late',
      timeout: 15_000,
    })
    // The wait is pending in the sandbox once it counts one more subscriber: send then, not before.
    while ((await health()) === before) await new Promise((resolve) => setImmediate(resolve))
    const id = await send('late@example.com')
    const record = structured(await waiting)
    expect(record).toEqual(await inspector(`/messages/${id}`))
  })

  it('wait_for_message: none within the timeout is a wait_timeout tool error', async () => {
    const started = Date.now()
    const result = await mcp.call('wait_for_message', { to: 'nobody', timeout: 300 })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^wait_timeout: No message matching .* within 300 ms/)
    // The advice is the tool's argument, not the inspector's query parameter.
    expect(textOf(result)).toContain('the `timeout` argument')
    expect(textOf(result)).not.toContain('?timeout=')
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
  })

  it('simulate_event: opened and clicked change the record; a url not in the message is refused with its links', async () => {
    const id = await send('ada@example.com')
    const opened = structured(await mcp.call('simulate_event', { id, type: 'opened' }))
    expect(opened).toEqual(await inspector(`/messages/${id}`))
    const events = (opened.recipients as Array<{ events: Array<{ type: string }> }>)[0]!.events
    expect(events.map((e) => e.type)).toContain('opened')

    const clicked = structured(
      await mcp.call('simulate_event', {
        id,
        type: 'clicked',
        recipient: 'ada@example.com',
        url: 'https://acme.test/r/Ada',
      }),
    )
    const clicks = (clicked.recipients as Array<{ events: Array<{ type: string }> }>)[0]!.events
    expect(clicks.map((e) => e.type)).toContain('clicked')

    const wrong = await mcp.call('simulate_event', {
      id,
      type: 'clicked',
      url: 'https://elsewhere.test/',
    })
    expect(wrong.isError).toBe(true)
    expect(textOf(wrong)).toMatch(/^url_not_in_message: /)
    expect(textOf(wrong)).toContain('Details: ')
    expect(textOf(wrong)).toContain('https://acme.test/r/Ada')
    const nobody = await mcp.call('simulate_event', { id, type: 'opened', recipient: 'x@y.test' })
    expect(textOf(nobody)).toMatch(/^recipient_not_found: /)
  })

  it('clear_messages: the filtered part, one by id, or all; says how many', async () => {
    const ada = await send('ada@example.com')
    await send('grace@example.com', 'Grace')
    await send('grace@example.com', 'Grace')
    const total = async () => ((await inspector('/messages')) as { total: number }).total

    expect(structured(await mcp.call('clear_messages', { to: 'grace' }))).toEqual({ deleted: 2 })
    expect(await total()).toBe(1)
    await send('linus@example.com', 'Linus')
    expect(structured(await mcp.call('clear_messages', { id: ada }))).toEqual({ deleted: 1 })
    expect(textOf(await mcp.call('clear_messages', { id: ada }))).toMatch(/^message_not_found: /)
    expect(await total()).toBe(1)

    const both = await mcp.call('clear_messages', { id: ada, to: 'linus' })
    expect(both.isError).toBe(true)
    expect(textOf(both)).toMatch(/^validation_failed: Give an `id` or filters, not both\./)
    expect(await total()).toBe(1)

    expect(structured(await mcp.call('clear_messages'))).toEqual({ deleted: 1 })
    expect(await total()).toBe(0)
  })
})

describe('templates', () => {
  it('list_templates and get_template: the inspector’s answers', async () => {
    const list = structured(await mcp.call('list_templates'))
    expect(list).toEqual(await inspector('/templates'))
    expect(list.templates).toEqual([
      expect.objectContaining({
        slug: 'reset',
        fixtures: [{ name: 'default' }, { name: 'grace' }],
      }),
    ])
    const one = structured(await mcp.call('get_template', { slug: 'reset' }))
    expect(one).toEqual(await inspector('/templates/reset'))
    expect(one.required).toEqual(['code', 'name', 'resetUrl'])
    const missing = await mcp.call('get_template', { slug: 'rest' })
    expect(textOf(missing)).toMatch(/^template_not_found: .*reset/)
    // Nothing near: the advice is the tool that lists them.
    const far = await mcp.call('get_template', { slug: 'zzzzzzzz' })
    expect(textOf(far)).toContain('list_templates lists the ones there are')
    expect(textOf(far)).not.toContain('GET /')
  })

  it('render_template: variables in; html, text, warnings and missing variables out', async () => {
    const rendered = structured(
      await mcp.call('render_template', { slug: 'reset', variables: { name: 'Ada', extra: 1 } }),
    )
    expect(rendered).toMatchObject({
      slug: 'reset',
      missing: ['code', 'resetUrl'],
      variables: { name: 'Ada', extra: 1 },
    })
    expect(rendered.html).toContain('Hello Ada')
    expect(rendered.text).toContain('Hello Ada')
    expect(rendered.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ variable: 'extra' })]),
    )
  })

  it('render_template: a fixture case, or by default the first one', async () => {
    const grace = structured(await mcp.call('render_template', { slug: 'reset', case: 'grace' }))
    expect(grace).toMatchObject({ missing: [], variables: { name: 'Grace' } })
    const first = structured(await mcp.call('render_template', { slug: 'reset' }))
    expect(first.variables).toEqual(JSON.parse(FIXTURES['reset.json']))
    expect(textOf(await mcp.call('render_template', { slug: 'reset', case: 'nope' }))).toMatch(
      /^fixture_not_found: .*"default", "grace"/,
    )
    const both = await mcp.call('render_template', {
      slug: 'reset',
      case: 'grace',
      variables: {},
    })
    expect(textOf(both)).toMatch(/^validation_failed: Give `variables` or a fixture `case`/)
  })

  it('check_template: the email checks of the render, as the inspector makes them', async () => {
    const variables = { name: 'Ada', resetUrl: 'https://acme.test/r', code: '1234' }
    const checks = structured(await mcp.call('check_template', { slug: 'reset', variables }))
    expect(checks).toEqual(
      await inspector('/templates/reset/checks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ variables }),
      }),
    )
    expect(checks.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          check: 'accessibility',
          code: 'img_missing_alt',
          severity: 'warning',
          line: expect.any(Number),
          column: expect.any(Number),
        }),
      ]),
    )
    const byCase = structured(await mcp.call('check_template', { slug: 'reset', case: 'grace' }))
    expect(byCase.htmlBytes).toBeGreaterThan(0)
  })
})

describe('bad arguments', () => {
  for (const [tool, args, says] of [
    ['get_message', {}, /id/],
    ['wait_for_message', { to: 5 }, /expected string.*to/],
    ['wait_for_message', { timeout: 60_001 }, /timeout/],
    ['wait_for_message', { timeout: 1.5 }, /timeout/],
    ['list_messages', { status: 'lost' }, /status/],
    ['list_messages', { recipent: 'ada@example.com' }, /recipent/],
    ['simulate_event', { id: 'msg_1', type: 'read' }, /type/],
    ['render_template', { slug: 'reset', variables: [1] }, /variables/],
  ] as const) {
    it(`${tool} ${JSON.stringify(args)}: the SDK's validation error, and the server goes on`, async () => {
      const result = await mcp.call(tool, args)
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(/Input validation error/)
      expect(textOf(result)).toMatch(says)
      expect(structured(await mcp.call('list_templates')).templates).toHaveLength(1)
    })
  }
})
