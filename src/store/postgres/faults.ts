import { createBatcher } from '../../lib/batch.js'
import { asJson } from './text.js'
import { changed, type Db, prepared, rows, sql } from './client.js'
import type { FaultTable, StoredFault } from '../types.js'

type Row = { id: string; remaining: number; fault: Omit<StoredFault, 'id' | 'remaining'> }

const faultOf = (row: Row): StoredFault => ({ id: row.id, ...row.fault, remaining: row.remaining })

/**
 * The armed faults in `sendbox_faults`: `remaining` is a column, counted down with one UPDATE
 * that only succeeds while some are left, so `count` sends fail in total across processes.
 *
 * @example
 * const table = createFaultTable(pool)
 * const fault = await table.add({ status: 503, remaining: 3, match: {}, retryAfter: 1, createdAt }, 100)
 */
export function createFaultTable(db: Db): FaultTable {
  // Every send asks (a fault armed through another process a moment ago must fail it): sends
  // that ask while a read is under way share the next one.
  const lists = createBatcher(async (calls: readonly null[]) => {
    const armed = await rows<Row>(
      db,
      prepared(
        sql`SELECT id, remaining, fault FROM sendbox_faults WHERE remaining > 0 ORDER BY seq`,
      ),
    )
    const faults = armed.map(faultOf)
    return calls.map(() => [...faults])
  })
  return {
    list: () => lists.call(null),
    async add({ remaining, ...fault }, max) {
      // A SELECT's values say nothing of their type: each is cast to its column's.
      const [row] = await rows<Row>(
        db,
        sql`
        INSERT INTO sendbox_faults (remaining, fault)
        SELECT ${remaining}::int, ${asJson(fault)}::json
        WHERE (
          SELECT count(*) FROM sendbox_faults
          WHERE remaining > 0 AND fault->>'project' IS NOT DISTINCT FROM ${fault.project ?? null}
        ) < ${max}
        RETURNING id, remaining, fault`,
      )
      return row ? faultOf(row) : null
    },
    async clear(project) {
      if (project !== undefined) {
        // A project's own faults only (docs/team.md#projects-each-teams-mail-behind-its-own-tokens).
        return changed(db, sql`DELETE FROM sendbox_faults WHERE fault->>'project' = ${project}`)
      }
      const armed = await changed(db, sql`DELETE FROM sendbox_faults WHERE remaining > 0`)
      await db.query(sql`DELETE FROM sendbox_faults`)
      return armed
    },
    async countDown(id) {
      const [row] = await rows<Row>(
        db,
        sql`
        UPDATE sendbox_faults SET remaining = remaining - 1
        WHERE id = ${id} AND remaining > 0
        RETURNING id, remaining, fault`,
      )
      if (!row) return undefined
      if (row.remaining === 0)
        await db.query(sql`DELETE FROM sendbox_faults WHERE id = ${id} AND remaining = 0`)
      return faultOf(row)
    },
  }
}
