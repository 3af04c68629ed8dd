import { randomUUID } from 'node:crypto'
import { createBatcher } from '../../lib/batch.js'
import { textArray } from './filter.js'
import type { Sql } from 'postgres'
import type { Notice, StoreChannel } from '../types.js'

/** The one channel every sendbox on a database listens on. */
const CHANNEL = 'sendbox'

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
  // Notices published while a statement is under way go in the next one, together.
  const notify = createBatcher(async (payloads: readonly string[]) => {
    await sql`SELECT pg_notify(${CHANNEL}, payload) FROM unnest(${textArray(payloads)}::text[]) WITH ORDINALITY AS n(payload, i) ORDER BY i`
    return payloads.map(() => undefined)
  })

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
    publish: (notice) => notify.call(JSON.stringify({ ...notice, from: me, seq: ++seq })),
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    close: () => listening.unlisten(),
  }
}
