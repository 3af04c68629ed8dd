import { randomUUID } from 'node:crypto'
import { createBatcher } from '../../lib/batch.js'
import { textArray } from './filter.js'
import { asJson } from './text.js'
import { type Db, prepared, rows, sql, valuesOf } from './client.js'
import type { ClaimedWork, Notice, StoreChannel, WorkItem, WorkQueue } from '../types.js'

type Row = {
  kind: string
  key: string
  lane: string | null
  due_ms: string
  attempts: number
  payload: ClaimedWork['payload']
}

/** The notice that tells the other processes there is new work. */
const WAKE: Notice = { type: 'work' }

/**
 * Rows for `INSERT … ${valuesOf(rows)}`: one per item; an item with `leaseMs` is `me`'s already (its
 * lease timed by this process's clock, as `dueAt` is).
 */
export function workRows(items: readonly WorkItem[], me: string | null = null) {
  return items.map((item) => ({
    kind: item.kind,
    key: item.key,
    lane: item.lane ?? null,
    due_at: new Date(item.dueAt),
    owner: item.leaseMs ? me : null,
    lease_until: item.leaseMs ? new Date(Date.now() + item.leaseMs) : null,
    payload: asJson(item.payload),
  }))
}

/**
 * Inserts work in a transaction (or a statement) under way; items already there stay.
 *
 * @example
 * await insertWork(tx, [{ kind: 'delivery', key: 'msg_1', dueAt: Date.now(), payload: {} }])
 */
export async function insertWork(db: Db, items: readonly WorkItem[]): Promise<void> {
  if (items.length === 0) return
  await db.query(sql`
    INSERT INTO sendbox_work ${valuesOf(workRows(items))}
    ON CONFLICT (kind, key) DO NOTHING`)
}

/**
 * Leases up to `limit` due rows to `me` (see createWorkQueue), and says when the next falls due.
 * One statement: the rows claimed, then a row of their own (`next`, its other columns null) for
 * the earliest row not claimable now, read from the snapshot the statement began with (the rows
 * it claims were due then, so they count for neither). The claim and that read were two
 * statements, two round trips per claim (bench:team:cost).
 *
 * @example
 * const { items, next } = await claimWork(pool, 'a1b2…', 16, 10_000)
 */
async function claimWork(
  db: Db,
  me: string,
  limit: number,
  leaseMs: number,
): Promise<{ items: ClaimedWork[]; next: number | null }> {
  const found = await rows<Row & { next: string | null }>(
    db,
    prepared(sql`
    WITH picked AS (
      SELECT seq FROM sendbox_work w
      WHERE due_at <= now() AND (lease_until IS NULL OR lease_until < now())
        AND (lane IS NULL OR NOT EXISTS (
          SELECT 1 FROM sendbox_work e WHERE e.lane = w.lane AND e.seq < w.seq))
      ORDER BY due_at, seq LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE sendbox_work SET owner = ${me},
        lease_until = now() + ${leaseMs}::float8 * interval '1 millisecond'
      FROM picked WHERE sendbox_work.seq = picked.seq
      RETURNING kind, key, lane, (extract(epoch FROM due_at) * 1000)::text AS due_ms, attempts,
        payload)
    SELECT kind, key, lane, due_ms, attempts, payload, NULL::text AS next FROM claimed
    UNION ALL
    SELECT NULL, NULL, NULL, NULL, NULL, NULL, (extract(epoch FROM least(
      min(due_at) FILTER (WHERE lease_until IS NULL AND due_at > now()),
      min(lease_until) FILTER (WHERE lease_until > now()))) * 1000)::text
    FROM sendbox_work`),
  )
  const claimed = found.filter((row) => row.kind !== null)
  const next = found.find((row) => row.kind === null)?.next ?? null
  return {
    items: claimed.map((row) => ({
      kind: row.kind,
      key: row.key,
      dueAt: Number(row.due_ms),
      attempts: row.attempts,
      payload: row.payload,
      ...(row.lane === null ? {} : { lane: row.lane }),
    })),
    next: next === null ? null : Number(next),
  }
}

/**
 * Deletes rows `me` finished, each call resolving whether its row was still `me`'s: the rows
 * finished while a DELETE is under way go in the next one, together.
 *
 * @example
 * const gone = await createFinisher(pool, me).call({ kind: 'delivery', key: 'msg_1' })
 */
function createFinisher(db: Db, me: string) {
  return createBatcher(async (items: readonly Pick<WorkItem, 'kind' | 'key'>[]) => {
    const deleted = await rows<{ kind: string; key: string }>(
      db,
      prepared(sql`
      DELETE FROM sendbox_work
      WHERE owner = ${me} AND (kind, key) IN (SELECT * FROM unnest(
        ${textArray(items.map((item) => item.kind))}::text[],
        ${textArray(items.map((item) => item.key))}::text[]))
      RETURNING kind, key`),
    )
    const gone = new Set(deleted.map((row) => `${row.kind}\n${row.key}`))
    return items.map((item) => gone.has(`${item.kind}\n${item.key}`))
  })
}

/**
 * The work queue in `sendbox_work`. A claim takes due rows with `FOR UPDATE SKIP LOCKED` (two
 * processes claiming at once take different rows, neither waits) and leases them to this process
 * (`owner`, `lease_until`); a row whose lease ran out (its process died) is claimable again. A
 * row with a `lane` is claimable only when no older row of its lane is left: a URL's events of
 * one message go out in order, whichever processes post them. New work is told to the other
 * processes with a notice, so they claim it at once rather than at their next poll.
 *
 * @example
 * const work = createWorkQueue(pool, channel, randomUUID())
 * const { items } = await work.claim(16, 10_000)
 */
export function createWorkQueue(
  db: Db,
  channel?: StoreChannel,
  me: string = randomUUID(),
): WorkQueue & { wake(): void } {
  const listeners = new Set<() => void>()
  const wake = () => {
    for (const listener of listeners) listener()
    // The others hear it; a lost notice costs them one poll's wait, not the work.
    channel?.publish(WAKE).catch(() => {})
  }
  channel?.subscribe((notice) => {
    if (notice.type === WAKE.type) for (const listener of listeners) listener()
  })
  const key = (item: Pick<WorkItem, 'kind' | 'key'>) =>
    sql`kind = ${item.kind} AND key = ${item.key}`
  const finished = createFinisher(db, me)
  return {
    async add(items) {
      await insertWork(db, items)
      if (items.length) wake()
    },
    claim: (limit, leaseMs) => claimWork(db, me, limit, leaseMs),
    async done(item) {
      const gone = await finished.call({ kind: item.kind, key: item.key })
      // The row gone may have held up its lane: the next of the lane is claimable now.
      if (item.lane !== undefined) wake()
      return gone
    },
    async later(item, dueAt, payload) {
      await db.query(sql`
        UPDATE sendbox_work
        SET due_at = ${new Date(dueAt)}, attempts = attempts + 1, owner = NULL, lease_until = NULL,
            payload = ${asJson(payload)}
        WHERE ${key(item)} AND owner = ${me}`)
    },
    async drop(item) {
      await db.query(sql`DELETE FROM sendbox_work WHERE ${key(item)}`)
      wake()
    },
    async size() {
      const [row] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM sendbox_work`)
      return row!.n
    },
    onAdded(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    /** Tells this process's listeners and the others that rows may be claimable now. */
    wake,
  }
}
