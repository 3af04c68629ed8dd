import type { Sql } from 'postgres'
import { createBatcher } from '../../lib/batch.js'
import { asJson } from './text.js'
import type { FaultTable, StoredFault } from '../types.js'

type Row = { id: string; remaining: number; fault: Omit<StoredFault, 'id' | 'remaining'> }

const faultOf = (row: Row): StoredFault => ({ id: row.id, ...row.fault, remaining: row.remaining })

/**
 * The armed faults in `sendbox_faults`: `remaining` is a column, counted down with one UPDATE
 * that only succeeds while some are left, so `count` sends fail in total across processes.
 *
 * @example
 * const table = createFaultTable(sql)
 * const fault = await table.add({ status: 503, remaining: 3, match: {}, retryAfter: 1, createdAt }, 100)
 */
export function createFaultTable(sql: Sql): FaultTable {
  // Every send asks (a fault armed through another process a moment ago must fail it): sends
  // that ask while a read is under way share the next one.
  const lists = createBatcher(async (calls: readonly null[]) => {
    const rows = await sql<Row[]>`
      SELECT id, remaining, fault FROM sendbox_faults WHERE remaining > 0 ORDER BY seq`
    const faults = rows.map(faultOf)
    return calls.map(() => [...faults])
  })
  return {
    list: () => lists.call(null),
    async add({ remaining, ...fault }, max) {
      const rows = await sql<Row[]>`
        INSERT INTO sendbox_faults (remaining, fault)
        SELECT ${remaining}, ${asJson(sql, fault)}
        WHERE (
          SELECT count(*) FROM sendbox_faults
          WHERE remaining > 0 AND fault->>'project' IS NOT DISTINCT FROM ${fault.project ?? null}
        ) < ${max}
        RETURNING id, remaining, fault`
      return rows[0] ? faultOf(rows[0]) : null
    },
    async clear(project) {
      if (project !== undefined) {
        // A project's own faults only (docs/team.md#projects-each-teams-mail-behind-its-own-tokens).
        const result = await sql`DELETE FROM sendbox_faults WHERE fault->>'project' = ${project}`
        return result.count
      }
      const result = await sql`DELETE FROM sendbox_faults WHERE remaining > 0`
      await sql`DELETE FROM sendbox_faults`
      return result.count
    },
    async countDown(id) {
      const rows = await sql<Row[]>`
        UPDATE sendbox_faults SET remaining = remaining - 1
        WHERE id = ${id} AND remaining > 0
        RETURNING id, remaining, fault`
      if (!rows[0]) return undefined
      if (rows[0].remaining === 0)
        await sql`DELETE FROM sendbox_faults WHERE id = ${id} AND remaining = 0`
      return faultOf(rows[0])
    },
  }
}
