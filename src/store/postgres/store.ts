import type { JSONValue, Sql } from 'postgres'
import { compileFilter } from '../filter.js'
import { withEvents } from '../recipients.js'
import { withRelease } from '../releases.js'
import { recordSize } from '../size.js'
import type {
  LogHealth,
  MessageFilter,
  MessageRecord,
  MessageStore,
  Suppression,
  StoreChannel,
  SuppressionFilter,
} from '../types.js'
import { createFaultTable } from './faults.js'
import { guarded } from './guard.js'
import { conditionOf, filterColumns } from './filter.js'
import { createRejectionTable } from './rejections.js'
import { createWebhookTable } from './webhooks.js'
import { createWorkQueue, insertWork } from './work.js'

/** A record's keys in the order the JSON Lines log writes them (JSONB keeps its own order). */
const RECORD_KEYS: ReadonlyArray<keyof MessageRecord> = [
  'id',
  'status',
  'createdAt',
  'project',
  'tokenHint',
  'template',
  'from',
  'to',
  'subject',
  'templateVariables',
  'html',
  'text',
  'warnings',
  'recipients',
]

/** The record as the log would hand it out: its keys in the log's order, then any others. */
function recordOf(stored: Record<string, unknown>): MessageRecord {
  const record: Record<string, unknown> = {}
  for (const key of RECORD_KEYS) if (key in stored) record[key] = stored[key]
  for (const key of Object.keys(stored)) if (!(key in record)) record[key] = stored[key]
  return record as unknown as MessageRecord
}

const json = (sql: Sql, value: unknown) => sql.json(value as JSONValue)

export interface PostgresStoreOptions {
  /** `host:port/database`, what an unavailable store's error names. */
  name: string
  /** Oldest messages of the whole sandbox are dropped past this many. */
  maxMessages: number
  /** The processes' channel (channel.ts); closed with the store. */
  channel?: StoreChannel & { close(): Promise<void> }
  /** Rejected sends kept for the whole sandbox (the newest). */
  maxRejections?: number
}

/**
 * The MessageStore over PostgreSQL: every read is a query (no copy of the records in this
 * process), every change one statement or one transaction, committed before it resolves.
 *
 * @example
 * const store = createPostgresStore(sql, { maxMessages: 5000 })
 * await store.append(record)
 */
export function createPostgresStore(sql: Sql, options: PostgresStoreOptions): MessageStore {
  const trimmer = createTrimmer(sql, options.maxMessages)
  const health: LogHealth = { state: 'ok', file: null }
  let closed = false

  // Where each record handed out stands (its row's seq): what `matches` reads for `after`.
  const seqs = new WeakMap<MessageRecord, number>()
  const positioned = (row: { record: Record<string, unknown>; seq: string }) => {
    const record = recordOf(row.record)
    seqs.set(record, Number(row.seq))
    return record
  }
  const samePlace = (record: MessageRecord, row: { seq: string }) => {
    seqs.set(record, Number(row.seq))
    return record
  }
  const page = async (filter: MessageFilter = {}, limit: number | null, offset: number) => {
    const rows = await sql<{ record: Record<string, unknown>; seq: string }[]>`
      SELECT record, seq FROM sendbox_messages WHERE ${conditionOf(sql, filter)}
      ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`
    return rows.map(positioned)
  }
  // The newest seq: a message stored from now on has a greater one.
  const cursor = async () => {
    const rows = await sql<{ c: string }[]>`
      SELECT coalesce(max(seq), 0)::text AS c FROM sendbox_messages`
    return rows[0]!.c
  }

  const store: MessageStore = {
    ...(options.channel ? { channel: options.channel } : {}),
    faults: guarded(createFaultTable(sql), options.name, [], ['list']),
    work: guarded(createWorkQueue(sql, options.channel), options.name, ['onAdded'], ['size']),
    webhooks: guarded(createWebhookTable(sql), options.name, [], ['get', 'list', 'pending']),
    rejections: guarded(
      createRejectionTable(sql, options.maxRejections ?? 100),
      options.name,
      [],
      ['list'],
    ),
    async append(record, work = []) {
      // The message and its work in one transaction: a 201 leaves the delivery to whichever
      // process claims it, even when this one is killed the moment after.
      const row = await sql.begin(async (tx) => {
        const [inserted] = await tx<{ seq: string }[]>`
          INSERT INTO sendbox_messages ${tx({
            id: record.id,
            created_at: new Date(record.createdAt),
            project: record.project,
            status: record.status,
            ...filterColumns(record),
            bytes: recordSize(record),
            record: json(sql, record),
          })}
          RETURNING seq`
        await insertWork(tx, work)
        return inserted
      })
      if (row) seqs.set(record, Number(row.seq))
      // Committed: the record is the sandbox's. Past --max-messages, the oldest go before the 201;
      // a trim that fails (the database went away after the commit) is caught up by the next.
      await trimmer.trim().catch(() => {})
    },
    async list(filter = {}) {
      const offset = Math.max(0, Math.floor(filter.offset ?? 0)) || 0
      const limit = filter.limit === undefined ? null : Math.max(0, Math.floor(filter.limit)) || 0
      // The count and the cursor in one statement: two connections per list, as before cursors.
      const [messages, counted] = await Promise.all([
        page(filter, limit, offset),
        sql<{ total: number; cursor: string }[]>`
          SELECT
            (SELECT count(*)::int FROM sendbox_messages WHERE ${conditionOf(sql, filter)}) AS total,
            (SELECT coalesce(max(seq), 0)::text FROM sendbox_messages) AS cursor`,
      ])
      return { messages, total: counted[0]!.total, cursor: counted[0]!.cursor }
    },
    async get(id) {
      const rows = await sql<{ record: Record<string, unknown>; seq: string }[]>`
        SELECT record, seq FROM sendbox_messages WHERE id = ${id}`
      return rows[0] && positioned(rows[0])
    },
    cursor,
    matches(record, filter) {
      // A record this process did not read (an event of another's) arrived after the call.
      const after =
        filter.after === undefined
          ? -1
          : /^\d{1,15}$/.test(filter.after)
            ? Number(filter.after)
            : Number.POSITIVE_INFINITY
      return (seqs.get(record) ?? Number.POSITIVE_INFINITY) > after && compileFilter(filter)(record)
    },
    async latest(filter = {}) {
      return (await page(filter, 1, 0))[0]
    },
    async delete(id) {
      const result = await sql`DELETE FROM sendbox_messages WHERE id = ${id}`
      return result.count > 0
    },
    async clear(filter) {
      const result = await sql`DELETE FROM sendbox_messages WHERE ${conditionOf(sql, filter)}`
      return result.count
    },
    addEvents(id, events) {
      // One transaction, the row locked: events that two processes add at once both land.
      return sql.begin(async (tx) => {
        const rows = await tx<{ record: Record<string, unknown>; seq: string }[]>`
          SELECT record, seq FROM sendbox_messages WHERE id = ${id} FOR UPDATE`
        if (!rows[0]) return undefined
        const record = positioned(rows[0])
        if (events.length === 0) return record
        // The changed record keeps its row's place: a wait `after` a later cursor must not take
        // an older message whose state changed for a new one.
        const next = samePlace(withEvents(record, events), rows[0])
        await tx`
          UPDATE sendbox_messages
          SET status = ${next.status}, bytes = ${recordSize(next)}, record = ${json(sql, next)}
          WHERE id = ${id}`
        return next
      })
    },
    addRelease(id, release) {
      return sql.begin(async (tx) => {
        const rows = await tx<{ record: Record<string, unknown>; seq: string }[]>`
          SELECT record, seq FROM sendbox_messages WHERE id = ${id} FOR UPDATE`
        if (!rows[0]) return undefined
        const next = samePlace(withRelease(recordOf(rows[0].record), release), rows[0])
        await tx`
          UPDATE sendbox_messages SET bytes = ${recordSize(next)}, record = ${json(sql, next)}
          WHERE id = ${id}`
        return next
      })
    },
    async suppression(project, address) {
      const rows = await sql<{ entry: Suppression }[]>`
        SELECT entry FROM sendbox_suppressions
        WHERE project = ${project} AND address = ${address.toLowerCase()}`
      return rows[0]?.entry
    },
    async suppressions(filter = {}) {
      const rows = await sql<{ entry: Suppression }[]>`
        SELECT entry FROM sendbox_suppressions WHERE ${suppressionCondition(sql, filter)}
        ORDER BY seq DESC`
      return rows.map((row) => row.entry)
    },
    async suppress(entry) {
      const stored: Suppression = { ...entry, address: entry.address.toLowerCase() }
      // A refreshed entry moves to the newest place, as on the log.
      await sql`
        INSERT INTO sendbox_suppressions (project, address, entry)
        VALUES (${stored.project}, ${stored.address}, ${json(sql, stored)})
        ON CONFLICT (project, address) DO UPDATE
        SET entry = EXCLUDED.entry,
            seq = nextval(pg_get_serial_sequence('sendbox_suppressions', 'seq'))`
    },
    async unsuppress(filter = {}) {
      const rows = await sql<{ entry: Suppression; seq: string }[]>`
        DELETE FROM sendbox_suppressions WHERE ${suppressionCondition(sql, filter)}
        RETURNING entry, seq`
      // Oldest first, as the log answers.
      return rows.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1)).map((row) => row.entry)
    },
    async count() {
      const rows = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM sendbox_messages`
      return rows[0]!.n
    },
    async dropped() {
      const rows = await sql<{ n: number }[]>`
        SELECT value::float8 AS n FROM sendbox_counters WHERE name = 'dropped'`
      return rows[0]?.n ?? 0
    },
    async bytes() {
      const rows = await sql<{ n: number }[]>`
        SELECT coalesce(sum(bytes), 0)::float8 AS n FROM sendbox_messages`
      return rows[0]!.n
    },
    health: () => health,
    async close() {
      if (closed) return
      closed = true
      await trimmer.idle()
      await options.channel?.close().catch(() => {})
      await sql.end({ timeout: 5 })
    },
  }
  // The database away is a 503 store_unavailable for the request, not a crash; the client
  // reconnects at the next query, so the sandbox works again without a restart.
  return guarded(store, options.name, ['health', 'matches'], READS)
}

/** The store's methods that only read: tried once more when their connection was dropped. */
const READS: ReadonlyArray<keyof MessageStore> = [
  'list',
  'get',
  'latest',
  'cursor',
  'suppression',
  'suppressions',
  'count',
  'dropped',
  'bytes',
]

function suppressionCondition(sql: Sql, filter: SuppressionFilter) {
  const project = filter.project === undefined ? sql`TRUE` : sql`project = ${filter.project}`
  const address =
    filter.address === undefined ? sql`TRUE` : sql`address = ${filter.address.toLowerCase()}`
  return sql`${project} AND ${address}`
}

/**
 * Drops the oldest messages of the sandbox past `max`, counting them in `dropped`. Sends that
 * commit together share one trim: each waits for a trim that began after its commit, so when a
 * send resolves the sandbox holds at most `max` (as on the log, where the drop follows the write).
 * The cut is found on the primary key's index (the newest `max` entries), whatever the table holds,
 * and only once the seqs span more than `max`.
 */
function createTrimmer(sql: Sql, max: number) {
  let running: Promise<void> | null = null
  let next: Promise<void> | null = null
  const once = async () => {
    // Finding the cut walks `max` entries of the index (137 ms at 200,000 on a loaded machine),
    // so it is skipped while the span of seqs, which no count can exceed, is within `max`: two
    // index lookups (0.15 ms), so a sandbox under its cap pays nothing whatever it holds.
    const result = await sql`
      WITH cut AS (
        SELECT seq FROM sendbox_messages
        WHERE (SELECT max(seq) - min(seq) + 1 FROM sendbox_messages) > ${max}
        ORDER BY seq DESC OFFSET ${max} LIMIT 1),
      gone AS (DELETE FROM sendbox_messages WHERE seq <= (SELECT seq FROM cut) RETURNING 1)
      UPDATE sendbox_counters SET value = value + (SELECT count(*) FROM gone)
      WHERE name = 'dropped' AND (SELECT count(*) FROM gone) > 0`
    return void result
  }
  const start = (): Promise<void> => {
    running = once().finally(() => {
      running = null
    })
    return running
  }
  return {
    trim(): Promise<void> {
      if (!running) return start()
      // One is under way (it may have begun before this commit): the one after it serves all
      // who arrive meanwhile.
      next ??= running
        .catch(() => {})
        .then(() => {
          next = null
          return start()
        })
      return next
    },
    idle: async () => {
      await next?.catch(() => {})
      await running?.catch(() => {})
    },
  }
}
