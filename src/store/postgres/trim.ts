import { createBatcher } from '../../lib/batch.js'
import { textArray } from './filter.js'
import { type Db, rows, type Sql, sql } from './client.js'

/**
 * Drops the oldest messages of the sandbox past `max`, counting them in `dropped`, and says of
 * the messages just appended which are still stored. Sends that commit together share one trim
 * (one statement, createBatcher): each waits for a trim that began after its commit, so when a
 * send resolves the sandbox holds at most `max` (as on the log, where the drop follows the
 * write), and the same statement answers whether each is still there (a clear, a delete or this
 * trim may have removed it since its commit), which the send needs before it tells the waits and
 * the inbox.
 *
 * @example
 * const trimmer = createTrimmer(pool, 5000)
 * await trimmer.trim('msg_01…') // true: still stored
 */
export function createTrimmer(db: Db, max: number) {
  const trims = createBatcher(async (ids: readonly string[]) => {
    const kept = await rows<{ id: string }>(db, trimStatement(max, ids))
    const stored = new Set(kept.map((row) => row.id))
    return ids.map((id) => stored.has(id))
  })
  return {
    /** Trims after `id`'s commit; resolves whether `id` is still stored then. */
    trim: (id: string): Promise<boolean> => trims.call(id),
    idle: trims.idle,
  }
}

/**
 * The trim's one statement: drops the oldest past `max` and answers which of `ids` are still
 * stored.
 *
 * How many the sandbox holds is one row (the triggers of schema.ts keep it), so the cut is the
 * oldest `stored - max` entries of the primary key, walked from its old end: nothing under the
 * cap. (It was the newest `max` entries, walked from the new end at every trim: 0.5 ms of the
 * database's time per trim at --max-messages 5000, bench:team.) Two processes trimming at once
 * pick the same oldest rows: one deletes them, the other finds them gone and deletes nothing,
 * and the count drops once. The last SELECT sees the table as the statement began (one snapshot
 * for all of it): a message this trim drops is told apart by its seq. The rows go by
 * `= ANY(ARRAY(…))`: with `IN (SELECT …)` the planner, which cannot know the LIMIT, joined the
 * cut to a scan of the whole table (a send at the cap of 200,000 took 139 ms; EXPLAIN ANALYZE).
 *
 * @example
 * const kept = await rows(pool, trimStatement(5000, ['msg_1'])) // [{ id: 'msg_1' }]
 */
export function trimStatement(max: number, ids: readonly string[]): Sql {
  return sql`
    WITH cut AS (
      SELECT seq FROM sendbox_messages ORDER BY seq
      LIMIT greatest((SELECT value FROM sendbox_counters WHERE name = 'stored') - ${max}, 0)),
    gone AS (
      DELETE FROM sendbox_messages WHERE seq = ANY(ARRAY(SELECT seq FROM cut)) RETURNING seq),
    counted AS (
      UPDATE sendbox_counters SET value = value + (SELECT count(*) FROM gone)
      WHERE name = 'dropped' AND EXISTS (SELECT 1 FROM gone))
    SELECT id FROM sendbox_messages
    WHERE id = ANY(${textArray(ids)}::text[]) AND seq NOT IN (SELECT seq FROM gone)`
}
