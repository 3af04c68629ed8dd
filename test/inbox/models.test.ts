import { describe, expect, it } from 'vitest'
import type { MessageRecord, WebhookDelivery } from '../../src/inbox/page/api.js'
import { applyStatus, clickableLinks, simulations } from '../../src/inbox/page/delivery-model.js'
import { formatHash, parseHash } from '../../src/inbox/page/router.js'
import {
  attemptsSummary,
  deliveryState,
  filterDeliveries,
  readFilters,
} from '../../src/inbox/page/webhooks-model.js'

/** The inbox's plain models, without a browser: what a row, a button or a URL says. */

const delivery = (over: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: 'whd_1',
  webhookId: 'evt_1',
  type: 'message.sent',
  url: 'http://127.0.0.1:9/hooks',
  project: 'p',
  messageId: 'msg_01AAA',
  recipient: 'ada@example.com',
  status: 'delivered',
  createdAt: '2026-11-21T10:00:00.000Z',
  nextAttemptAt: null,
  request: { headers: {}, body: '{}' },
  attempts: [],
  ...over,
})
const attempt = (statusCode: number | null) => ({
  at: '2026-11-21T10:00:00.000Z',
  statusCode,
  error: statusCode === null ? 'refused' : null,
  durationMs: 3,
  responseBody: '',
})

describe('webhook deliveries, as the table shows them', () => {
  it('a failed attempt stays visible after a retry succeeded', () => {
    expect(attemptsSummary({ attempts: [attempt(500), attempt(200)] })).toEqual({
      count: 2,
      failed: 1,
      text: '2 (1 failed)',
    })
    expect(attemptsSummary({ attempts: [attempt(200)] }).text).toBe('1')
    // All failed: the status says it; the count alone.
    expect(attemptsSummary({ attempts: [attempt(null), attempt(503)] }).text).toBe('2')
  })

  it('a pending delivery that already failed once is retrying', () => {
    expect(deliveryState({ status: 'pending', attempts: [] })).toBe('pending')
    expect(deliveryState({ status: 'pending', attempts: [attempt(500)] })).toBe('retrying')
    expect(deliveryState({ status: 'failed', attempts: [attempt(500)] })).toBe('failed')
  })

  it('filters by state, event and the start of a message id; unknown values read as none', () => {
    const list = [
      delivery({ id: 'a', status: 'failed', attempts: [attempt(500)] }),
      delivery({ id: 'b', type: 'message.delivered', messageId: 'msg_01BBB' }),
      delivery({ id: 'c', status: 'pending', attempts: [attempt(500)] }),
    ]
    const ids = (query: string) =>
      filterDeliveries(list, readFilters(new URLSearchParams(query))).map((d) => d.id)
    expect(ids('')).toEqual(['a', 'b', 'c'])
    expect(ids('status=failed')).toEqual(['a'])
    expect(ids('status=retrying')).toEqual(['c'])
    expect(ids('event=message.delivered')).toEqual(['b'])
    expect(ids('message=MSG_01B')).toEqual(['b'])
    expect(ids('status=nonsense')).toEqual(['a', 'b', 'c'])
  })
})

describe('delivery, as the Delivery tab offers it', () => {
  it('offers no simulated event after a hard bounce or for a suppressed address', () => {
    expect(simulations({ status: 'bounced' })).toEqual([])
    expect(simulations({ status: 'suppressed' })).toEqual([])
    expect(simulations({ status: 'delivered' }).map((s) => s.type)).toEqual([
      'delivered',
      'opened',
      'clicked',
      'bounced',
      'complained',
    ])
    expect(simulations({ status: 'sent' })).toHaveLength(5)
  })

  it('clicks only real links, once each', () => {
    expect(
      clickableLinks({
        links: [
          { href: 'https://x.test/a', text: 'A' },
          { href: 'https://x.test/a', text: 'A again' },
          { href: '#top', text: 'Top' },
          { href: 'javascript:alert(1)', text: 'No' },
        ],
      }),
    ).toEqual(['https://x.test/a'])
  })

  it('a status event is applied once, as a new record', () => {
    const record = {
      id: 'msg_1',
      status: 'sent',
      recipients: [{ address: 'ada@example.com', status: 'sent', events: [] }],
    } as unknown as MessageRecord
    const change = {
      id: 'msg_1',
      status: 'delivered' as const,
      recipient: 'ada@example.com',
      recipientIndex: 0,
      recipientStatus: 'delivered' as const,
      event: { type: 'delivered' as const, at: '2026-11-21T10:00:01.000Z' },
    }
    const after = applyStatus(record, change)
    expect(after).not.toBe(record)
    expect(after.status).toBe('delivered')
    expect(applyStatus(after, change).recipients[0]!.events).toHaveLength(1)
  })
})

describe('hash routes', () => {
  it.each([
    ['', { view: 'messages', name: null, query: '' }],
    ['#/', { view: 'messages', name: null, query: '' }],
    ['#/?q=to%3Aada', { view: 'messages', name: null, query: 'q=to%3Aada' }],
    ['#/messages/msg_1?tab=text', { view: 'messages', name: 'msg_1', query: 'tab=text' }],
    ['#/templates/a%20b', { view: 'templates', name: 'a b', query: '' }],
    [
      '#/webhooks?status=failed&open=whd_1',
      { view: 'webhooks', name: null, query: 'status=failed&open=whd_1' },
    ],
    ['#/changes', { view: 'changes', name: null, query: '' }],
  ])('%j', (hash, expected) => {
    const route = parseHash(hash)
    expect({ view: route.view, name: route.name, query: route.params.toString() }).toEqual(expected)
    expect(parseHash(formatHash(route))).toEqual(route)
  })

  it('a name that is not valid percent-encoding is no name', () => {
    expect(parseHash('#/messages/%E0%A4%A').name).toBeNull()
  })
})
