import { describe, expect, it } from 'vitest'
import type { WebhookDelivery } from '../../src/core/webhook-types.js'
import { createEndpointQueue, type LaneHooks } from '../../src/core/webhooks-lanes.js'

const URL = 'http://127.0.0.1:9/hooks'

function delivery(id: string, messageId: string): WebhookDelivery {
  return {
    id,
    webhookId: `evt_${id}`,
    type: 'message.sent',
    url: URL,
    project: 'p',
    messageId,
    recipient: 'ada@example.com',
    status: 'pending',
    createdAt: new Date().toISOString(),
    nextAttemptAt: null,
    request: { headers: {}, body: '{}' },
    attempts: [],
  }
}

/** Lets the attempts' `.then` callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/**
 * A queue whose attempts the test answers by hand: `started` lists the attempted ids in order,
 * `answer(id, ok)` settles the oldest open attempt of that id, `attempted(n)` waits for n.
 */
function harness(options: Partial<LaneHooks> = {}) {
  const started: string[] = []
  const settled: string[] = []
  const open = new Map<string, Array<() => void>>()
  const waiters = new Set<() => void>()
  const queue = createEndpointQueue(URL, {
    maxInFlight: 64,
    attempt(d) {
      started.push(d.id)
      for (const waiter of [...waiters]) waiter()
      return new Promise<void>((resolve) => {
        const list = open.get(d.id) ?? []
        list.push(resolve)
        open.set(d.id, list)
      })
    },
    decide: (d) => (d.status === 'delivered' ? 'settled' : 60_000),
    settled: (d) => void settled.push(d.id),
    ...options,
  })
  return {
    queue,
    started,
    settled,
    answer(d: WebhookDelivery, ok: boolean) {
      if (ok) d.status = 'delivered'
      d.attempts.push({
        at: '',
        statusCode: ok ? 200 : 500,
        error: null,
        durationMs: 0,
        responseBody: '',
      })
      open.get(d.id)!.shift()!()
    },
    attempted(n: number): Promise<void> {
      if (started.length >= n) return Promise.resolve()
      return new Promise((resolve) => {
        const check = () => {
          if (started.length < n) return
          waiters.delete(check)
          resolve()
        }
        waiters.add(check)
      })
    },
  }
}

describe('the lanes of one webhook URL', () => {
  it('an attempt that throws ends like a failed one: the lane goes on, nothing left unobserved', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const started: string[] = []
      const queue = createEndpointQueue(URL, {
        maxInFlight: 64,
        attempt: async (d) => {
          started.push(d.id)
          if (d.id === 'a1') throw new Error('the poster broke')
        },
        decide: () => 'settled',
        settled: () => {},
      })
      queue.push(delivery('a1', 'A'))
      queue.push(delivery('a2', 'A'))
      queue.pump()
      await expect.poll(() => started).toEqual(['a1', 'a2'])
      await settle()
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  it("one message's events go one after the other; different messages' side by side", async () => {
    const h = harness()
    const [a1, a2, b1] = [delivery('a1', 'A'), delivery('a2', 'A'), delivery('b1', 'B')]
    for (const d of [a1, a2, b1]) h.queue.push(d)
    h.queue.pump()
    expect(h.started).toEqual(['a1', 'b1'])
    h.answer(a1, true)
    await h.attempted(3)
    expect(h.started).toEqual(['a1', 'b1', 'a2'])
    expect(h.settled).toEqual(['a1'])
  })

  it('never more than maxInFlight attempts at once; the next starts as one ends', async () => {
    const h = harness({ maxInFlight: 2 })
    const ds = ['A', 'B', 'C'].map((m) => delivery(m.toLowerCase(), m))
    for (const d of ds) h.queue.push(d)
    h.queue.pump()
    expect(h.started).toEqual(['a', 'b'])
    h.answer(ds[1]!, true)
    await h.attempted(3)
    expect(h.started).toEqual(['a', 'b', 'c'])
  })

  it('a failed head is attempted again after the wait decide names, and its lane waits for it', async () => {
    const h = harness({ decide: (d) => (d.status === 'delivered' ? 'settled' : 5) })
    const [a1, a2] = [delivery('a1', 'A'), delivery('a2', 'A')]
    h.queue.push(a1)
    h.queue.push(a2)
    h.queue.pump()
    h.answer(a1, false)
    await h.attempted(2)
    expect(h.started).toEqual(['a1', 'a1'])
    h.answer(a1, true)
    await h.attempted(3)
    expect(h.started).toEqual(['a1', 'a1', 'a2'])
  })

  it('a head given up on (decide: settled) leaves its lane like a delivered one', async () => {
    const h = harness({ decide: () => 'settled' })
    const [a1, a2] = [delivery('a1', 'A'), delivery('a2', 'A')]
    h.queue.push(a1)
    h.queue.push(a2)
    h.queue.pump()
    h.answer(a1, false)
    await h.attempted(2)
    expect(h.settled).toEqual(['a1'])
  })

  it('delivered(): a head waiting for its retry moves on at once; anything else is false', async () => {
    const h = harness()
    const [a1, a2] = [delivery('a1', 'A'), delivery('a2', 'A')]
    h.queue.push(a1)
    h.queue.push(a2)
    expect(h.queue.delivered(a2)).toBe(false)
    h.queue.pump()
    // In flight: not waiting for a retry.
    expect(h.queue.delivered(a1)).toBe(false)
    h.answer(a1, false)
    await settle()
    // Its 60 s retry wait is ended by a manual attempt that got through.
    a1.status = 'delivered'
    expect(h.queue.delivered(a1)).toBe(true)
    expect(h.settled).toEqual(['a1'])
    expect(h.started).toEqual(['a1', 'a2'])
  })

  it('a head a manual retry got through before its turn is skipped, not sent again', async () => {
    const h = harness({ maxInFlight: 1 })
    const [a, b] = [delivery('a', 'A'), delivery('b', 'B')]
    h.queue.push(a)
    h.queue.push(b)
    h.queue.pump()
    b.status = 'delivered'
    h.answer(a, true)
    await settle()
    expect(h.started).toEqual(['a'])
    expect(h.settled).toEqual(['a', 'b'])
  })

  it('close() stops retries and later pumps: an attempt that ends after it schedules nothing', async () => {
    let decided = 0
    const h = harness({ decide: () => (decided++, 1) })
    const a = delivery('a', 'A')
    h.queue.push(a)
    h.queue.pump()
    h.queue.close()
    h.answer(a, false)
    await settle()
    expect(decided).toBe(0)
    h.queue.push(delivery('b', 'B'))
    h.queue.pump()
    expect(h.started).toEqual(['a'])
  })
})
