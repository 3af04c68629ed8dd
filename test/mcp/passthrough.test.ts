import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { connectMcp, type McpSession, textOf } from '../helpers/mcp.js'

/**
 * What the MCP server sends the inspector and hands back, seen from a stand-in inspector that
 * records each request and answers what a test tells it: the arguments go through under the
 * inspector's names, the record comes back unchanged (fields the server adds later included), and
 * an inspector that accepts a request and never answers becomes an error.
 */

interface Seen {
  method: string
  url: string
  body: string
}
let seen: Seen[] = []
let answer: (req: IncomingMessage, res: ServerResponse) => void
let server: Server
let url: string
let mcp: McpSession

const RECORD = {
  id: 'msg_1',
  status: 'sent',
  createdAt: '2026-11-21T10:00:00.000Z',
  template: 'reset',
  from: { name: 'Acme', address: 'hello@acme.test' },
  to: [{ name: null, address: 'ada@example.com' }],
  subject: 'Reset',
  html: '<a href="https://acme.test/r/1">Reset</a>',
  text: 'Reset: https://acme.test/r/1\nCode: 482913',
  links: [
    { href: 'https://acme.test/r/1', text: 'Reset' },
    { href: 'https://acme.test/help', text: null },
  ],
  codes: ['482913'],
  somethingNew: { added: 'later' },
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body })
      answer(req, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  mcp = await connectMcp(['--url', url])
})
afterAll(async () => {
  await mcp?.close()
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
})
beforeEach(() => {
  seen = []
  answer = (req, res) => {
    if (req.method === 'DELETE') return res.writeHead(204).end()
    if (req.url!.startsWith('/_sandbox/api/messages?'))
      return json(res, 200, { messages: [RECORD], total: 1 })
    return json(res, 200, RECORD)
  }
})

describe('arguments go to the inspector under its own names', () => {
  it('list_messages: every filter, paging and fields as query parameters', async () => {
    await mcp.call('list_messages', {
      to: 'ada',
      recipient: 'ada@example.com',
      from: 'acme',
      template: 'reset',
      subject: 'Reset',
      status: 'bounced',
      since: '2026-11-21',
      limit: 5,
      offset: 2,
    })
    expect(seen).toHaveLength(1)
    const request = new URL(seen[0]!.url, url)
    expect(request.pathname).toBe('/_sandbox/api/messages')
    expect(Object.fromEntries(request.searchParams)).toEqual({
      to: 'ada',
      recipient: 'ada@example.com',
      from: 'acme',
      template: 'reset',
      subject: 'Reset',
      status: 'bounced',
      since: '2026-11-21',
      limit: '5',
      offset: '2',
      fields: 'summary',
    })
  })

  it('wait_for_message: the filters, timeout and after; clear_messages: the filters on DELETE', async () => {
    await mcp.call('wait_for_message', {
      recipient: 'ada@example.com',
      timeout: 7000,
      after: 'now',
    })
    await mcp.call('clear_messages', { recipient: 'ada@example.com' })
    expect(seen.map((s) => `${s.method} ${decodeURIComponent(s.url)}`)).toEqual([
      'GET /_sandbox/api/messages/wait?recipient=ada@example.com&timeout=7000&after=now',
      'GET /_sandbox/api/messages?recipient=ada@example.com&limit=1&fields=summary',
      'DELETE /_sandbox/api/messages?recipient=ada@example.com',
    ])
  })

  it('simulate_event: a JSON body with type, recipient and url; ids and slugs are escaped in paths', async () => {
    await mcp.call('simulate_event', {
      id: 'msg_1/../x',
      type: 'clicked',
      recipient: 'ada@example.com',
      url: 'https://acme.test/r/1',
    })
    await mcp.call('render_template', { slug: 'a b', variables: { name: 'Ada' } })
    await mcp.call('check_template', { slug: 'reset', case: 'big order' })
    expect(seen.map((s) => [s.method, s.url, s.body && JSON.parse(s.body)])).toEqual([
      [
        'POST',
        '/_sandbox/api/messages/msg_1%2F..%2Fx/events',
        { type: 'clicked', recipient: 'ada@example.com', url: 'https://acme.test/r/1' },
      ],
      ['POST', '/_sandbox/api/templates/a%20b/render', { variables: { name: 'Ada' } }],
      ['GET', '/_sandbox/api/templates/reset/checks?case=big+order', ''],
      // The spam score too: a sandbox without --spamassassin answers 409, and the checks go alone.
      ['GET', '/_sandbox/api/templates/reset/spam?case=big+order', ''],
    ])
  })
})

describe('answers come back unchanged', () => {
  it('the record with its links, codes and fields added later, through get_message, wait_for_message and list_messages', async () => {
    for (const [tool, args] of [
      ['get_message', { id: 'msg_1' }],
      ['wait_for_message', {}],
    ] as const) {
      const result = await mcp.call(tool, args)
      expect(result.isError, textOf(result)).toBeFalsy()
      expect(result.structuredContent).toEqual(RECORD)
      expect(JSON.parse(textOf(result))).toEqual(RECORD)
    }
    const list = await mcp.call('list_messages')
    expect(list.structuredContent).toEqual({ messages: [RECORD], total: 1 })
  })

  it("an error answer: the inspector's code, message and details", async () => {
    answer = (_req, res) =>
      json(res, 422, {
        error: {
          code: 'url_not_in_message',
          message: 'The message has no link https://x.test/.',
          details: [{ field: 'url', links: ['https://acme.test/r/1'] }],
        },
      })
    const result = await mcp.call('simulate_event', {
      id: 'msg_1',
      type: 'clicked',
      url: 'https://x.test/',
    })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(
      'url_not_in_message: The message has no link https://x.test/.\nDetails: [{"field":"url","links":["https://acme.test/r/1"]}]',
    )
  })

  it('check_template: the checks, with the spam score under `spam` when the sandbox has one, alone without', async () => {
    const CHECKS = {
      htmlBytes: 10,
      findings: [],
      clients: [],
      counts: { error: 0, warning: 0, info: 0 },
    }
    const SPAM = {
      score: 0.6,
      threshold: 5,
      isSpam: false,
      rules: [{ name: 'MISSING_MID', score: 0.6, description: 'Missing Message-Id: header' }],
    }
    const spamAnswer = { status: 200, body: SPAM as unknown }
    answer = (req, res) =>
      req.url!.includes('/spam')
        ? json(res, spamAnswer.status, spamAnswer.body)
        : json(res, 200, CHECKS)
    const scored = await mcp.call('check_template', { slug: 'reset' })
    expect(scored.structuredContent).toEqual({ ...CHECKS, spam: SPAM })
    Object.assign(spamAnswer, {
      status: 409,
      body: {
        error: {
          code: 'spam_check_not_configured',
          message: 'No spamd is configured.',
          details: [],
        },
      },
    })
    expect((await mcp.call('check_template', { slug: 'reset' })).structuredContent).toEqual(CHECKS)
    const failed = {
      code: 'spam_check_failed',
      message: 'spamd at 127.0.0.1:783 did not answer within 10 s.',
      details: [],
    }
    Object.assign(spamAnswer, { status: 502, body: { error: failed } })
    const result = await mcp.call('check_template', { slug: 'reset' })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({ ...CHECKS, spam: { error: failed } })
  })

  it('a 200 that is not JSON is not a sandbox', async () => {
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('hello')
    const result = await mcp.call('get_message', { id: 'msg_1' })
    expect(textOf(result)).toMatch(
      /^not_a_sandbox: http:\/\/127\.0\.0\.1:\d+ answered 200 text\/plain/,
    )
  })
})

it('a sandbox that accepts the request and never answers: an error after 10 s naming the URL', async () => {
  answer = () => {}
  const result = await mcp.call('list_templates')
  expect(result.isError).toBe(true)
  expect(textOf(result)).toBe(
    `sandbox_unreachable: The sandbox at ${url} did not answer within 10 s. Is it stopped or busy? Start one with \`npx sendbox\` (it listens on http://127.0.0.1:5025), or point sendbox mcp at yours with --url or SENDBOX_URL (now ${url}).`,
  )
}, 30_000)
