import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openPostgresStore } from '../../src/store/postgres/index.js'
import type { MessageStore, StoredWebhook } from '../../src/store/types.js'
import { connectTo, describePg, freshDatabase } from '../helpers/postgres.js'

/**
 * An automatic webhook attempt's outcome on PostgreSQL: the delivery's new state and its row of
 * work (gone, or due again) in one statement, shared by the attempts that settle at once. A
 * member of such a batch that the database refuses fails alone: the others sharing its
 * statement are written all the same.
 */

const delivery = (n: number): StoredWebhook => ({
  id: `whd_settle_${n}`,
  webhookId: `evt_settle_${n}`,
  url: 'http://127.0.0.1:9/hook',
  messageId: `msg_settle_${n}`,
  project: 'default',
  type: 'message.sent',
  status: 'pending',
  attempts: [],
})
const firstAttempt = (d: StoredWebhook) => ({
  kind: 'webhook',
  key: d.id,
  lane: `${d.messageId} ${d.url}`,
  dueAt: Date.now(),
  payload: {},
})

describePg('settling webhook attempts on PostgreSQL', () => {
  let store: MessageStore
  let client: pg.Client
  beforeAll(async () => {
    const url = await freshDatabase()
    store = await openPostgresStore({ url, maxMessages: 5000 })
    client = await connectTo(url)
  })
  afterAll(async () => {
    await store?.close()
    await client?.end()
  })

  const workOf = async (key: string) =>
    (
      await client.query<{ owner: string | null; attempts: number; due: string }>(
        `SELECT owner, attempts, (extract(epoch FROM due_at) * 1000)::text AS due
         FROM sendbox_work WHERE kind = 'webhook' AND key = $1`,
        [key],
      )
    ).rows[0]

  it('writes each delivery and finishes or puts back its row; a refused member fails alone', async () => {
    const ds = [1, 2, 3, 4].map(delivery)
    await store.webhooks!.add(ds, firstAttempt)
    const { items } = await store.work!.claim(16, 60_000)
    expect(items.map((i) => i.key).sort()).toEqual(ds.map((d) => d.id))
    const item = (d: StoredWebhook) => items.find((i) => i.key === d.id)!
    const retryAt = Date.now() + 60_000
    // Made in one tick: the first runs alone, the three others share the next statement, which
    // the database refuses for the NUL in the third's status (text holds none).
    const settled = await Promise.allSettled([
      store.webhooks!.settle({ ...ds[0]!, status: 'delivered' }, item(ds[0]!), null),
      store.webhooks!.settle({ ...ds[1]!, status: 'failed' }, item(ds[1]!), null),
      store.webhooks!.settle({ ...ds[2]!, status: 'bad\u0000' }, item(ds[2]!), null),
      store.webhooks!.settle({ ...ds[3]!, status: 'pending', tries: 1 }, item(ds[3]!), retryAt),
    ])
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ])
    expect((await store.webhooks!.get(ds[0]!.id))?.status).toBe('delivered')
    expect((await store.webhooks!.get(ds[1]!.id))?.status).toBe('failed')
    expect(await workOf(ds[0]!.id)).toBeUndefined()
    expect(await workOf(ds[1]!.id)).toBeUndefined()
    // The refused one is as the claim left it: still pending, its row still this process's.
    expect((await store.webhooks!.get(ds[2]!.id))?.status).toBe('pending')
    expect((await workOf(ds[2]!.id))?.owner).not.toBeNull()
    // The retry: written, and its row back in the queue, unowned, due at retryAt, one attempt more.
    expect(await store.webhooks!.get(ds[3]!.id)).toMatchObject({ status: 'pending', tries: 1 })
    const again = await workOf(ds[3]!.id)
    expect(again).toMatchObject({ owner: null, attempts: 1 })
    expect(Math.abs(Number(again!.due) - retryAt)).toBeLessThan(1)
  })

  it('leases a first attempt to the process that adds it only when nothing comes before it in its lane', async () => {
    const leased = (d: StoredWebhook) => ({ ...firstAttempt(d), leaseMs: 60_000 })
    const a = { ...delivery(10), messageId: 'msg_lane_a' }
    const a2 = { ...delivery(11), messageId: 'msg_lane_a' }
    const b = { ...delivery(12), messageId: 'msg_lane_b' }
    // Two of one lane in one statement: the first is this process's, the second waits its turn.
    const first = await store.webhooks!.add([a, a2], leased)
    expect(first.added.map((d) => d.id)).toEqual([a.id, a2.id])
    expect(first.leased.map((d) => d.id)).toEqual([a.id])
    expect((await workOf(a2.id))?.owner).toBeNull()
    // A later one of a lane that has a row already is left to a claim; one of a lane of its own is leased.
    const a3 = { ...delivery(13), messageId: 'msg_lane_a' }
    const later = await store.webhooks!.add([a3, b], leased)
    expect(later.leased.map((d) => d.id)).toEqual([b.id])
    expect((await workOf(a3.id))?.owner).toBeNull()
    expect((await workOf(b.id))?.owner).not.toBeNull()
    // Added again (the same event for the same URL): nothing added, nothing leased.
    expect(await store.webhooks!.add([b], leased)).toEqual({ added: [], leased: [] })
  })
})
