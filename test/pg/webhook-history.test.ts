import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openPostgresStore } from '../../src/store/postgres/index.js'
import type { MessageStore, StoredWebhook } from '../../src/store/types.js'
import { sql } from '../../src/store/postgres/client.js'
import { connectTo, describePg, freshDatabase } from '../helpers/postgres.js'

/**
 * The history of webhook deliveries on PostgreSQL stays bounded without the processes waiting
 * on each other (docs/team.md). Every process used to trim it after each delivery it added, in
 * the same transaction, deleting the same oldest rows as every other: each waited for the
 * others' row locks (two processes with one --webhook made 136 sends/s, one on the log 626).
 */

const delivery = (n: number, status = 'delivered'): StoredWebhook => ({
  id: `wh_${String(n).padStart(6, '0')}`,
  webhookId: `msg_${n}_message.sent`,
  url: 'http://127.0.0.1:9/hook',
  messageId: `msg_${n}`,
  project: 'default',
  type: 'message.sent',
  status,
  attempts: [],
})
const work = (d: StoredWebhook) => ({ kind: 'webhook', key: d.id, dueAt: Date.now(), payload: {} })

describePg('the webhook history on PostgreSQL', () => {
  let url: string
  let store: MessageStore
  let tx: pg.Client
  let client: pg.Client
  beforeAll(async () => {
    url = await freshDatabase()
    store = await openPostgresStore({ url, maxMessages: 5000 })
    tx = await connectTo(url)
    client = await connectTo(url)
  })
  afterAll(async () => {
    await store?.close()
    await tx?.end()
    await client?.end()
  })

  it('adds go on while another process trims, and the settled ones stay about a thousand', async () => {
    // 1,200 settled deliveries, as if added long ago.
    for (let n = 0; n < 1200; n += 200)
      await store.webhooks!.add(
        Array.from({ length: 200 }, (_, i) => delivery(n + i)),
        work,
      )
    // Another process's trim under way: it holds the trim's lock and the oldest row, for 20 s
    // at most (an add that waits for it waits that long).
    let gone = false
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    const timer = setTimeout(() => {
      gone = true
      release()
    }, 20_000)
    let holding = () => {}
    const held = new Promise<void>((resolve) => (holding = resolve))
    const other = (async () => {
      await tx.query('BEGIN')
      await tx.query(sql`SELECT pg_advisory_xact_lock(${0x5e9db0c6})`)
      await tx.query(`
        DELETE FROM sendbox_webhooks
        WHERE seq = (SELECT min(seq) FROM sendbox_webhooks WHERE status <> 'pending')`)
      holding()
      await released
      await tx.query('ROLLBACK')
    })()
    await held
    // More than one process's turn to trim: it finds the trim under way and leaves it.
    for (let n = 1200; n < 1350; n++) await store.webhooks!.add([delivery(n)], work)
    // All done while the other process still held its rows: none of the adds waited for them.
    expect(gone).toBe(false)
    release()
    clearTimeout(timer)
    await other
    for (let n = 1350; n < 1700; n++) await store.webhooks!.add([delivery(n)], work)
    const { settled } = (
      await client.query<{ settled: number }>(
        "SELECT count(*)::int AS settled FROM sendbox_webhooks WHERE status <> 'pending'",
      )
    ).rows[0]!
    expect(settled).toBeGreaterThanOrEqual(1000)
    expect(settled).toBeLessThanOrEqual(1100)
    // Pending ones are never trimmed.
    await store.webhooks!.add([delivery(9999, 'pending')], work)
    for (let n = 1700; n < 1900; n++) await store.webhooks!.add([delivery(n)], work)
    expect(await store.webhooks!.pending()).toBe(1)
  }, 60_000)
})
