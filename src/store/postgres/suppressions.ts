import { createBatcher } from '../../lib/batch.js'
import { textArray } from './filter.js'
import { asJson, pgText } from './text.js'
import { type Db, prepared, rows, sql, valuesOf } from './client.js'
import type { MessageStore, Suppression, SuppressionFilter } from '../types.js'

type SuppressionMethods = Pick<
  MessageStore,
  'suppression' | 'suppressions' | 'suppress' | 'unsuppress'
>

/**
 * The suppression list in `sendbox_suppressions`, one row per project and address.
 *
 * @example
 * const table = createSuppressionRows(pool)
 * await table.suppress({ address: 'ada@example.com', project, reason: 'bounced', createdAt })
 */
export function createSuppressionRows(db: Db): SuppressionMethods {
  // Each delivery step asks of its recipients: the steps that ask while a lookup is under way
  // share the next one.
  const lookups = createBatcher(async (keys: readonly { project: string; address: string }[]) => {
    const found = await rows<{ project: string; address: string; entry: Suppression }>(
      db,
      prepared(sql`
      SELECT project, address, entry FROM sendbox_suppressions
      WHERE (project, address) IN (SELECT * FROM unnest(
        ${textArray(keys.map((k) => k.project))}::text[],
        ${textArray(keys.map((k) => pgText(k.address)))}::text[]))`),
    )
    const entries = new Map(found.map((row) => [`${row.project}\n${row.address}`, row.entry]))
    return keys.map((key) => entries.get(`${key.project}\n${key.address}`))
  })
  // Suppressions made side by side (a delivery step that bounces several recipients) are listed
  // in the order they were made, as on the log: one statement per batch, its rows in call order.
  // Each its own statement, they were numbered in whichever order they reached the database.
  const inserts = createBatcher(async (entries: readonly Suppression[]) => {
    await insertSuppressions(db, entries)
    return entries.map(() => undefined)
  })
  return {
    suppression: (project, address) => lookups.call({ project, address: address.toLowerCase() }),
    async suppressions(filter = {}) {
      const listed = await rows<{ entry: Suppression }>(
        db,
        sql`
        SELECT entry FROM sendbox_suppressions WHERE ${suppressionCondition(filter)}
        ORDER BY seq DESC`,
      )
      return listed.map((row) => row.entry)
    },
    suppress: (entry) => inserts.call({ ...entry, address: entry.address.toLowerCase() }),
    async unsuppress(filter = {}) {
      const deleted = await rows<{ entry: Suppression; seq: string }>(
        db,
        sql`
        DELETE FROM sendbox_suppressions WHERE ${suppressionCondition(filter)}
        RETURNING entry, seq`,
      )
      // Oldest first, as the log answers.
      return deleted
        .sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1))
        .map((row) => row.entry)
    },
  }
}

/**
 * Writes suppressions in one statement, in order: a refreshed entry moves to the newest place,
 * as on the log, and of one address listed twice the later is kept (one statement may not
 * change a row twice).
 *
 * @example
 * await insertSuppressions(pool, [{ address: 'ada@example.com', project, reason: 'bounced', createdAt }])
 */
async function insertSuppressions(db: Db, entries: readonly Suppression[]): Promise<void> {
  const last = new Map(entries.map((entry) => [`${entry.project}\n${entry.address}`, entry]))
  const values = [...last.values()]
    .sort((a, b) => entries.lastIndexOf(a) - entries.lastIndexOf(b))
    .map((entry) => ({
      project: entry.project,
      address: pgText(entry.address),
      entry: asJson(entry),
    }))
  await db.query(sql`
    INSERT INTO sendbox_suppressions ${valuesOf(values)}
    ON CONFLICT (project, address) DO UPDATE
    SET entry = EXCLUDED.entry,
        seq = nextval(pg_get_serial_sequence('sendbox_suppressions', 'seq'))`)
}

function suppressionCondition(filter: SuppressionFilter) {
  const project = filter.project === undefined ? sql`TRUE` : sql`project = ${filter.project}`
  const address =
    filter.address === undefined
      ? sql`TRUE`
      : sql`address = ${pgText(filter.address.toLowerCase())}`
  return sql`${project} AND ${address}`
}
