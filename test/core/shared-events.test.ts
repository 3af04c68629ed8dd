import { describe, expect, it } from 'vitest'
import { createEventBus, type SandboxEvent } from '../../src/core/events.js'
import { shareEvents } from '../../src/core/shared-events.js'
import type { MessageRecord, MessageStore, Notice } from '../../src/store/types.js'

/**
 * A store shaped like one several processes share: its channel is in this test's hands (`tell`
 * is another process's notice arriving), and each `get` waits until the test lets it answer.
 */
function sharedStore() {
  const hearers = new Set<(notice: Notice) => void>()
  const reads: { id: string; answer(): void }[] = []
  let readsChanged: () => void = () => {}
  const log = {
    channel: {
      publish: async () => {},
      subscribe(listener: (notice: Notice) => void) {
        hearers.add(listener)
        return () => hearers.delete(listener)
      },
    },
    get: (id: string) =>
      new Promise<MessageRecord>((resolve) => {
        reads.push({ id, answer: () => resolve({ id } as MessageRecord) })
        readsChanged()
      }),
  } as unknown as MessageStore
  return {
    log,
    reads,
    tell: (notice: Notice) => {
      for (const hear of hearers) hear(notice)
    },
    /** Resolves once `n` reads were asked for in all. */
    readsAsked: (n: number) =>
      new Promise<void>((resolve) => {
        readsChanged = () => {
          if (reads.length >= n) resolve()
        }
        readsChanged()
      }),
  }
}

const message = (id: string): Notice => ({ type: 'message', id })
const idOf = (event: SandboxEvent) => (event.type === 'message' ? event.record.id : event.type)

describe('events heard from the other processes of a shared store', () => {
  it('are not read back while nothing here hears them (only this process’s own listeners)', async () => {
    const store = sharedStore()
    const events = createEventBus()
    const errors: unknown[] = []
    const stop = shareEvents({ log: store.log, events }, (error) => errors.push(error))
    const own: SandboxEvent[] = []
    events.subscribe((event) => own.push(event), { remote: false })
    store.tell(message('msg_1'))
    // A read, had there been one, is asked for within this turn of the event loop.
    await new Promise(setImmediate)
    expect(store.reads).toHaveLength(0)
    // Someone listens now (a wait, an event stream): the next notices are read and told.
    const heard: string[] = []
    events.subscribe((event) => heard.push(idOf(event)))
    store.tell(message('msg_2'))
    await store.readsAsked(1)
    store.reads[0]!.answer()
    await expect.poll(() => heard).toEqual(['msg_2'])
    expect(own).toEqual([])
    expect(errors).toEqual([])
    stop()
  })

  it('a backlog is read side by side and told in the order heard', async () => {
    const store = sharedStore()
    const events = createEventBus()
    const stop = shareEvents({ log: store.log, events }, () => {})
    const heard: string[] = []
    events.subscribe((event) => heard.push(idOf(event)))
    store.tell(message('msg_1'))
    await store.readsAsked(1)
    for (const id of ['msg_2', 'msg_3', 'msg_4']) store.tell(message(id))
    store.reads[0]!.answer()
    // The three that waited behind the first are asked for together, not one after another.
    await store.readsAsked(4)
    expect(store.reads.map((r) => r.id)).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4'])
    // Answered out of order, they are still told in the order they were heard.
    for (const i of [3, 1, 2]) store.reads[i]!.answer()
    await expect.poll(() => heard).toEqual(['msg_1', 'msg_2', 'msg_3', 'msg_4'])
    stop()
  })

  it('once stopped, a read still under way tells nothing', async () => {
    const store = sharedStore()
    const events = createEventBus()
    const errors: unknown[] = []
    const stop = shareEvents({ log: store.log, events }, (error) => errors.push(error))
    const heard: string[] = []
    events.subscribe((event) => heard.push(idOf(event)))
    store.tell(message('msg_1'))
    await store.readsAsked(1)
    stop()
    // The read under way when the process stopped answers: nothing more is told.
    store.reads[0]!.answer()
    await new Promise(setImmediate)
    expect(heard).toEqual([])
    expect(errors).toEqual([])
  })
})

describe('events of any size between processes', () => {
  it('cross as small notices and are told whole on the other side: a 9 KB link, a long reply, 45 long suppressions', async () => {
    const url = `https://acme.test/?q=${'a'.repeat(9 * 1024)}`
    const release = {
      to: ['a@example.com'],
      at: 't',
      rejected: [],
      response: `250 ${'x'.repeat(9000)}`,
    }
    const record = {
      id: 'msg_1',
      project: 'acme',
      recipients: [
        {
          address: 'a@example.com',
          status: 'delivered',
          events: [
            { type: 'sent', at: 't' },
            { type: 'clicked', at: 't', url },
          ],
        },
      ],
      releases: [release],
    } as unknown as MessageRecord
    const sent: string[] = []
    const hearers = new Set<(notice: Notice) => void>()
    const channel = {
      publish: async (notice: Notice) => {
        const payload = JSON.stringify(notice)
        sent.push(payload)
        for (const hear of hearers) hear(JSON.parse(payload))
      },
      subscribe(listener: (notice: Notice) => void) {
        hearers.add(listener)
        return () => hearers.delete(listener)
      },
    }
    const here = createEventBus()
    const there = createEventBus()
    const errors: unknown[] = []
    const stops = [
      shareEvents({ log: { channel } as unknown as MessageStore, events: here }, (e) =>
        errors.push(e),
      ),
      shareEvents(
        {
          log: { channel, get: async () => structuredClone(record) } as unknown as MessageStore,
          events: there,
        },
        (e) => errors.push(e),
      ),
    ]
    const heard: SandboxEvent[] = []
    there.subscribe((event) => heard.push(event))
    const suppressions = Array.from({ length: 45 }, (_, i) => ({
      address: `bounce+${i}@${'x'.repeat(80)}.example.com`,
      project: 'acme',
      reason: 'bounced' as const,
      createdAt: 't',
      messageId: 'msg_1',
    }))
    here.emit({ type: 'status', record, recipient: 0, event: { type: 'clicked', at: 't', url } })
    here.emit({ type: 'release', record, release })
    here.emit({ type: 'suppression', change: 'added', suppressions })
    await expect.poll(() => heard.length).toBeGreaterThanOrEqual(4)
    for (const payload of sent) expect(Buffer.byteLength(payload)).toBeLessThan(8000)
    const told = heard.flatMap((e) => (e.type === 'suppression' ? e.suppressions : []))
    expect(told).toEqual(suppressions)
    expect(heard.find((e) => e.type === 'status')).toMatchObject({
      event: { type: 'clicked', url },
    })
    expect(heard.find((e) => e.type === 'release')).toMatchObject({ release })
    expect(errors).toEqual([])
    for (const stop of stops) stop()
  })

  it("a clear's counts per project cross when they fit; a clear of thousands of projects crosses without them", async () => {
    const sent: string[] = []
    const hearers = new Set<(notice: Notice) => void>()
    const channel = {
      publish: async (notice: Notice) => {
        const payload = JSON.stringify(notice)
        sent.push(payload)
        for (const hear of hearers) hear(JSON.parse(payload))
      },
      subscribe(listener: (notice: Notice) => void) {
        hearers.add(listener)
        return () => hearers.delete(listener)
      },
    }
    const here = createEventBus()
    const there = createEventBus()
    const stops = [here, there].map((events) =>
      shareEvents({ log: { channel } as unknown as MessageStore, events }, () => {}),
    )
    const heard: SandboxEvent[] = []
    there.subscribe((event) => heard.push(event))
    here.emit({ type: 'cleared', count: 3, byProject: { acme: 1, billing: 2 } })
    // Without a projects file each token is a project (its hash): 2,000 of them.
    const tokens = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [i.toString(16).padStart(8, '0'), 1]),
    )
    here.emit({ type: 'cleared', count: 2000, byProject: tokens })
    await expect.poll(() => heard.length).toBe(2)
    expect(heard[0]).toMatchObject({ count: 3, byProject: { acme: 1, billing: 2 } })
    expect(heard[1]).toMatchObject({ count: 2000 })
    expect(heard[1]).not.toHaveProperty('byProject')
    for (const payload of sent) expect(Buffer.byteLength(payload)).toBeLessThan(8000)
    for (const stop of stops) stop()
  })
})
