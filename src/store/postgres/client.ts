import { createHash } from 'node:crypto'
import pg from 'pg'
import sql, { bulk, join, raw, type Sql } from 'sql-template-tag'

export { bulk, sql, join, raw, type Sql }

/**
 * The PostgreSQL client: node-postgres (`pg`), its pool (`pg.Pool`, pg-pool inside `pg`) for the
 * queries and a dedicated connection for LISTEN (channel.ts). Every statement is parameterised:
 * `sql` (sql-template-tag) turns a template into `$1…$n` and its values, and nests fragments.
 * Values go as text, typed by PostgreSQL from where they stand; a value whose place says
 * nothing of its type (a SELECT's output, a VALUES list) is cast in the statement.
 */

/** What runs statements: the pool, or one of its connections inside a transaction. */
export interface Db {
  query<R extends pg.QueryResultRow>(query: pg.QueryConfig): Promise<pg.QueryResult<R>>
}

export type Pool = pg.Pool

/**
 * A pool of at most 10 connections to `url` (`sslmode` honoured). A connection that dies while
 * idle (an administrator's pg_terminate_backend, a restart) is dropped by the pool, and the
 * next query opens a fresh one; a refused connect fails that query at once (no backoff: the
 * reads' retries are guard.ts's).
 *
 * @example
 * const pool = openPool('postgres://sendbox@db:5432/sendbox')
 * await rows(pool, sql`SELECT 1 AS a`) // [{ a: 1 }]
 */
export function openPool(url: string): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 10_000,
    // Idle connections are kept (pg closes them after 10 s by default): a connect is a new
    // backend process, and a send after a quiet spell would wait for several.
    idleTimeoutMillis: 0,
  })
  // An idle connection's error (its backend ended) is the pool's to handle: it drops it. Without
  // a listener, Node throws the 'error' event and the process dies.
  pool.on('error', () => {})
  return pool
}

/**
 * A statement PostgreSQL keeps prepared on each connection, named after its text: parsed and
 * planned at its first run there, then only bound and executed (pg sends Parse once per
 * connection and name). For the few statements every send or webhook attempt runs, whose text
 * does not change with their values (arrays via `unnest`, not a VALUES list per batch size).
 *
 * @example
 * await rows(pool, prepared(sql`SELECT delivery FROM sendbox_webhooks WHERE id = ANY(${ids}::text[])`))
 */
export function prepared(query: Sql): pg.QueryConfig {
  const name = `sendbox_${createHash('sha1').update(query.text).digest('base64url')}`
  return { name, text: query.text, values: query.values }
}

/**
 * A statement's rows.
 *
 * @example
 * const [row] = await rows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM sendbox_work`)
 */
export async function rows<R extends pg.QueryResultRow>(
  db: Db,
  query: pg.QueryConfig,
): Promise<R[]> {
  return (await db.query<R>(query)).rows
}

/**
 * How many rows a statement changed.
 *
 * @example
 * await changed(db, sql`DELETE FROM sendbox_faults`) // 2
 */
export async function changed(db: Db, query: pg.QueryConfig): Promise<number> {
  return (await db.query(query)).rowCount ?? 0
}

/**
 * Runs `work` in a transaction on one connection of the pool: committed when it resolves, rolled
 * back when it throws. A connection that failed is destroyed rather than handed back.
 *
 * @example
 * await transaction(pool, (tx) => tx.query(sql`SELECT pg_advisory_xact_lock(${1})`))
 */
export async function transaction<T>(pool: Pool, work: (tx: Db) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  // A connection lost while it is checked out fails its queries, and also emits 'error', which
  // the pool listens to only while the connection is idle: unheard, it would end the process.
  const lost = () => {}
  client.on('error', lost)
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    client.removeListener('error', lost)
    client.release()
    return result
  } catch (error) {
    // The rollback may fail too (the connection is gone): the first error is the one to tell.
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      () => false,
    )
    client.removeListener('error', lost)
    client.release(!rolledBack)
    throw error
  }
}

/**
 * `(column, …) VALUES (…), (…)` for objects of the same keys (the store's own column names).
 *
 * @example
 * await db.query(sql`INSERT INTO sendbox_faults ${valuesOf([{ remaining: 1, fault: '{}' }])}`)
 */
export function valuesOf(objects: readonly Record<string, unknown>[]): Sql {
  const columns = Object.keys(objects[0] ?? {})
  return sql`(${raw(columns.join(', '))}) VALUES ${bulk(objects.map((o) => columns.map((c) => o[c])))}`
}
