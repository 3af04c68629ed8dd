import type { Cleared } from '../types.js'
import { type Db, rows, type Sql, sql } from './client.js'

/**
 * What one project reads of the sandbox's figures (docs/team.md: a project's token reads its
 * own): its messages' bytes, and how many of its messages `--max-messages` dropped. Each its
 * own query, beside the sandbox's totals in store.ts.
 */

/**
 * The counter rows of each project's dropped messages are named this and the project
 * (`dropped` alone is the sandbox's); trim.ts adds to them.
 */
export const DROPPED_PREFIX = 'dropped:'

/**
 * The bytes of one project's messages: its rows only, by the (project, seq) index.
 *
 * @example await projectBytes(pool, 'acme') // 5166
 */
export async function projectBytes(db: Db, project: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    db,
    sql`SELECT coalesce(sum(bytes), 0)::float8 AS n FROM sendbox_messages WHERE project = ${project}`,
  )
  return row!.n
}

/**
 * How many of one project's messages the trim dropped (its row of sendbox_counters, none
 * until the first).
 *
 * @example await projectDropped(pool, 'acme') // 3
 */
export async function projectDropped(db: Db, project: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    db,
    sql`SELECT value::float8 AS n FROM sendbox_counters WHERE name = ${DROPPED_PREFIX + project}`,
  )
  return row?.n ?? 0
}

/**
 * Deletes the messages `where` picks and answers how many went, in all and of each project, in
 * one statement.
 *
 * @example await clearCounted(pool, sql`template_lc = 'welcome'`) // { count: 3, byProject: { acme: 3 } }
 */
export async function clearCounted(db: Db, where: Sql): Promise<Cleared> {
  const counted = await rows<{ project: string; n: number }>(
    db,
    sql`
    WITH gone AS (DELETE FROM sendbox_messages WHERE ${where} RETURNING project)
    SELECT project, count(*)::int AS n FROM gone GROUP BY project`,
  )
  const byProject: Record<string, number> = {}
  for (const { project, n } of counted) byProject[project] = n
  return { count: counted.reduce((sum, row) => sum + row.n, 0), byProject }
}
