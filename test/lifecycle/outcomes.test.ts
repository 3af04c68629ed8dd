import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../helpers/receiver.js'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { openEventStream } from '../helpers/sse.js'

/**
 * docs/delivery.md, row by row, from outside: a real server, a real webhook
 * receiver, and nothing but HTTP.
 */

const TEMPLATES = {
  'welcome.liquid': '<p>Hi {{ name }}</p><a href="https://acme.test/start">Start</a>',
}

let sandbox: TestSandbox
let receiver: Receiver
beforeAll(async () => {
  receiver = await startReceiver()
  sandbox = await startTestSandbox(TEMPLATES, { webhook: receiver.url })
})
afterAll(async () => {
  await sandbox?.close()
  await receiver?.close()
})

type Record = {
  id: string
  status: string
  recipients: Array<{
    address: string
    status: string
    events: Array<{ type: string; at: string; [k: string]: unknown }>
  }>
}

async function send(
  to: string | string[],
  token?: string,
): Promise<{ id: string; status: string }> {
  const response = await sandbox.send(
    {
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to,
      subject: 'Hi',
      templateVariables: { name: 'Ada' },
    },
    token,
  )
  const body = (await response.json()) as { id: string; status: string }
  expect(response.status, JSON.stringify(body)).toBe(201)
  return body
}

/** GET /wait for this message in this status. */
async function waitFor(id: string, to: string, status: string): Promise<Record> {
  const response = await fetch(
    `${sandbox.url}/_sandbox/api/messages/wait?to=${encodeURIComponent(to)}&status=${status}&timeout=5000`,
  )
  const body = (await response.json()) as Record
  expect(response.status, JSON.stringify(body)).toBe(200)
  expect(body.id).toBe(id)
  return body
}

const webhooksOf = (id: string, count: number) =>
  receiver.until(() => receiver.typesFor(id).length >= count).then(() => receiver.typesFor(id))

let n = 0
/** A fresh domain per use: suppressions from one test never reach another. */
const address = (local: string) => `${local}@row${++n}.example`

describe('outcome by recipient: every row of the table', () => {
  it.each([
    ['anything else', 'ada', 'delivered', ['delivered'], ['message.sent', 'message.delivered']],
    ['bounce', 'bounce', 'bounced', ['bounced'], ['message.sent', 'message.bounced']],
    ['bounced', 'bounced', 'bounced', ['bounced'], ['message.sent', 'message.bounced']],
    ['hardbounce', 'hardbounce', 'bounced', ['bounced'], ['message.sent', 'message.bounced']],
    [
      'a +bounce tag, any case',
      'Ada+BOUNCE',
      'bounced',
      ['bounced'],
      ['message.sent', 'message.bounced'],
    ],
    // Any one of the + tags names the outcome: a test's own tag may come before or after it.
    [
      'an outcome tag before a tag of the test',
      'ada+bounce+t1',
      'bounced',
      ['bounced'],
      ['message.sent', 'message.bounced'],
    ],
    [
      'an outcome tag after a tag of the test',
      'ada+t42+Bounce',
      'bounced',
      ['bounced'],
      ['message.sent', 'message.bounced'],
    ],
    [
      'an outcome tag between tags of the test',
      'ada+run7+spam+t3',
      'complained',
      ['delivered', 'complained'],
      ['message.sent', 'message.delivered', 'message.complained'],
    ],
    [
      'tags naming no outcome: the local part decides',
      'softbounce+t1+t2',
      'delivered',
      ['deferred', 'delivered'],
      ['message.sent', 'message.deferred', 'message.delivered'],
    ],
    [
      "a name of Object's prototype names nothing",
      'constructor+tostring',
      'delivered',
      ['delivered'],
      ['message.sent', 'message.delivered'],
    ],
    [
      'tags naming no outcome',
      'ada+t1+t2',
      'delivered',
      ['delivered'],
      ['message.sent', 'message.delivered'],
    ],
    [
      'softbounce',
      'softbounce',
      'delivered',
      ['deferred', 'delivered'],
      ['message.sent', 'message.deferred', 'message.delivered'],
    ],
    [
      'deferred',
      'deferred',
      'delivered',
      ['deferred', 'delivered'],
      ['message.sent', 'message.deferred', 'message.delivered'],
    ],
    [
      'delay',
      'delay',
      'delivered',
      ['deferred', 'delivered'],
      ['message.sent', 'message.deferred', 'message.delivered'],
    ],
    [
      'a +softbounce tag',
      'grace+softbounce',
      'delivered',
      ['deferred', 'delivered'],
      ['message.sent', 'message.deferred', 'message.delivered'],
    ],
    [
      'complaint',
      'complaint',
      'complained',
      ['delivered', 'complained'],
      ['message.sent', 'message.delivered', 'message.complained'],
    ],
    [
      'complained',
      'complained',
      'complained',
      ['delivered', 'complained'],
      ['message.sent', 'message.delivered', 'message.complained'],
    ],
    [
      'spam',
      'Spam',
      'complained',
      ['delivered', 'complained'],
      ['message.sent', 'message.delivered', 'message.complained'],
    ],
    [
      'a +complaint tag',
      'ada+complaint',
      'complained',
      ['delivered', 'complained'],
      ['message.sent', 'message.delivered', 'message.complained'],
    ],
  ])('%s: %s → %s', async (_row, local, final, states, webhooks) => {
    const to = address(local)
    const sent = await send(`Someone <${to}>`)
    expect(sent.status).toBe('sent')
    const record = await waitFor(sent.id, to, final)
    expect(record.status).toBe(final)
    const [recipient] = record.recipients
    expect(recipient!.address).toBe(to)
    expect(recipient!.status).toBe(states.at(-1))
    expect(recipient!.events.map((e) => e.type)).toEqual(['sent', ...states])
    if (final === 'bounced')
      expect(recipient!.events.at(-1)).toMatchObject({ type: 'bounced', bounce: { type: 'hard' } })
    for (const event of recipient!.events) expect(Date.parse(event.at)).not.toBeNaN()
    expect(await webhooksOf(sent.id, webhooks.length)).toEqual(webhooks)
    // Bounces and complaints, and only they, put the address on the suppression list.
    const listed = (
      (await (
        await fetch(`${sandbox.url}/_sandbox/api/suppressions?address=${encodeURIComponent(to)}`)
      ).json()) as { suppressions: unknown[] }
    ).suppressions
    expect(listed).toHaveLength(final === 'bounced' || final === 'complained' ? 1 : 0)
  })

  it('an address on the suppression list: suppressed, message.suppressed, the send still 201', async () => {
    const to = address('bounce')
    const first = await send(to)
    await waitFor(first.id, to, 'bounced')
    const second = await send(to)
    expect(second.status).toBe('sent')
    const record = await waitFor(second.id, to, 'suppressed')
    expect(record.recipients[0]!.events.map((e) => e.type)).toEqual(['sent', 'suppressed'])
    expect(await webhooksOf(second.id, 2)).toEqual(['message.sent', 'message.suppressed'])
  })

  it('the list wins over the local part: a suppressed plain address is suppressed too', async () => {
    const to = address('ada')
    const first = await send(to)
    await waitFor(first.id, to, 'delivered')
    await sandbox.simulate(first.id, { type: 'complained' })
    const second = await send(to)
    expect((await waitFor(second.id, to, 'suppressed')).recipients[0]!.status).toBe('suppressed')
  })
})

describe('the overall status', () => {
  it('is the first non-delivered state in the order bounced, complained, suppressed, deferred', async () => {
    const suppressed = address('bounce')
    await waitFor((await send(suppressed)).id, suppressed, 'bounced')
    const cases: Array<[string[], string]> = [
      [[address('ada'), address('bob')], 'delivered'],
      [[address('ada'), address('complaint'), address('bounce'), address('softbounce')], 'bounced'],
      [[address('softbounce'), address('spam'), suppressed], 'complained'],
      [[address('softbounce'), suppressed, address('ada')], 'suppressed'],
    ]
    for (const [to, status] of cases) {
      const sent = await send(to)
      const record = await waitFor(sent.id, to[0]!, status)
      expect(record.recipients.map((r) => r.address)).toEqual(to)
      // Every recipient has its own states.
      for (const recipient of record.recipients) expect(recipient.events[0]!.type).toBe('sent')
    }
  })

  it('deferred is a state of its own while a soft bounce waits, then delivered (with --delivery-delay)', async () => {
    const slow = await startTestSandbox(TEMPLATES, { deliveryDelay: 150 })
    try {
      const to = [address('ada'), address('softbounce')]
      const response = await slow.send({
        template: 'welcome',
        from: 'hello@acme.test',
        to,
        subject: 'Hi',
        templateVariables: { name: 'Ada' },
      })
      const { id } = (await response.json()) as { id: string }
      // Right after the 201 nothing has happened yet.
      const first = (await (
        await fetch(`${slow.url}/_sandbox/api/messages/${id}`)
      ).json()) as Record
      expect(first.status).toBe('sent')
      expect(first.recipients.map((r) => r.status)).toEqual(['sent', 'sent'])
      const deferred = (await (
        await fetch(`${slow.url}/_sandbox/api/messages/wait?status=deferred&timeout=5000`)
      ).json()) as Record
      expect(deferred.recipients.map((r) => r.status)).toEqual(['delivered', 'deferred'])
      const delivered = (await (
        await fetch(`${slow.url}/_sandbox/api/messages/wait?status=delivered&timeout=5000`)
      ).json()) as Record
      expect(delivered.id).toBe(id)
      const events = delivered.recipients[1]!.events
      // --delivery-delay apart: the first one after the send too.
      const created = Date.parse((delivered as unknown as { createdAt: string }).createdAt)
      expect(Date.parse(events[1]!.at) - created).toBeGreaterThanOrEqual(145)
      expect(Date.parse(events[2]!.at) - Date.parse(events[1]!.at)).toBeGreaterThanOrEqual(145)
    } finally {
      await slow.close()
    }
  })
})

describe('the status filter', () => {
  it('lists by status, and refuses an unknown one with 400 invalid_parameter', async () => {
    const to = address('hardbounce')
    const sent = await send(to)
    await waitFor(sent.id, to, 'bounced')
    const bounced = (await (
      await fetch(`${sandbox.url}/_sandbox/api/messages?status=bounced`)
    ).json()) as { messages: Record[]; total: number }
    expect(bounced.messages.map((m) => m.id)).toContain(sent.id)
    expect(bounced.messages.every((m) => m.status === 'bounced')).toBe(true)
    const delivered = (await (
      await fetch(`${sandbox.url}/_sandbox/api/messages?status=delivered&limit=1000`)
    ).json()) as { messages: Record[] }
    expect(delivered.messages.map((m) => m.id)).not.toContain(sent.id)
    for (const path of [
      '/_sandbox/api/messages?status=lost',
      '/_sandbox/api/messages/wait?status=Bounced',
      '/_sandbox/api/messages?status=opened',
    ]) {
      const response = await fetch(`${sandbox.url}${path}`)
      expect(response.status, path).toBe(400)
      const error = await errorOf(response)
      expect(error.code).toBe('invalid_parameter')
      expect(error.message).toContain('status')
    }
  })

  it('/wait with a status waits for the transition, not just the arrival', async () => {
    const slow = await startTestSandbox(TEMPLATES, { deliveryDelay: 100 })
    try {
      const to = address('complaint')
      const waiting = fetch(
        `${slow.url}/_sandbox/api/messages/wait?to=${to}&status=complained&timeout=5000`,
      )
      await slow.send({
        template: 'welcome',
        from: 'hello@acme.test',
        to,
        subject: 'Hi',
        templateVariables: { name: 'Ada' },
      })
      const response = await waiting
      expect(response.status).toBe(200)
      expect(((await response.json()) as Record).recipients[0]!.events.map((e) => e.type)).toEqual([
        'sent',
        'delivered',
        'complained',
      ])
    } finally {
      await slow.close()
    }
  })

  it('DELETE with ?status= clears only the messages in that status', async () => {
    const other = await startTestSandbox(TEMPLATES)
    try {
      const send2 = (to: string) =>
        other.send({
          template: 'welcome',
          from: 'hello@acme.test',
          to,
          subject: 'Hi',
          templateVariables: { name: 'Ada' },
        })
      await send2('bounce@clear.example')
      await send2('ada@clear.example')
      await other.waitForMessage({ to: 'bounce@clear.example', status: 'bounced' })
      await other.waitForMessage({ to: 'ada@clear.example', status: 'delivered' })
      expect(
        (await fetch(`${other.url}/_sandbox/api/messages?status=bounced`, { method: 'DELETE' }))
          .status,
      ).toBe(204)
      expect((await other.messages()).map((m) => m.to[0]!.address)).toEqual(['ada@clear.example'])
    } finally {
      await other.close()
    }
  })
})

describe('the event stream', () => {
  it('carries a status event per transition: { id, status, recipient } and what happened', async () => {
    const stream = await openEventStream(sandbox.url)
    try {
      const to = address('spam')
      const sent = await send(to)
      const events = await stream.until(
        (all) => all.filter((e) => e.event === 'status' && e.data.id === sent.id).length >= 2,
      )
      const mine = events.filter((e) => e.data.id === sent.id || e.data.record?.id === sent.id)
      expect(mine.map((e) => e.event).slice(0, 1)).toEqual(['message'])
      const statuses = mine.filter((e) => e.event === 'status').map((e) => e.data)
      expect(statuses[0]).toMatchObject({
        id: sent.id,
        status: 'delivered',
        recipient: to,
        recipientStatus: 'delivered',
        event: { type: 'delivered' },
      })
      expect(statuses[1]).toMatchObject({
        id: sent.id,
        status: 'complained',
        recipient: to,
        recipientStatus: 'complained',
        event: { type: 'complained' },
      })
      // The suppression that the complaint added is an event too.
      await stream.until((all) =>
        all.some(
          (e) =>
            e.event === 'suppression' &&
            e.data.suppressions.some((s: { address: string }) => s.address === to),
        ),
      )
    } finally {
      stream.close()
    }
  })
})
