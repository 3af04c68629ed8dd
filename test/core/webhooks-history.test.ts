import { describe, expect, it } from 'vitest'
import type { WebhookDelivery } from '../../src/core/webhook-types.js'
import { createHistory } from '../../src/core/webhooks-history.js'

function delivery(n: number, over: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: `whd_${n}`,
    webhookId: `evt_${n}`,
    type: 'message.sent',
    url: 'http://127.0.0.1:9/hooks',
    project: 'p',
    messageId: `msg_${n % 3}`,
    recipient: 'ada@example.com',
    status: 'delivered',
    createdAt: '',
    nextAttemptAt: null,
    request: { headers: {}, body: '{}' },
    attempts: [{ at: '', statusCode: 200, error: null, durationMs: 1, responseBody: '' }],
    ...over,
  }
}

describe('the webhook history', () => {
  it('lists newest first, filtered, total before the limit', () => {
    const history = createHistory()
    for (let n = 0; n < 9; n++)
      history.add(delivery(n, n === 4 ? { status: 'failed', type: 'message.bounced' } : {}))
    expect(history.list().deliveries.map((d) => d.id)).toEqual(
      [8, 7, 6, 5, 4, 3, 2, 1, 0].map((n) => `whd_${n}`),
    )
    const ofOne = history.list({ message: 'msg_1', limit: 2 })
    expect(ofOne.total).toBe(3)
    expect(ofOne.deliveries.map((d) => d.id)).toEqual(['whd_7', 'whd_4'])
    expect(history.list({ status: 'failed' }).deliveries.map((d) => d.id)).toEqual(['whd_4'])
    expect(history.list({ type: 'message.bounced' }).total).toBe(1)
    expect(history.list({ url: 'http://elsewhere/' }).total).toBe(0)
    expect(history.get('whd_3')?.webhookId).toBe('evt_3')
    expect(history.get('whd_nope')).toBeUndefined()
  })

  it('keeps the newest `limit` settled attempts (trimmed in batches of 100); pending ones always', () => {
    const history = createHistory(10)
    const pending = delivery(0, { status: 'pending' })
    history.add(pending)
    for (let n = 1; n <= 110; n++) {
      history.add(delivery(n))
      history.settled(1)
    }
    // 110 settled attempts: not yet past limit + batch.
    expect(history.list().total).toBe(111)
    history.add(delivery(111))
    history.settled(1)
    const kept = history.list().deliveries.map((d) => d.id)
    expect(kept).toHaveLength(11)
    expect(kept.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `whd_${111 - i}`))
    expect(history.get('whd_0')).toBe(pending)
  })
})
