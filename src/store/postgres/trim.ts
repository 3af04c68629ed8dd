import type { Sql } from 'postgres'
import { createBatcher } from '../../lib/batch.js'
import { textArray } from './filter.js'

/**
 * Drops the oldest messages of the sandbox past `max`, counting them in `dropped`, and says of
 * the messages just appended which are still stored. Sends that commit together share one trim
 * (one statement, createBatcher): each waits for a trim that began after its commit, so when a send resolves
 * the sandbox holds at most `max` (as on the log, where the drop follows the write), and the same
 * statement answers whether each is still there (a clear, a delete or this trim may have removed
 * it since its commit), which the send needs before it tells the waits and the inbox. The cut is
 * found on the primary key's index (the newest `max` entries), whatever the table holds, and only
 * once the seqs span more than `max`.
 *
 * @example
 * const trimmer = createTrimmer(sql, 5000)
 * await trimmer.trim('msg_01…') // true: still stored
 */
export function createTrimmer(sql: Sql, max: number) {
  const once = async (ids: readonly string[]): Promise<Set<string>> => {
    // Finding the cut walks `max` entries of the index (137 ms at 200,000 on a loaded machine),
    // so it is skipped while the span of seqs, which no count can exceed, is within `max`: two
    // index lookups (0.15 ms), so a sandbox under its cap pays nothing whatever it holds. The
    // last SELECT sees the table as the statement began (one snapshot for all of it): a message
    // this trim drops is told apart by its seq.
    const rows = await sql<{ id: string }[]>`
      WITH cut AS (
        SELECT seq FROM sendbox_messages
        WHERE (SELECT max(seq) - min(seq) + 1 FROM sendbox_messages) > ${max}
        ORDER BY seq DESC OFFSET ${max} LIMIT 1),
      gone AS (DELETE FROM sendbox_messages WHERE seq <= (SELECT seq FROM cut) RETURNING 1),
      counted AS (
        UPDATE sendbox_counters SET value = value + (SELECT count(*) FROM gone)
        WHERE name = 'dropped' AND (SELECT count(*) FROM gone) > 0)
      SELECT id FROM sendbox_messages
      WHERE id = ANY(${textArray(ids)}::text[]) AND seq > coalesce((SELECT seq FROM cut), 0)`
    return new Set(rows.map((row) => row.id))
  }
  const trims = createBatcher(async (ids: readonly string[]) => {
    const stored = await once(ids)
    return ids.map((id) => stored.has(id))
  })
  return {
    /** Trims after `id`'s commit; resolves whether `id` is still stored then. */
    trim: (id: string): Promise<boolean> => trims.call(id),
    idle: trims.idle,
  }
}
