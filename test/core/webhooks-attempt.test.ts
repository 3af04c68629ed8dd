import { describe, expect, it } from 'vitest'
import type { WebhookDelivery } from '../../src/core/webhook-types.js'
import {
  afterAutomaticAttempt,
  attemptDelivery,
  BODY_START,
} from '../../src/core/webhooks-attempt.js'
import type { Poster, PostResult } from '../../src/core/webhook-poster.js'

function delivery(): WebhookDelivery {
  return {
    id: 'whd_1',
    webhookId: 'evt_1',
    type: 'message.sent',
    url: 'http://127.0.0.1:9/hooks',
    project: 'p',
    messageId: 'msg_1',
    recipient: 'ada@example.com',
    status: 'pending',
    createdAt: '',
    nextAttemptAt: null,
    request: { headers: {}, body: '{"type":"message.sent"}' },
    attempts: [],
  }
}

/** A poster that answers every post with `result`, and records what it was given. */
function fakePoster(result: Omit<PostResult, 'durationMs'>) {
  const posts: Array<{ url: string; body: string; options: unknown }> = []
  const poster: Poster = {
    post(url, body, options) {
      posts.push({ url, body, options })
      return { done: Promise.resolve({ ...result, durationMs: 1.5 }), abort: () => {} }
    },
    close() {},
  }
  return { poster, posts }
}

const sign = (id: string) => ({ 'webhook-id': id, 'webhook-signature': `v1,sig-${id}` })

describe('one webhook attempt', () => {
  it('a 2xx: signed headers sent and kept, the attempt recorded, the delivery delivered', async () => {
    const { poster, posts } = fakePoster({ status: 204, body: '', error: null })
    const d = delivery()
    const inFlight = new Set<() => void>()
    const attempt = await attemptDelivery(d, {
      poster,
      sign,
      timeoutMs: 5000,
      manual: false,
      inFlight,
    })
    expect(posts).toEqual([
      {
        url: d.url,
        body: d.request.body,
        options: { headers: sign('evt_1'), timeoutMs: 5000, bodyLimit: BODY_START },
      },
    ])
    expect(d.request.headers).toEqual(sign('evt_1'))
    expect(attempt).toEqual({
      at: expect.any(String),
      statusCode: 204,
      error: null,
      durationMs: 1.5,
      responseBody: '',
    })
    expect(d.attempts).toEqual([attempt])
    expect(d.status).toBe('delivered')
    expect(inFlight.size).toBe(0)
  })

  it('an error or a non-2xx is recorded and leaves it pending; a manual one says so', async () => {
    const d = delivery()
    const inFlight = new Set<() => void>()
    const refused = fakePoster({ status: null, body: '', error: 'connection refused' }).poster
    await attemptDelivery(d, { poster: refused, sign, timeoutMs: 5000, manual: false, inFlight })
    const failing = fakePoster({ status: 500, body: 'no', error: null }).poster
    await attemptDelivery(d, { poster: failing, sign, timeoutMs: 5000, manual: true, inFlight })
    expect(d.status).toBe('pending')
    expect(d.attempts.map((a) => [a.statusCode, a.error, a.manual])).toEqual([
      [null, 'connection refused', undefined],
      [500, null, true],
    ])
  })
})

describe('the retry policy', () => {
  const failed = (manual = false) => ({
    at: '',
    statusCode: 500,
    error: null,
    durationMs: 1,
    responseBody: '',
    ...(manual ? { manual: true as const } : {}),
  })

  it('waits backoffMs, doubling, then gives up after `retries` retries (manual ones not counted)', () => {
    const d = delivery()
    const policy = { retries: 3, backoffMs: 1000 }
    const waits: Array<number | string> = []
    for (let i = 0; i < 4; i++) {
      d.attempts.push(failed())
      if (i === 1) d.attempts.push(failed(true))
      waits.push(afterAutomaticAttempt(d, policy, 0))
      if (i === 0) expect(d.nextAttemptAt).toBe(new Date(1000).toISOString())
    }
    expect(waits).toEqual([1000, 2000, 4000, 'settled'])
    expect(d.status).toBe('failed')
    expect(d.nextAttemptAt).toBeNull()
  })

  it('a delivered one is settled', () => {
    const d = { ...delivery(), status: 'delivered' as const }
    expect(afterAutomaticAttempt(d, { retries: 5, backoffMs: 1000 })).toBe('settled')
    expect(d.status).toBe('delivered')
  })
})
