import { asJson } from './text.js'
import { createBatcher } from '../../lib/batch.js'
import { bulk, type Db, type Pool, prepared, raw, rows, sql, valuesOf } from './client.js'
import type {
  ClaimedWork,
  StoredWebhook,
  WebhookTable,
  WebhookTableFilter,
  WorkItem,
} from '../types.js'
import { textArray } from './filter.js'
import { workRows } from './work.js'
import { isRefused } from './guard.js'

/** Settled deliveries kept in the table (pending ones always are), as in one process. */
const KEPT_DELIVERIES = 1000

/** A process trims after it added this many deliveries: the table holds at most about this many more. */
const TRIM_EVERY = 100

/** Any fixed number, shared by every sendbox: the lock of the one trim under way. */
const TRIM_LOCK = 0x5e9db0c6

/**
 * Drops the settled deliveries past the newest KEPT_DELIVERIES, unless another process is doing
 * it right now (then it does nothing: that one's trim does it). The lock is taken once, in a
 * subquery, and held to the statement's commit. Every process trimming after each of its adds
 * made them delete the same rows at once and wait on each other's row locks (Lock:tuple in most
 * samples of pg_stat_activity, two processes with one --webhook: 136 sends/s where one process on
 * the log made 626).
 */
const trim = (db: Db) =>
  db.query(sql`
  DELETE FROM sendbox_webhooks
  WHERE (SELECT pg_try_advisory_xact_lock(${TRIM_LOCK})) AND status <> 'pending' AND seq < (
    SELECT seq FROM sendbox_webhooks ORDER BY seq DESC OFFSET ${KEPT_DELIVERIES} LIMIT 1)`)

/**
 * The pending deliveries: of one project (a project's token reads its own, docs/team.md), or of
 * every project.
 *
 * @example await countPending(pool, 'acme') // 2
 */
async function countPending(db: Db, project: string | undefined): Promise<number> {
  const [row] = await rows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM sendbox_webhooks
    WHERE status = 'pending' ${project === undefined ? raw('') : sql`AND project = ${project}`}`,
  )
  return row!.n
}

function condition(filter: WebhookTableFilter) {
  const parts = [
    filter.message === undefined ? null : sql`message_id = ${filter.message}`,
    filter.project === undefined ? null : sql`project = ${filter.project}`,
    filter.type === undefined ? null : sql`type = ${filter.type}`,
    filter.status === undefined ? null : sql`status = ${filter.status}`,
    filter.url === undefined ? null : sql`url = ${filter.url}`,
  ].filter((part) => part !== null)
  return parts.reduce((all, part) => sql`${all} AND ${part}`, sql`TRUE`)
}

/** The columns of a delivery's row. */
const columns = (d: StoredWebhook) => ({
  id: d.id,
  webhook_id: d.webhookId,
  url: d.url,
  message_id: d.messageId,
  project: d.project,
  type: d.type,
  status: d.status,
  delivery: asJson(d),
})

/** Deliveries to add, each with its first attempt's work. */
type NewDeliveries = { deliveries: readonly StoredWebhook[]; work: (d: StoredWebhook) => WorkItem }

/**
 * Adds deliveries and the work of those added (not those already there) in one statement: one
 * round trip where a transaction took four (BEGIN, two INSERTs, COMMIT), atomic all the same.
 * Answers the ids added, each with whether its work is `me`'s already. A VALUES list joined to
 * the rows added is text to PostgreSQL: each work column is cast to its own type.
 *
 * Work asked with a lease (`leaseMs`) is leased to `me` as it is added when it could be claimed
 * at once: the first of its lane in the batch, and no row of its lane in the table. The process
 * then runs it from the delivery in hand, where a claim (a write, a commit) and a read of the
 * delivery came first (bench:team:cost). Otherwise it is added unowned, for a claim to take in
 * its lane's order.
 *
 * @example
 * const added = await insertDeliveries(pool, me, [{ deliveries: [d], work: firstAttempt }])
 */
async function insertDeliveries(
  db: Db,
  me: string,
  batch: readonly NewDeliveries[],
): Promise<Map<string, boolean>> {
  const deliveries = batch.flatMap((call) => call.deliveries)
  const lanes = new Set<string>()
  const firstOfLane = (w: { lane: string | null }) =>
    w.lane === null || (!lanes.has(w.lane) && Boolean(lanes.add(w.lane)))
  const work = batch.flatMap((call) =>
    workRows(call.deliveries.map(call.work), me).map((w, i) => [
      call.deliveries[i]!.id,
      w.kind,
      w.key,
      w.lane,
      w.due_at,
      firstOfLane(w) ? w.owner : null,
      w.lease_until,
      w.payload,
    ]),
  )
  const added = await rows<{ id: string; mine: boolean }>(
    db,
    sql`
    WITH added AS (
      INSERT INTO sendbox_webhooks ${valuesOf(deliveries.map(columns))}
      ON CONFLICT (webhook_id, url) DO NOTHING
      RETURNING id),
    work AS (
      INSERT INTO sendbox_work (kind, key, lane, due_at, owner, lease_until, payload)
      SELECT w.kind, w.key, w.lane, w.due_at::timestamptz,
        CASE WHEN free THEN w.owner END, CASE WHEN free THEN w.lease_until::timestamptz END,
        w.payload::json
      FROM (VALUES ${bulk(work)})
        AS w (delivery_id, kind, key, lane, due_at, owner, lease_until, payload)
      JOIN added ON added.id = w.delivery_id
      CROSS JOIN LATERAL (SELECT w.owner IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM sendbox_work e WHERE e.lane = w.lane)) AS f (free)
      ON CONFLICT (kind, key) DO NOTHING
      RETURNING key, owner IS NOT NULL AS mine)
    SELECT added.id, coalesce(bool_or(work.mine), false) AS mine
    FROM added LEFT JOIN work ON work.key = added.id GROUP BY added.id`,
  )
  return new Map(added.map((row) => [row.id, row.mine]))
}

/** An attempt's outcome: the delivery's new state, and its row of work finished or due again. */
type Settled = {
  delivery: StoredWebhook
  item: Pick<ClaimedWork, 'kind' | 'key'>
  retryAt: number | null
}

/**
 * Writes attempts' outcomes in one statement: each delivery's new state, and its row of work
 * (still `me`'s) deleted, or put back due at `retryAt` with its attempts counted. An attempt
 * wrote them in two statements, two commits (UPDATE of the delivery, then the work's DELETE or
 * UPDATE); each commit waits on the disk with fsync on (bench:team:cost). Arrays, not a VALUES
 * list, so the text is the same for any batch (`prepared`).
 *
 * @example
 * await settleAttempts(pool, me, [{ delivery, item: { kind: 'webhook', key: delivery.id }, retryAt: null }])
 */
async function settleAttempts(db: Db, me: string, batch: readonly Settled[]): Promise<void> {
  const done = batch.filter((s) => s.retryAt === null)
  const later = batch.filter((s) => s.retryAt !== null)
  await db.query(
    prepared(sql`
    WITH saved AS (
      UPDATE sendbox_webhooks w SET status = v.status, delivery = v.delivery::json
      FROM unnest(${textArray(batch.map((s) => s.delivery.id))}::text[],
        ${textArray(batch.map((s) => s.delivery.status))}::text[],
        ${textArray(batch.map((s) => asJson(s.delivery)))}::text[]) AS v (id, status, delivery)
      WHERE w.id = v.id),
    finished AS (
      DELETE FROM sendbox_work WHERE owner = ${me} AND (kind, key) IN (SELECT * FROM unnest(
        ${textArray(done.map((s) => s.item.kind))}::text[],
        ${textArray(done.map((s) => s.item.key))}::text[]))),
    again AS (
      UPDATE sendbox_work w SET due_at = v.due_at, attempts = attempts + 1, owner = NULL,
        lease_until = NULL, payload = '{}'
      FROM unnest(${textArray(later.map((s) => s.item.kind))}::text[],
        ${textArray(later.map((s) => s.item.key))}::text[],
        ${textArray(later.map((s) => new Date(s.retryAt!).toISOString()))}::timestamptz[])
        AS v (kind, key, due_at)
      WHERE w.kind = v.kind AND w.key = v.key AND w.owner = ${me})
    SELECT 1`),
  )
}

/**
 * Reads deliveries by id in one statement: the attempts that start together (a claim hands out
 * several) share it (createBatcher).
 *
 * @example
 * const [row] = await readDeliveries(pool, ['whd_1'])
 */
async function readDeliveries(
  db: Db,
  ids: readonly string[],
): Promise<(StoredWebhook | undefined)[]> {
  const found = await rows<{ delivery: StoredWebhook }>(
    db,
    prepared(sql`
    SELECT delivery FROM sendbox_webhooks WHERE id = ANY(${textArray(ids)}::text[])`),
  )
  const byId = new Map(found.map((row) => [row.delivery.id, row.delivery]))
  return ids.map((id) => byId.get(id))
}

/**
 * The adds of deliveries, those made while one statement is under way sharing the next: each
 * answered the deliveries it added, and of them those leased to `me` (insertDeliveries).
 *
 * @example
 * const { added, leased } = await createAdds(pool, me).call({ deliveries: [d], work: firstAttempt })
 */
function createAdds(db: Db, me: string) {
  return createBatcher(
    async (batch: readonly NewDeliveries[]) => {
      const added = await insertDeliveries(db, me, batch)
      return batch.map((call) => ({
        added: call.deliveries.filter((d) => added.has(d.id)),
        leased: call.deliveries.filter((d) => added.get(d.id)),
      }))
    },
    { eachAlone: isRefused },
  )
}

/** What the table needs of the work queue: this process's id in it, and its wake-up. */
export interface WebhookWork {
  /** This process as the owner of the rows it claimed. */
  me: string
  /** Tells this process and the others that rows may be claimable (a lane moved on). */
  wake(): void
}

/**
 * Webhook deliveries in `sendbox_webhooks`, one per event (`webhook_id`) and URL: an event two
 * processes both hand in for one URL is added once, so it is posted once. The adds made while
 * one statement is under way share the next (createBatcher). Settled deliveries past the newest
 * thousand are trimmed by a process after every TRIM_EVERY it added, by one process at a time
 * (`trim`).
 *
 * @example
 * const table = createWebhookTable(pool)
 * const added = await table.add([delivery], (d) => ({ kind: 'webhook', key: d.id, dueAt: Date.now(), payload: {} }))
 */
export function createWebhookTable(pool: Pool, work: WebhookWork): WebhookTable {
  let untrimmed = 0
  const adds = createAdds(pool, work.me)
  const reads = createBatcher((ids: readonly string[]) => readDeliveries(pool, ids))
  const settles = createBatcher(
    async (batch: readonly Settled[]) => {
      await settleAttempts(pool, work.me, batch)
      return batch.map(() => undefined)
    },
    { eachAlone: isRefused },
  )
  return {
    async add(deliveries, firstAttempt) {
      if (deliveries.length === 0) return { added: [], leased: [] }
      const added = await adds.call({ deliveries, work: firstAttempt })
      untrimmed += added.added.length
      if (untrimmed >= TRIM_EVERY) {
        untrimmed = 0
        // Committed: the deliveries are added whatever becomes of the trim (the next one catches up).
        await trim(pool).catch(() => {})
      }
      return added
    },
    async save(delivery) {
      await pool.query(sql`
        UPDATE sendbox_webhooks SET status = ${delivery.status},
          delivery = ${asJson(delivery)}
        WHERE id = ${delivery.id}`)
    },
    async settle(delivery, item, retryAt) {
      await settles.call({ delivery, item, retryAt })
      // The row gone may have held up its lane: the next of the lane is claimable now.
      if (retryAt === null && item.lane !== undefined) work.wake()
    },
    get: (id) => reads.call(id),
    async list(filter = {}) {
      const where = condition(filter)
      const [listed, counted] = await Promise.all([
        rows<{ delivery: StoredWebhook }>(
          pool,
          sql`
          SELECT delivery FROM sendbox_webhooks WHERE ${where}
          ORDER BY seq DESC LIMIT ${filter.limit ?? null}`,
        ),
        rows<{ n: number }>(
          pool,
          sql`SELECT count(*)::int AS n FROM sendbox_webhooks WHERE ${where}`,
        ),
      ])
      return { deliveries: listed.map((row) => row.delivery), total: counted[0]!.n }
    },
    pending: (project) => countPending(pool, project),
  }
}
