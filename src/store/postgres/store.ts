import { randomUUID } from 'node:crypto'
import { createBatcher } from '../../lib/batch.js'
import { compileFilter, isEmptyFilter } from '../filter.js'
import { withEvents } from '../recipients.js'
import { withRelease } from '../releases.js'
import { recordSize } from '../size.js'
import type {
  LogHealth,
  MessageFilter,
  MessageRecord,
  MessageStore,
  StoreChannel,
  WorkItem,
} from '../types.js'
import { createFaultTable } from './faults.js'
import { asJson } from './text.js'
import { bulk, changed, type Db, type Pool, raw, rows, sql, valuesOf } from './client.js'
import { guarded, isRefused } from './guard.js'
import { createReachability } from './reachability.js'
import { conditionOf, filterColumns } from './filter.js'
import { createRejectionTable } from './rejections.js'
import { createWebhookTable } from './webhooks.js'
import { createWorkQueue, workRows } from './work.js'
import { createSuppressionRows } from './suppressions.js'
import { createTrimmer } from './trim.js'
import { clearCounted, projectBytes, projectDropped } from './project-counts.js'
import { SCHEMA_VERSION } from './schema.js'

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
function recordOf(row: Pick<Row, 'record' | 'html' | 'text'>): MessageRecord {
  const stored: Record<string, unknown> = { ...row.record, html: row.html, text: row.text }
  const record: Record<string, unknown> = {}
  for (const key of RECORD_KEYS) if (key in stored) record[key] = stored[key]
  for (const key of Object.keys(stored)) if (!(key in record)) record[key] = stored[key]
  return record as unknown as MessageRecord
}

/** What the `record` column keeps: the record but its html and text, which have columns of their own. */
const recordColumn = ({ html: _html, text: _text, ...rest }: MessageRecord) => asJson(rest)

/** The columns a record is read with (`recordOf` puts it together again). */
const RECORD_COLUMNS = 'record, html, text, seq, xmin::text AS version'

export interface PostgresStoreOptions {
  /** `host:port/database`, what an unavailable store's error names. */
  name: string
  /** Oldest messages of the whole sandbox are dropped past this many. */
  maxMessages: number
  /** The processes' channel (channel.ts); closed with the store. */
  channel?: StoreChannel & { close(): Promise<void> }
  /** Rejected sends kept for the whole sandbox (the newest). */
  maxRejections?: number
  /** Told when the database stops answering this process, and when it answers again (./reachability.ts). */
  onHealth?: (health: LogHealth) => void
}

/**
 * What this process knows of the row of each record it handed out: its seq (what `matches`
 * reads for `after`) and its version (`xmin`, changed by every update of the row), with which a
 * change can start from that record rather than read the row again.
 */
type RowFacts = { seq: number; version: string }
type Positions = WeakMap<MessageRecord, RowFacts>

type Row = {
  record: Record<string, unknown>
  html: string
  text: string
  seq: string
  version: string
}

/** A row of a list's statement: a message of the page (all null when the page is empty), its total and cursor. */
type PageRow = { [K in keyof Row]: Row[K] | null } & { total: number; cursor: string }

/**
 * A page of messages, newest first by seq (the caller orders it). The page's seqs first, then
 * its rows: skipping `offset` rows walks the seq index alone, not the rows (each ~1 KB with the
 * record beside its html and text, which made offset=50000 of 200,000 take 56 ms; 22 ms now,
 * npm run bench:team).
 */
const pageOf = (filter: MessageFilter, limit: number | null, offset: number) => sql`
  SELECT ${raw(RECORD_COLUMNS)} FROM sendbox_messages
  WHERE seq IN (
    SELECT seq FROM sendbox_messages WHERE ${conditionOf(filter)}
    ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset})`

/**
 * How many messages a list's filter matches: of all of them, the count the triggers keep (one
 * row; a count(*) read the whole table, 73 ms of 90 for a page of 100,000 messages).
 */
const totalOf = (filter: MessageFilter) =>
  isEmptyFilter(filter) && filter.after === undefined
    ? sql`SELECT value::int FROM sendbox_counters WHERE name = 'stored'`
    : sql`SELECT count(*)::int FROM sendbox_messages WHERE ${conditionOf(filter)}`

/**
 * What a list's cursor counts: the project's messages, for a list of one project, so that its
 * cursor does not move with another project's sends; every message otherwise.
 */
const cursorCondition = (filter: MessageFilter) =>
  filter.project ? sql`project = ${filter.project}` : sql`TRUE`

/** The newest seq (the cursor of every message). */
const NEWEST = sql`SELECT coalesce(max(seq), 0)::text AS c FROM sendbox_messages`

/**
 * The reads of messages: every one a query, nothing of the records kept in the process.
 *
 * @example
 * const reads = createMessageReads(pool, new WeakMap())
 * await reads.list({ to: 'ada@' })
 */
function createMessageReads(
  db: Db,
  seqs: Positions,
): Pick<
  MessageStore,
  'list' | 'get' | 'cursor' | 'matches' | 'latest' | 'count' | 'dropped' | 'bytes'
> {
  const positioned = (row: Row) => noted(seqs, row)
  const page = async (filter: MessageFilter = {}, limit: number | null, offset: number) => {
    const found = await rows<Row>(db, sql`${pageOf(filter, limit, offset)} ORDER BY seq DESC`)
    return found.map(positioned)
  }
  return {
    async list(filter = {}) {
      const offset = Math.max(0, Math.floor(filter.offset ?? 0)) || 0
      const limit = filter.limit === undefined ? null : Math.max(0, Math.floor(filter.limit)) || 0
      // The page, its total and its cursor in one statement, so from one snapshot: read apart,
      // a message committed between the page and the cursor was behind the cursor but on no
      // page, and a reader following the cursor never saw it. The highest seq seen is a cursor
      // that misses nothing, since messages commit in seq order (schema.ts, step 6).
      const found = await rows<PageRow>(
        db,
        sql`
        SELECT m.record, m.html, m.text, m.seq, m.version, s.total, s.cursor
        FROM (SELECT
          (${totalOf(filter)}) AS total,
          (SELECT coalesce(max(seq), 0)::text FROM sendbox_messages
           WHERE ${cursorCondition(filter)}) AS cursor) AS s
        LEFT JOIN (${pageOf(filter, limit, offset)}) AS m ON TRUE
        ORDER BY m.seq DESC`,
      )
      const messages = found.filter((row) => row.seq !== null).map((row) => positioned(row as Row))
      return { messages, total: found[0]!.total, cursor: found[0]!.cursor }
    },
    get: (id) => readRow(db, seqs, id),
    // The newest seq: a message stored from now on has a greater one.
    async cursor() {
      const [row] = await rows<{ c: string }>(db, NEWEST)
      return row!.c
    },
    matches(record, filter) {
      // A record this process did not read (an event of another's) arrived after the call.
      const after =
        filter.after === undefined
          ? -1
          : /^\d{1,15}$/.test(filter.after)
            ? Number(filter.after)
            : Number.POSITIVE_INFINITY
      return (
        (seqs.get(record)?.seq ?? Number.POSITIVE_INFINITY) > after && compileFilter(filter)(record)
      )
    },
    async latest(filter = {}) {
      return (await page(filter, 1, 0))[0]
    },
    ...createCounts(db),
  }
}

/**
 * What the sandbox holds in all: messages, those dropped by `--max-messages`, their bytes.
 *
 * @example
 * await createCounts(pool).count() // 12
 */
function createCounts(db: Db): Pick<MessageStore, 'count' | 'dropped' | 'bytes'> {
  return {
    // Kept by triggers (schema.ts, step 5): one row, where count(*) scanned the table (the
    // health check at 200,000 messages went from 105 to 87 ms, bench:team; the rest is bytes).
    async count() {
      const [row] = await rows<{ n: number }>(
        db,
        sql`SELECT value::float8 AS n FROM sendbox_counters WHERE name = 'stored'`,
      )
      return row?.n ?? 0
    },
    async dropped(project) {
      if (project !== undefined) return projectDropped(db, project)
      const [row] = await rows<{ n: number }>(
        db,
        sql`SELECT value::float8 AS n FROM sendbox_counters WHERE name = 'dropped'`,
      )
      return row?.n ?? 0
    },
    async bytes(project) {
      if (project !== undefined) return projectBytes(db, project)
      const [row] = await rows<{ n: number }>(
        db,
        sql`SELECT coalesce(sum(bytes), 0)::float8 AS n FROM sendbox_messages`,
      )
      return row!.n
    },
  }
}

/**
 * The changes of messages, each one statement or one transaction, committed before it resolves.
 *
 * @example
 * const changes = createMessageChanges(pool, createTrimmer(pool, 5000), new WeakMap(), randomUUID())
 * await changes.append(record)
 */
function createMessageChanges(
  db: Db,
  trimmer: { trim(id: string): Promise<boolean> },
  seqs: Positions,
  /** This process in the work queue: the owner of the work it adds leased to itself. */
  me: string,
): Pick<MessageStore, 'append' | 'delete' | 'clear' | 'addEvents' | 'addRelease'> & {
  idle(): Promise<void>
} {
  const inserts = createBatcher((items: readonly NewMessage[]) => insertMessages(db, items, me), {
    eachAlone: isRefused,
  })
  const updates = createBatcher((changes: readonly RowChange[]) => updateRecords(db, changes), {
    eachAlone: isRefused,
  })
  const change = (
    id: string,
    edit: (record: MessageRecord) => MessageRecord | null,
    base?: MessageRecord,
  ) => changeRecord(db, seqs, updates.call, id, edit, base)
  return {
    async append(record, work = []) {
      const row = await inserts.call({ record, work })
      if (row) seqs.set(record, row)
      // Committed: the record is the sandbox's. Past --max-messages, the oldest go before the 201;
      // a trim that fails (the database went away after the commit) is caught up by the next.
      return trimmer.trim(record.id).catch(() => true)
    },
    async delete(id) {
      return (await changed(db, sql`DELETE FROM sendbox_messages WHERE id = ${id}`)) > 0
    },
    clear: (filter) => clearCounted(db, conditionOf(filter)),
    // Events that two processes add at once both land: a change is written only where the row
    // is still at the version it started from, and starts over from the row otherwise.
    addEvents: (id, events, base) =>
      change(id, (record) => (events.length ? withEvents(record, events) : null), base),
    addRelease: (id, release) => change(id, (record) => withRelease(record, release)),
    async idle() {
      await inserts.idle()
      await updates.idle()
    },
  }
}

/** A message to insert, with the work that comes with it. */
type NewMessage = { record: MessageRecord; work: readonly WorkItem[] }

/**
 * Inserts messages and their work in one statement (one transaction): a 201 leaves the delivery
 * to whichever process claims it, even when this one is killed the moment after. The sends that
 * arrive while one insert is under way share the next (createBatcher): each round trip is a
 * write to the socket and a wakeup on both sides, and under bench:team's load those were the
 * biggest cost of a process and of the database. Answers each message's row facts, in order.
 */
async function insertMessages(
  db: Db,
  items: readonly NewMessage[],
  me: string,
): Promise<(RowFacts | undefined)[]> {
  const messages = items.map(({ record }) => ({
    id: record.id,
    created_at: new Date(record.createdAt),
    project: record.project,
    status: record.status,
    ...filterColumns(record),
    bytes: recordSize(record),
    record: recordColumn(record),
    html: asJson(record.html),
    text: asJson(record.text),
  }))
  const work = items.flatMap((item) => item.work)
  const message = sql`
    INSERT INTO sendbox_messages ${valuesOf(messages)} RETURNING id, seq, xmin::text AS version`
  const inserted = await rows<InsertedRow>(
    db,
    work.length
      ? sql`
        WITH message AS (${message}),
        work AS (
          INSERT INTO sendbox_work ${valuesOf(workRows(work, me))}
          ON CONFLICT (kind, key) DO NOTHING)
        SELECT id, seq, version FROM message`
      : message,
  )
  const byId = new Map(inserted.map((row) => [row.id, row]))
  return items.map(({ record }) => {
    const row = byId.get(record.id)
    return row && { seq: Number(row.seq), version: row.version }
  })
}

type InsertedRow = { id: string; seq: string; version: string }

/** A change of one row: its new record, written only if the row is still at `version`. */
type RowChange = { id: string; next: MessageRecord; version: string }

/**
 * Writes changed records, each only where its row is still at the version the change started
 * from; answers each row's new version, or undefined where another change came first (or the
 * row is gone). The changes made while one statement is under way share the next
 * (createBatcher), as inserts do. Two changes of one row in a batch: the first is written, the
 * second answered as a conflict, so it reads the row again and starts over.
 */
async function updateRecords(
  db: Db,
  changes: readonly RowChange[],
): Promise<(string | undefined)[]> {
  const ids = new Set<string>()
  const firsts = changes.filter(({ id }) => !ids.has(id) && ids.add(id))
  const values = firsts.map(({ id, next, version }) => [
    id,
    version,
    next.status,
    recordSize(next),
    recordColumn(next),
  ])
  // A VALUES list's values are text to PostgreSQL: each is cast to its column's type.
  const written = await rows<{ id: string; version: string }>(
    db,
    sql`
    UPDATE sendbox_messages m
    SET status = v.status, bytes = v.bytes::int, record = v.record::json
    FROM (VALUES ${bulk(values)}) AS v (id, version, status, bytes, record)
    WHERE m.id = v.id AND m.xmin = v.version::xid
    RETURNING m.id, m.xmin::text AS version`,
  )
  const versions = new Map(written.map((row) => [row.id, row.version]))
  return changes.map((change) => (firsts.includes(change) ? versions.get(change.id) : undefined))
}

/**
 * Changes one record: `change` answers the new record, or null for no change. Resolves with the
 * record after it; undefined when there is none. No transaction: the row is written only if its
 * version (`xmin`) is still the one the change started from; when another change came first, the
 * row is read and changed again, so changes that two processes make at once both land. `base`, a
 * record this store handed out, is started from without reading the row (a delivery step has
 * just read it): one statement when it is current. (A transaction holding the row's lock took
 * four round trips: BEGIN, SELECT … FOR UPDATE, UPDATE, COMMIT.) The changed record keeps its
 * row's place (`seqs`): a wait `after` a later cursor must not take an older message whose state
 * changed for a new one.
 *
 * @example
 * await changeRecord(pool, seqs, updates.call, 'msg_1', (record) => withRelease(record, release))
 */
async function changeRecord(
  db: Db,
  seqs: Positions,
  write: (change: RowChange) => Promise<string | undefined>,
  id: string,
  change: (record: MessageRecord) => MessageRecord | null,
  base?: MessageRecord,
): Promise<MessageRecord | undefined> {
  let known = base?.id === id ? base : undefined
  for (;;) {
    const record = known ?? (await readRow(db, seqs, id))
    const facts = record && seqs.get(record)
    known = undefined
    if (!record || !facts) return record
    const next = change(record)
    if (!next) return record
    const version = await write({ id, next, version: facts.version })
    if (version === undefined) continue
    seqs.set(next, { seq: facts.seq, version })
    return next
  }
}

/** The record of `id` as it is now, with its row's facts noted; undefined when there is none. */
async function readRow(db: Db, seqs: Positions, id: string) {
  const [row] = await rows<Row>(
    db,
    sql`SELECT ${raw(RECORD_COLUMNS)} FROM sendbox_messages WHERE id = ${id}`,
  )
  return row && noted(seqs, row)
}

/** A row's record, its seq and version noted. */
function noted(seqs: Positions, row: Row): MessageRecord {
  const record = recordOf(row)
  seqs.set(record, { seq: Number(row.seq), version: row.version })
  return record
}

/**
 * The MessageStore over PostgreSQL: every read is a query (no copy of the records in this
 * process), every change one statement or one transaction, committed before it resolves; with
 * the tables several processes share (faults, work, webhook deliveries, rejected sends).
 *
 * @example
 * const store = createPostgresStore(openPool(url), { name: 'db:5432/sendbox', maxMessages: 5000 })
 * await store.append(record)
 */
export function createPostgresStore(pool: Pool, options: PostgresStoreOptions): MessageStore {
  const trimmer = createTrimmer(pool, options.maxMessages)
  const reach = createReachability(options.onHealth)
  const seqs: Positions = new WeakMap()
  const me = randomUUID()
  let closed = false
  const { idle, ...changes } = createMessageChanges(pool, trimmer, seqs, me)
  const { wake, ...work } = createWorkQueue(pool, options.channel, me)
  const store: MessageStore = {
    ...(options.channel ? { channel: options.channel } : {}),
    faults: guarded(createFaultTable(pool), options.name, [], ['list'], reach.observe),
    work: guarded(work, options.name, ['onAdded'], ['size'], reach.observe),
    webhooks: guarded(
      createWebhookTable(pool, { me, wake }),
      options.name,
      [],
      ['get', 'list', 'pending'],
      reach.observe,
    ),
    rejections: guarded(
      createRejectionTable(pool, options.maxRejections ?? 100),
      options.name,
      [],
      ['list'],
      reach.observe,
    ),
    ...createMessageReads(pool, seqs),
    ...changes,
    ...createSuppressionRows(pool),
    health: reach.health,
    format: { kind: 'postgres', format: SCHEMA_VERSION },
    async close() {
      if (closed) return
      closed = true
      await idle()
      await trimmer.idle()
      await options.channel?.close().catch(() => {})
      await pool.end()
    },
  }
  // The database away is a 503 store_unavailable for the request, not a crash; the client
  // reconnects at the next query, so the sandbox works again without a restart.
  return guarded(store, options.name, ['health', 'matches'], READS, reach.observe)
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
