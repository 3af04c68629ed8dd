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
  StoreChannel,
} from '../types.js'
import { createFaultTable } from './faults.js'
import { guarded } from './guard.js'
import { conditionOf, filterColumns } from './filter.js'
import { createRejectionTable } from './rejections.js'
import { createWebhookTable } from './webhooks.js'
import { createWorkQueue, insertWork } from './work.js'
import { createSuppressionRows } from './suppressions.js'
import { createTrimmer } from './trim.js'

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

/** Where each record handed out stands (its row's seq): what `matches` reads for `after`. */
type Positions = WeakMap<MessageRecord, number>

type Row = { record: Record<string, unknown>; seq: string }

/**
 * The reads of messages: every one a query, nothing of the records kept in the process.
 *
 * @example
 * const reads = createMessageReads(sql, new WeakMap())
 * await reads.list({ to: 'ada@' })
 */
function createMessageReads(
  sql: Sql,
  seqs: Positions,
): Pick<
  MessageStore,
  'list' | 'get' | 'cursor' | 'matches' | 'latest' | 'count' | 'dropped' | 'bytes'
> {
  const positioned = (row: Row) => {
    const record = recordOf(row.record)
    seqs.set(record, Number(row.seq))
    return record
  }
  const page = async (filter: MessageFilter = {}, limit: number | null, offset: number) => {
    const rows = await sql<Row[]>`
      SELECT record, seq FROM sendbox_messages WHERE ${conditionOf(sql, filter)}
      ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`
    return rows.map(positioned)
  }
  return {
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
      const rows = await sql<Row[]>`
        SELECT record, seq FROM sendbox_messages WHERE id = ${id}`
      return rows[0] && positioned(rows[0])
    },
    // The newest seq: a message stored from now on has a greater one.
    async cursor() {
      const rows = await sql<{ c: string }[]>`
        SELECT coalesce(max(seq), 0)::text AS c FROM sendbox_messages`
      return rows[0]!.c
    },
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
    ...createCounts(sql),
  }
}

/**
 * What the sandbox holds in all: messages, those dropped by `--max-messages`, their bytes.
 *
 * @example
 * await createCounts(sql).count() // 12
 */
function createCounts(sql: Sql): Pick<MessageStore, 'count' | 'dropped' | 'bytes'> {
  return {
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
  }
}

/**
 * The changes of messages, each one statement or one transaction, committed before it resolves.
 *
 * @example
 * const changes = createMessageChanges(sql, createTrimmer(sql, 5000), new WeakMap())
 * await changes.append(record)
 */
function createMessageChanges(
  sql: Sql,
  trimmer: { trim(): Promise<void> },
  seqs: Positions,
): Pick<MessageStore, 'append' | 'delete' | 'clear' | 'addEvents' | 'addRelease'> {
  return {
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
    async delete(id) {
      const result = await sql`DELETE FROM sendbox_messages WHERE id = ${id}`
      return result.count > 0
    },
    async clear(filter) {
      const result = await sql`DELETE FROM sendbox_messages WHERE ${conditionOf(sql, filter)}`
      return result.count
    },
    // Events that two processes add at once both land: each change holds the row's lock.
    addEvents: (id, events) =>
      changeRecord(sql, seqs, id, (record) => (events.length ? withEvents(record, events) : null)),
    addRelease: (id, release) =>
      changeRecord(sql, seqs, id, (record) => withRelease(record, release)),
  }
}

/**
 * Changes one record in one transaction, its row locked: `change` answers the new record, or
 * null for no change. Resolves with the record after it; undefined when there is none. The
 * changed record keeps its row's place (`seqs`): a wait `after` a later cursor must not take an
 * older message whose state changed for a new one.
 *
 * @example
 * await changeRecord(sql, seqs, 'msg_1', (record) => withRelease(record, release))
 */
function changeRecord(
  sql: Sql,
  seqs: Positions,
  id: string,
  change: (record: MessageRecord) => MessageRecord | null,
): Promise<MessageRecord | undefined> {
  return sql.begin(async (tx) => {
    const rows = await tx<Row[]>`
      SELECT record, seq FROM sendbox_messages WHERE id = ${id} FOR UPDATE`
    if (!rows[0]) return undefined
    const seq = Number(rows[0].seq)
    const record = recordOf(rows[0].record)
    seqs.set(record, seq)
    const next = change(record)
    if (!next) return record
    seqs.set(next, seq)
    await tx`
      UPDATE sendbox_messages
      SET status = ${next.status}, bytes = ${recordSize(next)}, record = ${json(sql, next)}
      WHERE id = ${id}`
    return next
  })
}

/**
 * The MessageStore over PostgreSQL: every read is a query (no copy of the records in this
 * process), every change one statement or one transaction, committed before it resolves; with
 * the tables several processes share (faults, work, webhook deliveries, rejected sends).
 *
 * @example
 * const store = createPostgresStore(sql, { name: 'db:5432/sendbox', maxMessages: 5000 })
 * await store.append(record)
 */
export function createPostgresStore(sql: Sql, options: PostgresStoreOptions): MessageStore {
  const trimmer = createTrimmer(sql, options.maxMessages)
  const health: LogHealth = { state: 'ok', file: null }
  const seqs: Positions = new WeakMap()
  let closed = false
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
    ...createMessageReads(sql, seqs),
    ...createMessageChanges(sql, trimmer, seqs),
    ...createSuppressionRows(sql),
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

/** The store's methods that only read: tried again while their connection is replaced. */
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
