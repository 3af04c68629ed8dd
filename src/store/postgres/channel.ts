import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { createBatcher } from '../../lib/batch.js'
import { type Db, prepared, sql } from './client.js'
import { textArray } from './filter.js'
import { isRefused } from './guard.js'
import type { Notice, StoreChannel } from '../types.js'

/** The one channel every sendbox on a database listens on. */
const CHANNEL = 'sendbox'

/**
 * The most a notice's payload may take, in UTF-8 bytes: PostgreSQL refuses 8,000 or more
 * ("payload string too long"). What crosses is kept far below it (core/shared-events.ts sends
 * ids and reads the rest back); a payload past it is refused here, alone, and never reaches the
 * statement it would have failed for every notice sharing it.
 */
export const NOTICE_BYTES = 7999

/**
 * The processes' channel over LISTEN/NOTIFY. Each process marks its notices with its own id and
 * skips them when they come back. Notices are sent in batches, one statement each (pg_notify over
 * an array, delivered in the array's order): one at a time in order, without a round trip per
 * notice, which at a thousand sends a second (four notices each) would take most of a second a
 * second. Each carries a sequence number, since PostgreSQL folds identical notices of one
 * transaction into one. Notices are heard on a connection of its own, not the pool's (listen).
 *
 * @example
 * const channel = await openChannel(pool, 'postgres://sendbox@db:5432/sendbox')
 * channel.subscribe((notice) => console.log(notice.type))
 * await channel.publish({ type: 'deleted', id: 'msg_1' })
 */
export async function openChannel(
  db: Db,
  url: string,
): Promise<StoreChannel & { close(): Promise<void> }> {
  const me = randomUUID()
  const listeners = new Set<(notice: Notice) => void>()
  let seq = 0
  // Notices published while a statement is under way go in the next one, together. The
  // statement answers one row, after every pg_notify ran (a statement that failed after sending
  // rows once left postgres.js 3.4.9's next result with holes: test/pg/client.test.ts). A
  // statement the database refuses is tried again one notice at a time, so one bad notice fails
  // alone.
  const notify = createBatcher(
    async (payloads: readonly string[]) => {
      await db.query(
        prepared(sql`
        SELECT count(pg_notify(${CHANNEL}, payload)) AS n FROM (
          SELECT payload FROM unnest(${textArray(payloads)}::text[]) WITH ORDINALITY AS n(payload, i)
          ORDER BY i) AS ordered`),
      )
      return payloads.map(() => undefined)
    },
    { eachAlone: isRefused },
  )

  const listening = await listen(url, (payload) => {
    let parsed: (Notice & { from?: string; seq?: number }) | null = null
    try {
      parsed = JSON.parse(payload)
    } catch {
      return // not one of ours
    }
    if (!parsed || parsed.from === me || typeof parsed.type !== 'string') return
    const { from: _from, seq: _seq, ...notice } = parsed
    for (const listener of listeners) listener(notice as Notice)
  })

  return {
    publish(notice) {
      const payload = JSON.stringify({ ...notice, from: me, seq: ++seq })
      const bytes = Buffer.byteLength(payload)
      if (bytes > NOTICE_BYTES)
        return Promise.reject(
          new Error(`A ${notice.type} notice of ${bytes} bytes is over ${NOTICE_BYTES}: not sent.`),
        )
      return notify.call(payload)
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    // The notices already published go out first: the store ends the client right after, and
    // a batch still queued then failed with CONNECTION_ENDED (5 logged per bench:team run).
    async close() {
      await notify.idle()
      await listening.close()
    },
  }
}

/** The wait before listening again, doubling from 50 ms up to a second while connects fail. */
const relisten = (failures: number) => Math.min(50 * 2 ** failures, 1000)

/**
 * Listens on CHANNEL on a connection of its own (a pooled one is handed to other queries, and
 * LISTEN belongs to a session), and listens again on a new one whenever it is lost (a restart,
 * pg_terminate_backend), until `close`. Notices sent while it is away are lost, as they would
 * be to any listener; the work they announce is found by the next poll (work.ts). The first
 * connect must succeed: it is part of opening the store.
 *
 * @example
 * const listening = await listen(url, (payload) => console.log(payload))
 * await listening.close()
 */
async function listen(url: string, heard: (payload: string) => void) {
  let client: pg.Client | null = null
  let closed = false
  let failures = 0
  let timer: NodeJS.Timeout | undefined
  const again = () => {
    if (closed || timer) return
    timer = setTimeout(() => {
      timer = undefined
      connect().then(
        () => {
          failures = 0
        },
        () => {
          failures++
          again()
        },
      )
    }, relisten(failures))
  }
  const connect = async () => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
    // A lost connection emits 'error' then 'end' (or 'end' alone): both mean listen again.
    next.on('error', () => {})
    next.on('end', () => {
      if (client === next) again()
    })
    next.on('notification', (message) => heard(message.payload ?? ''))
    try {
      await next.connect()
      await next.query(`LISTEN ${CHANNEL}`)
    } catch (error) {
      await next.end().catch(() => {})
      throw error
    }
    if (closed) return void (await next.end())
    client = next
  }
  await connect()
  return {
    async close() {
      closed = true
      clearTimeout(timer)
      await client?.end().catch(() => {})
    },
  }
}
