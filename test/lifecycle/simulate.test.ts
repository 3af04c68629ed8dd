import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../helpers/receiver.js'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

/** POST /_sandbox/api/messages/:id/events: simulated engagement (docs/delivery.md), black-box. */

const TEMPLATES = {
  'welcome.liquid':
    '<p>Hi {{ name }}</p><a href="https://acme.test/start?step=1&amp;ref=mail">Start</a> <a href="https://acme.test/help">Help</a>',
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

type Stored = {
  id: string
  status: string
  recipients: Array<{
    address: string
    status: string
    events: Array<{ type: string; at: string; url?: string; simulated?: boolean }>
  }>
}

let n = 0
async function sent(
  to: string[] = [`ada${++n}@example.com`, `bob${n}@example.com`],
): Promise<Stored> {
  const response = await sandbox.send({
    template: 'welcome',
    from: 'hello@acme.test',
    to,
    subject: 'Hi',
    templateVariables: { name: 'Ada' },
  })
  const { id } = (await response.json()) as { id: string }
  // Settled first, so that the simulated events come after the automatic ones.
  await receiver.until(() => receiver.typesFor(id).length === 1 + to.length)
  return (await (await fetch(`${sandbox.url}/_sandbox/api/messages/${id}`)).json()) as Stored
}

const post = (
  id: string,
  payload: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) =>
  fetch(`${sandbox.url}/_sandbox/api/messages/${id}/events`, {
    method: 'POST',
    headers,
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  })

async function simulate(id: string, payload: unknown): Promise<Stored> {
  const response = await post(id, payload)
  const body = (await response.json()) as Stored
  expect(response.status, JSON.stringify(body)).toBe(201)
  return body
}

describe('simulated events', () => {
  it('opened: appended to the first recipient by default, state unchanged, message.opened fired', async () => {
    const message = await sent()
    const after = await simulate(message.id, { type: 'opened' })
    expect(after.id).toBe(message.id)
    const [first, second] = after.recipients
    expect(first!.events.map((e) => e.type)).toEqual(['sent', 'delivered', 'opened'])
    expect(first!.events.at(-1)).toMatchObject({ type: 'opened', simulated: true })
    expect(first!.status).toBe('delivered')
    expect(second!.events.map((e) => e.type)).toEqual(['sent', 'delivered'])
    expect(after.status).toBe('delivered')
    await receiver.until(() => receiver.typesFor(message.id).includes('message.opened'))
    const opened = receiver.received.find(
      (r) => r.body.data.id === message.id && r.body.type === 'message.opened',
    )!
    expect(opened.body.data).toMatchObject({ recipient: first!.address, status: 'delivered' })
    // The stored record says the same as the answer.
    expect(
      await (await fetch(`${sandbox.url}/_sandbox/api/messages/${message.id}`)).json(),
    ).toEqual(after)
  })

  it('clicked: a url of the HTML (entities as a browser reads them, or as written); message.clicked carries it', async () => {
    const message = await sent()
    const bob = message.recipients[1]!.address
    const first = await simulate(message.id, {
      type: 'clicked',
      recipient: bob,
      url: 'https://acme.test/start?step=1&ref=mail',
    })
    expect(first.recipients[1]!.events.at(-1)).toMatchObject({
      type: 'clicked',
      url: 'https://acme.test/start?step=1&ref=mail',
    })
    await simulate(message.id, {
      type: 'clicked',
      recipient: bob.toUpperCase(),
      url: 'https://acme.test/help',
    })
    await receiver.until(
      () => receiver.typesFor(message.id).filter((t) => t === 'message.clicked').length === 2,
    )
    const clicks = receiver.received
      .filter((r) => r.body.data.id === message.id && r.body.type === 'message.clicked')
      .map((r) => r.body.data)
    expect(clicks.map((c) => [c.recipient, c.url])).toEqual([
      [bob, 'https://acme.test/start?step=1&ref=mail'],
      [bob, 'https://acme.test/help'],
    ])
  })

  it('bounced: the recipient bounces (hard), the address is suppressed, the overall status follows', async () => {
    const message = await sent()
    const bob = message.recipients[1]!.address
    const after = await simulate(message.id, { type: 'bounced', recipient: `Bob <${bob}>` })
    expect(after.recipients[1]).toMatchObject({ status: 'bounced' })
    expect(after.recipients[1]!.events.at(-1)).toMatchObject({
      type: 'bounced',
      bounce: { type: 'hard' },
      simulated: true,
    })
    expect(after.status).toBe('bounced')
    expect((await sandbox.suppressions({ address: bob })).map((s) => s.reason)).toEqual(['bounced'])
    await receiver.until(() => receiver.typesFor(message.id).includes('message.bounced'))
  })

  it('complained: complained and suppressed; delivered: back to delivered', async () => {
    const message = await sent()
    const ada = message.recipients[0]!.address
    const complained = await simulate(message.id, { type: 'complained' })
    expect(complained.status).toBe('complained')
    expect((await sandbox.suppressions({ address: ada })).map((s) => s.reason)).toEqual([
      'complained',
    ])
    const delivered = await simulate(message.id, { type: 'delivered' })
    expect(delivered.recipients[0]!.status).toBe('delivered')
    expect(delivered.status).toBe('delivered')
    await receiver.until(
      () => receiver.typesFor(message.id).filter((t) => t === 'message.delivered').length === 3,
    )
  })

  it('takes the recipient over: its automatic steps that were still to come are dropped', async () => {
    // The simulated bounce must come before x's first automatic step: a second leaves room for
    // a loaded machine (at 150 ms, a run under load saw x deferred first).
    const slow = await startTestSandbox(TEMPLATES, { deliveryDelay: 1000 })
    try {
      const response = await slow.send({
        template: 'welcome',
        from: 'hello@acme.test',
        to: ['x+softbounce@example.com', 'y@example.com'],
        subject: 'Hi',
        templateVariables: { name: 'Ada' },
      })
      const { id } = (await response.json()) as { id: string }
      const answer = await fetch(`${slow.url}/_sandbox/api/messages/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'bounced' }),
      })
      expect(answer.status).toBe(201)
      // y settles on its own; x stays where the simulation put it.
      const settled = await slow.waitForMessage({
        to: 'y@example.com',
        status: 'bounced',
        timeout: 5000,
      })
      expect(settled.recipients[0]!.events.map((e) => e.type)).toEqual(['sent', 'bounced'])
      expect(settled.recipients[1]!.events.map((e) => e.type)).toEqual(['sent', 'delivered'])
      // The y step was the last one scheduled: nothing else is pending.
      expect(
        ((await (await fetch(`${slow.url}/_sandbox/api/messages/${id}`)).json()) as Stored)
          .recipients[0]!.events,
      ).toHaveLength(2)
    } finally {
      await slow.close()
    }
  })

  it('sandbox.simulate does the same from a test suite, and refuses an invalid event with a TypeError', async () => {
    const message = await sent()
    const after = await sandbox.simulate(message.id, {
      type: 'opened',
      recipient: message.recipients[1]!.address,
    })
    expect(after.recipients[1]!.events.at(-1)!.type).toBe('opened')
    await expect(sandbox.simulate(message.id, { type: 'read' as never })).rejects.toThrow(TypeError)
    await expect(sandbox.simulate('msg_nope', { type: 'opened' })).rejects.toThrow('msg_nope')
    await expect(
      sandbox.simulate(message.id, { type: 'opened', recipient: 'eve@example.com' }),
    ).rejects.toThrow('eve@example.com')
    await expect(
      sandbox.simulate(message.id, { type: 'clicked', url: 'https://evil.test' }),
    ).rejects.toThrow('https://evil.test')
  })
})

describe('error paths, in the order they are checked', () => {
  it('415 without Content-Type: application/json', async () => {
    const message = await sent()
    for (const headers of [{}, { 'content-type': 'text/plain' }] as Array<Record<string, string>>) {
      const response = await post(message.id, { type: 'opened' }, headers)
      expect(response.status).toBe(415)
      expect((await errorOf(response)).code).toBe('unsupported_media_type')
    }
  })

  it('413 over the limit, 400 for bad JSON (with the position)', async () => {
    const message = await sent()
    const big = await post(message.id, JSON.stringify({ type: 'opened', pad: 'x'.repeat(70_000) }))
    expect(big.status).toBe(413)
    expect((await errorOf(big)).code).toBe('payload_too_large')
    const bad = await post(message.id, '{"type": opened}')
    expect(bad.status).toBe(400)
    const error = await errorOf(bad)
    expect(error.code).toBe('invalid_json')
    expect(error.details).toEqual([expect.objectContaining({ line: 1, column: 10 })])
  })

  it('422 validation_failed lists every problem at once: type, fields, url', async () => {
    const message = await sent()
    const cases: Array<[unknown, Array<{ field: string; code: string }>]> = [
      [{}, [{ field: 'type', code: 'required' }]],
      [{ type: 'read' }, [{ field: 'type', code: 'invalid_value' }]],
      [{ type: 42 }, [{ field: 'type', code: 'invalid_value' }]],
      [[], [{ field: '', code: 'invalid_type' }]],
      [{ type: 'clicked' }, [{ field: 'url', code: 'required' }]],
      [
        { type: 'opened', url: 'https://acme.test/help' },
        [{ field: 'url', code: 'invalid_value' }],
      ],
      [
        { type: 'opened', recipient: 7, url: 5 },
        [
          { field: 'recipient', code: 'invalid_type' },
          { field: 'url', code: 'invalid_type' },
        ],
      ],
      [
        { type: 'read', recipeint: 'ada@example.com', extra: true },
        [
          { field: 'type', code: 'invalid_value' },
          { field: 'recipeint', code: 'unknown_field' },
          { field: 'extra', code: 'unknown_field' },
        ],
      ],
    ]
    for (const [payload, expected] of cases) {
      const response = await post(message.id, payload)
      expect(response.status, JSON.stringify(payload)).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('validation_failed')
      expect(
        error.details.map((d) => ({
          field: (d as { field: string }).field,
          code: (d as { code: string }).code,
        })),
      ).toEqual(expected)
    }
    const typo = await errorOf(await post(message.id, { type: 'opened', recipeint: 'x' }))
    expect((typo.details[0] as { message: string }).message).toContain('did you mean "recipient"')
  })

  it('404 message_not_found for an unknown message (after the body is checked)', async () => {
    const response = await post('msg_missing', { type: 'opened' })
    expect(response.status).toBe(404)
    expect((await errorOf(response)).code).toBe('message_not_found')
    expect((await post('msg_missing', { type: 'nope' })).status).toBe(422)
  })

  it("422 recipient_not_found names the message's recipients", async () => {
    const message = await sent()
    const response = await post(message.id, { type: 'opened', recipient: 'eve@example.com' })
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('recipient_not_found')
    expect(error.message).toContain('eve@example.com')
    expect(error.details).toEqual([
      { field: 'recipient', recipients: message.recipients.map((r) => r.address) },
    ])
  })

  it('422 url_not_in_message for a click on a link the HTML does not have, listing the links it has', async () => {
    const message = await sent()
    const response = await post(message.id, { type: 'clicked', url: 'https://acme.test/elsewhere' })
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('url_not_in_message')
    expect(error.details).toEqual([
      {
        field: 'url',
        links: ['https://acme.test/start?step=1&ref=mail', 'https://acme.test/help'],
      },
    ])
    // Nothing was recorded by any refused request.
    const record = (await (
      await fetch(`${sandbox.url}/_sandbox/api/messages/${message.id}`)
    ).json()) as Stored
    expect(record.recipients.flatMap((r) => r.events).filter((e) => e.simulated)).toEqual([])
  })

  it('405 for other methods, with Allow: POST', async () => {
    const message = await sent()
    const response = await fetch(`${sandbox.url}/_sandbox/api/messages/${message.id}/events`)
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
  })
})
