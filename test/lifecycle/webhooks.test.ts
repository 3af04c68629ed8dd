import { createServer, type Server } from 'node:net'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import {
  closedPort,
  startOnePerReadReceiver,
  startReceiver,
  type Receiver,
} from '../helpers/receiver.js'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { openEventStream } from '../helpers/sse.js'

/**
 * Webhooks (docs/delivery.md), black-box: a real sandbox posting to real local endpoints, the
 * signatures checked by the standardwebhooks package's own verify.
 */

const TEMPLATES = { 'welcome.liquid': '<p>Hi {{ name }}</p>' }
const body = (to: string | string[]) => ({
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to,
  subject: 'Welcome',
  templateVariables: { name: 'Ada' },
})

interface Delivery {
  id: string
  webhookId: string
  type: string
  url: string
  messageId: string
  recipient: string
  status: string
  nextAttemptAt: string | null
  request: { headers: Record<string, string>; body: string }
  attempts: Array<{
    at: string
    statusCode: number | null
    error: string | null
    durationMs: number
    responseBody: string
    manual?: boolean
  }>
}

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup(options: Parameters<typeof startTestSandbox>[1] = {}, receivers = 1) {
  const hooks: Receiver[] = []
  for (let i = 0; i < receivers; i++) {
    const receiver = await startReceiver(`/hooks/${i}`)
    cleanups.push(() => receiver.close())
    hooks.push(receiver)
  }
  const sandbox = await startTestSandbox(TEMPLATES, {
    webhook: hooks.map((r) => r.url),
    webhookBackoff: 20,
    ...options,
  })
  cleanups.push(() => sandbox.close())
  return { sandbox, hooks }
}

async function sendOk(sandbox: TestSandbox, to: string | string[]): Promise<string> {
  const response = await sandbox.send(body(to))
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

async function deliveries(
  sandbox: TestSandbox,
  query = '',
): Promise<{ endpoints: string[]; deliveries: Delivery[]; total: number; pending: number }> {
  const response = await fetch(`${sandbox.url}/_sandbox/api/webhooks${query}`)
  expect(response.status).toBe(200)
  return (await response.json()) as never
}

describe('signatures (Standard Webhooks)', () => {
  it('every request verifies with the standardwebhooks package and the sandbox secret', async () => {
    const secret = `whsec_${Buffer.from('a fixed secret for the tests, 32 b').toString('base64')}`
    const { sandbox, hooks } = await setup({ webhookSecret: secret })
    expect(sandbox.webhookSecret).toBe(secret)
    const id = await sendOk(sandbox, ['ada@example.com', 'bob+bounce@example.com'])
    const [receiver] = hooks
    await receiver!.until(() => receiver!.typesFor(id).length === 3)
    const verifier = new Webhook(secret)
    for (const request of receiver!.received) {
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['webhook-id']).toMatch(/^evt_/)
      expect(request.headers['webhook-timestamp']).toMatch(/^\d{10}$/)
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
      const verified = verifier.verify(request.raw, request.headers as Record<string, string>)
      expect(verified).toEqual(request.body)
    }
    // Ids are unique per event.
    expect(new Set(receiver!.received.map((r) => r.headers['webhook-id'])).size).toBe(
      receiver!.received.length,
    )
  })

  it('a wrong secret, a changed body or an old timestamp is refused by verify', async () => {
    const { sandbox, hooks } = await setup()
    const [receiver] = hooks
    const id = await sendOk(sandbox, 'ada@example.com')
    const [request] = await receiver!.until(() => receiver!.typesFor(id).length >= 1)
    const headers = request!.headers as Record<string, string>
    expect(() => new Webhook(sandbox.webhookSecret).verify(request!.raw, headers)).not.toThrow()
    const wrong = `whsec_${Buffer.from('some other secret of the same size').toString('base64')}`
    expect(() => new Webhook(wrong).verify(request!.raw, headers)).toThrow(WebhookVerificationError)
    expect(() =>
      new Webhook(sandbox.webhookSecret).verify(request!.raw.replace('ada@', 'eve@'), headers),
    ).toThrow(WebhookVerificationError)
    const stale = { ...headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) }
    expect(() => new Webhook(sandbox.webhookSecret).verify(request!.raw, stale)).toThrow(
      WebhookVerificationError,
    )
  })

  it('without --webhook-secret one is generated (whsec_ and base64), different per sandbox', async () => {
    const a = await setup()
    const b = await setup()
    expect(a.sandbox.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    expect(a.sandbox.webhookSecret).not.toBe(b.sandbox.webhookSecret)
  })
})

describe('the payload', () => {
  it('follows the contract: { type, timestamp, data: { id, project, template, recipient, subject, status } }', async () => {
    const { sandbox, hooks } = await setup()
    const [receiver] = hooks
    const id = await sendOk(sandbox, 'Ada <ada+bounce@example.com>')
    await receiver!.until(() => receiver!.typesFor(id).length === 2)
    const [sent, bounced] = receiver!.received
      .filter((r) => r.body.data.id === id)
      .map((r) => r.body)
    const record = await sandbox.waitForMessage({ status: 'bounced' })
    const common = {
      id,
      project: record.project,
      template: 'welcome',
      recipient: 'ada+bounce@example.com',
      subject: 'Welcome',
    }
    expect(sent).toEqual({
      type: 'message.sent',
      timestamp: record.createdAt,
      data: { ...common, status: 'sent', recipients: ['ada+bounce@example.com'] },
    })
    expect(bounced).toEqual({
      type: 'message.bounced',
      timestamp: record.recipients[0]!.events[1]!.at,
      data: { ...common, status: 'bounced', bounce: { type: 'hard' } },
    })
    expect(record.project).toMatch(/^[0-9a-f]{8}$/)
  })
})

describe('order', () => {
  it("message.sent first, then each message's events in order, at every URL", async () => {
    const { sandbox, hooks } = await setup({}, 2)
    const ids: string[] = []
    // Several messages at once: their events interleave, but never reorder within one message.
    for (let i = 0; i < 10; i++)
      ids.push(
        await sendOk(sandbox, [`c${i}+complaint@example.com`, `s${i}+softbounce@example.com`]),
      )
    for (const receiver of hooks) {
      await receiver.until(() => ids.every((id) => receiver.typesFor(id).length === 5))
      for (const id of ids) {
        const types = receiver.typesFor(id)
        expect(types[0]).toBe('message.sent')
        const forRecipient = (address: string) =>
          receiver.received
            .filter(
              (r) =>
                r.body.data.id === id &&
                r.body.data.recipient === address &&
                r.body.type !== 'message.sent',
            )
            .map((r) => r.body.type)
        expect(forRecipient(`c${ids.indexOf(id)}+complaint@example.com`)).toEqual([
          'message.delivered',
          'message.complained',
        ])
        expect(forRecipient(`s${ids.indexOf(id)}+softbounce@example.com`)).toEqual([
          'message.deferred',
          'message.delivered',
        ])
      }
    }
  })

  it("a message's next event waits until the one before is through, retries included", async () => {
    const { sandbox, hooks } = await setup()
    const [receiver] = hooks
    // message.sent fails twice; the delivered event must not overtake it.
    receiver!.respond = (request) =>
      request.body.type === 'message.sent' &&
      receiver!.received.filter((r) => r.body.type === 'message.sent').length <= 2
        ? 500
        : 200
    const id = await sendOk(sandbox, 'ada@example.com')
    await receiver!.until(() => receiver!.typesFor(id).includes('message.delivered'))
    expect(receiver!.typesFor(id)).toEqual([
      'message.sent',
      'message.sent',
      'message.sent',
      'message.delivered',
    ])
  })
})

describe('retries', () => {
  it('an endpoint that fails twice gets the event on the third attempt; every attempt is kept', async () => {
    const { sandbox, hooks } = await setup({ webhookBackoff: 30 })
    const [receiver] = hooks
    let failures = 0
    receiver!.respond = (request) =>
      request.body.type === 'message.delivered' && failures++ < 2 ? 503 : 200
    const id = await sendOk(sandbox, 'ada@example.com')
    await receiver!.until(
      () => receiver!.typesFor(id).filter((t) => t === 'message.delivered').length === 3,
    )
    const attempts = receiver!.received.filter((r) => r.body.type === 'message.delivered')
    // The same event each time: one webhook-id, a fresh timestamp and signature, all valid.
    expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1)
    for (const request of attempts)
      new Webhook(sandbox.webhookSecret).verify(
        request.raw,
        request.headers as Record<string, string>,
      )
    // Exponential backoff: 30 ms, then 60 ms.
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(25)
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(55)
    const list = await deliveries(sandbox, `?message=${id}&type=message.delivered`)
    const [delivery] = list.deliveries
    expect(list.total).toBe(1)
    await expect
      .poll(
        async () =>
          (await deliveries(sandbox, `?message=${id}&type=message.delivered`)).deliveries[0]!
            .status,
      )
      .toBe('delivered')
    const settled = (await deliveries(sandbox, `?message=${id}&type=message.delivered`))
      .deliveries[0]!
    expect(settled.attempts.map((a) => a.statusCode)).toEqual([503, 503, 200])
    expect(settled.attempts[0]!.responseBody).toBe('failing on purpose (503)')
    expect(settled.attempts[2]!.responseBody).toBe('ok')
    for (const attempt of settled.attempts) {
      expect(attempt.error).toBeNull()
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0)
      expect(Date.parse(attempt.at)).not.toBeNaN()
    }
    expect(settled).toMatchObject({
      id: delivery!.id,
      url: receiver!.url,
      messageId: id,
      recipient: 'ada@example.com',
      type: 'message.delivered',
      nextAttemptAt: null,
    })
    expect(JSON.parse(settled.request.body)).toMatchObject({ type: 'message.delivered' })
    expect(settled.request.headers).toMatchObject({
      'webhook-id': settled.webhookId,
      'content-type': 'application/json',
    })
  })

  it("gives up after --webhook-retries, and the message's next event still goes out", async () => {
    const { sandbox, hooks } = await setup({ webhookRetries: 2 })
    const [receiver] = hooks
    receiver!.respond = (request) => (request.body.type === 'message.sent' ? 500 : 200)
    const id = await sendOk(sandbox, 'ada@example.com')
    await receiver!.until(() => receiver!.typesFor(id).includes('message.delivered'))
    expect(receiver!.typesFor(id)).toEqual([
      'message.sent',
      'message.sent',
      'message.sent',
      'message.delivered',
    ])
    const [failed] = (await deliveries(sandbox, `?message=${id}&status=failed`)).deliveries
    expect(failed!.type).toBe('message.sent')
    expect(failed!.attempts.map((a) => a.statusCode)).toEqual([500, 500, 500])
  })

  it('POST /_sandbox/api/webhooks/:id/retry sends a failed delivery again and answers with it', async () => {
    const { sandbox, hooks } = await setup({ webhookRetries: 0 })
    const [receiver] = hooks
    receiver!.respond = () => 500
    const id = await sendOk(sandbox, 'ada@example.com')
    await expect
      .poll(async () => (await deliveries(sandbox, `?message=${id}&status=failed`)).total)
      .toBe(2)
    const [failed] = (await deliveries(sandbox, `?message=${id}&type=message.sent`)).deliveries
    receiver!.respond = () => 204
    const response = await fetch(`${sandbox.url}/_sandbox/api/webhooks/${failed!.id}/retry`, {
      method: 'POST',
    })
    expect(response.status).toBe(200)
    const retried = (await response.json()) as Delivery
    expect(retried.status).toBe('delivered')
    expect(retried.attempts.map((a) => [a.statusCode, a.manual ?? false])).toEqual([
      [500, false],
      [204, true],
    ])
    expect(receiver!.received.at(-1)!.headers['webhook-id']).toBe(failed!.webhookId)
    const one = (await (
      await fetch(`${sandbox.url}/_sandbox/api/webhooks/${failed!.id}`)
    ).json()) as Delivery
    expect(one.status).toBe('delivered')
  })

  it('unknown deliveries are 404 webhook_delivery_not_found; bad filters 400; wrong methods 405', async () => {
    const { sandbox } = await setup()
    for (const [method, path] of [
      ['POST', '/_sandbox/api/webhooks/whd_nope/retry'],
      ['GET', '/_sandbox/api/webhooks/whd_nope'],
    ]) {
      const response = await fetch(`${sandbox.url}${path}`, { method })
      expect(response.status).toBe(404)
      expect((await errorOf(response)).code).toBe('webhook_delivery_not_found')
    }
    for (const query of ['?status=lost', '?type=message.lost', '?limit=0', '?limit=1001']) {
      const response = await fetch(`${sandbox.url}/_sandbox/api/webhooks${query}`)
      expect(response.status, query).toBe(400)
      expect((await errorOf(response)).code).toBe('invalid_parameter')
    }
    const wrong = await fetch(`${sandbox.url}/_sandbox/api/webhooks`, { method: 'POST' })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('GET, HEAD')
    expect((await fetch(`${sandbox.url}/_sandbox/api/webhooks/whd_x/retry`)).status).toBe(405)
  })

  it('an attempt that gets no answer within the timeout is an error and is retried', async () => {
    const { sandbox, hooks } = await setup({ webhookTimeout: 100, webhookRetries: 1 })
    const [receiver] = hooks
    receiver!.respond = (_request, n) => (n === 0 ? 'hang' : 200)
    const id = await sendOk(sandbox, 'ada@example.com')
    await receiver!.until(() => receiver!.typesFor(id).includes('message.delivered'))
    const [sent] = (await deliveries(sandbox, `?message=${id}&type=message.sent`)).deliveries
    expect(sent!.status).toBe('delivered')
    expect(sent!.attempts[0]).toMatchObject({
      statusCode: null,
      error: expect.stringContaining('timed out'),
    })
    expect(sent!.attempts[0]!.durationMs).toBeGreaterThanOrEqual(95)
    expect(sent!.attempts[1]!.statusCode).toBe(200)
  })
})

describe('an endpoint that is down', () => {
  it('unreachable: sends neither slow down nor fail; no event is lost, each is kept with its error', async () => {
    const port = await closedPort()
    const { sandbox } = await setup({
      webhook: `http://127.0.0.1:${port}/hooks`,
      webhookBackoff: 60_000,
    })
    const ids: string[] = []
    for (let i = 0; i < 20; i++) ids.push(await sendOk(sandbox, `user${i}@example.com`))
    // The messages go through their states as if nothing were wrong.
    for (let i = 0; i < 20; i++)
      await sandbox.waitForMessage({
        to: `user${i}@example.com`,
        status: 'delivered',
        timeout: 5000,
      })
    await expect
      .poll(
        async () =>
          (await deliveries(sandbox)).deliveries.filter((d) => d.attempts.length > 0).length,
      )
      .toBe(20)
    const list = await deliveries(sandbox, '?limit=1000')
    expect(list.total).toBe(40)
    expect(list.pending).toBe(40)
    for (const id of ids) {
      const [delivered, sent] = list.deliveries.filter((d) => d.messageId === id)
      // message.sent was tried and waits for its retry; message.delivered waits behind it, in order.
      expect(sent).toMatchObject({
        type: 'message.sent',
        status: 'pending',
        attempts: [{ statusCode: null, error: expect.stringContaining('connection refused') }],
      })
      expect(sent!.nextAttemptAt).not.toBeNull()
      expect(delivered).toMatchObject({
        type: 'message.delivered',
        status: 'pending',
        attempts: [],
      })
    }
  })

  it('hanging (accepts, never answers): sends still take milliseconds, far below the 5 s timeout', async () => {
    const sockets = new Set<import('node:net').Socket>()
    const server: Server = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    })
    const { sandbox } = await setup({
      webhook: `http://127.0.0.1:${(server.address() as { port: number }).port}/`,
    })
    const started = performance.now()
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => sandbox.send(body(`u${i}@example.com`))),
    )
    const elapsed = performance.now() - started
    expect(responses.map((r) => r.status)).toEqual(Array(40).fill(201))
    // 40 sends with 80 deliveries stuck in flight: the sends never waited for any of them.
    expect(elapsed).toBeLessThan(2500)
    await expect.poll(() => sockets.size).toBeGreaterThan(0)
    // Each message's delivered event follows its 201 (docs/delivery.md), so the last ones may still be
    // on their way: wait until all 80 are pending (none answered, none given up).
    await expect.poll(async () => (await deliveries(sandbox)).pending).toBe(80)
  })
})

describe('a receiver that answers one request per read (no pipelining)', () => {
  it('gets every webhook of a 60-send burst, each on its first attempt, none timed out', async () => {
    const receiver = await startOnePerReadReceiver()
    cleanups.push(() => receiver.close())
    const { sandbox } = await setup({ webhook: receiver.url, webhookTimeout: 2000 }, 0)
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => sandbox.send(body(`u${i}@example.com`))),
    )
    expect(responses.map((r) => r.status)).toEqual(Array(60).fill(201))
    // message.sent and message.delivered for each: 120 webhooks.
    await receiver.until((answered) => new Set(answered).size === 120, 15_000)
    const list = await deliveries(sandbox, '?limit=1000')
    expect(list.total).toBe(120)
    const late = list.deliveries.filter(
      (d) => d.status !== 'delivered' || d.attempts.length !== 1 || d.attempts[0]!.error !== null,
    )
    expect(late.map((d) => d.attempts.map((a) => a.error ?? a.statusCode))).toEqual([])
    expect(receiver.dropped).toBe(0)
  })
})

describe('the event stream and shutdown', () => {
  it("orders a message's `message` event before its `status` and `webhook` events", async () => {
    const { sandbox, hooks } = await setup()
    const stream = await openEventStream(sandbox.url)
    try {
      const id = await sendOk(sandbox, 'ada@example.com')
      await hooks[0]!.until(() => hooks[0]!.typesFor(id).length === 2)
      const events = await stream.until(
        (all) =>
          all.some((e) => e.event === 'status' && e.data.id === id) &&
          all.filter(
            (e) =>
              e.event === 'webhook' && e.data.messageId === id && e.data.status === 'delivered',
          ).length === 2,
      )
      const ofMessage = events.filter(
        (e) =>
          (e.event === 'message' && e.data.id === id) ||
          (e.event === 'status' && e.data.id === id) ||
          (e.event === 'webhook' && e.data.messageId === id),
      )
      expect(ofMessage[0]!.event).toBe('message')
      expect(ofMessage.filter((e) => e.event === 'message')).toHaveLength(1)
    } finally {
      stream.close()
    }
  })

  it('SSE webhook events carry each delivery as it is queued, attempted and settled', async () => {
    const { sandbox, hooks } = await setup()
    const stream = await openEventStream(sandbox.url)
    try {
      const id = await sendOk(sandbox, 'ada@example.com')
      await hooks[0]!.until(() => hooks[0]!.typesFor(id).length === 2)
      const events = await stream.until(
        (all) =>
          all.filter(
            (e) =>
              e.event === 'webhook' && e.data.messageId === id && e.data.status === 'delivered',
          ).length === 2,
      )
      const sent = events
        .filter((e) => e.event === 'webhook' && e.data.type === 'message.sent')
        .map((e) => e.data as Delivery)
      expect(sent[0]).toMatchObject({ status: 'pending', attempts: [] })
      expect(sent.at(-1)).toMatchObject({ status: 'delivered', attempts: [{ statusCode: 200 }] })
    } finally {
      stream.close()
    }
  })

  it('close() stops pending deliveries at once: no timer or request outlives it', async () => {
    const { sandbox, hooks } = await setup({ webhookBackoff: 60_000 })
    hooks[0]!.respond = () => 500
    const id = await sendOk(sandbox, 'ada@example.com')
    await hooks[0]!.until(() => hooks[0]!.typesFor(id).length === 1)
    const started = performance.now()
    await sandbox.close()
    expect(performance.now() - started).toBeLessThan(2000)
    expect(hooks[0]!.received).toHaveLength(1)
  })
})

describe('no webhook configured', () => {
  it('nothing is queued, and the list says there is no endpoint', async () => {
    const sandbox = await startTestSandbox(TEMPLATES)
    cleanups.push(() => sandbox.close())
    await sendOk(sandbox, 'ada@example.com')
    await sandbox.waitForMessage({ status: 'delivered' })
    expect(await deliveries(sandbox)).toEqual({
      endpoints: [],
      deliveries: [],
      total: 0,
      pending: 0,
    })
    expect(await sandbox.webhooks()).toEqual([])
  })
})
