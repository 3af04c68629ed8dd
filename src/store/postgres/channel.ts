import { randomUUID } from 'node:crypto'
import { createBatcher } from '../../lib/batch.js'
import { textArray } from './filter.js'
import { isRefused } from './guard.js'
import type { Sql } from 'postgres'
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
 * transaction into one. The client listens on a connection of its own and listens again after a
 * reconnection.
 *
 * @example
 * const channel = await openChannel(sql)
 * channel.subscribe((notice) => console.log(notice.type))
 * await channel.publish({ type: 'deleted', id: 'msg_1' })
 */
export async function openChannel(sql: Sql): Promise<StoreChannel & { close(): Promise<void> }> {
  const me = randomUUID()
  const listeners = new Set<(notice: Notice) => void>()
  let seq = 0
  // Notices published while a statement is under way go in the next one, together. The
  // statement answers one row, after every pg_notify ran: postgres.js 3.4.9 does not reset its
  // row counter when a statement fails after sending rows, and the next statement on that
  // connection got holes at the front of its rows (`SELECT 1` → `[null, null, {"a":1}]`; a send's
  // insert then failed, answered 500 though committed). A statement the database refuses is
  // tried again one notice at a time, so one bad notice fails alone.
  const notify = createBatcher(
    async (payloads: readonly string[]) => {
      await sql`
        SELECT count(pg_notify(${CHANNEL}, payload)) AS n FROM (
          SELECT payload FROM unnest(${textArray(payloads)}::text[]) WITH ORDINALITY AS n(payload, i)
          ORDER BY i) AS ordered`
      return payloads.map(() => undefined)
    },
    { eachAlone: isRefused },
  )

  const listening = await sql.listen(CHANNEL, (payload) => {
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
      await listening.unlisten()
    },
  }
}
