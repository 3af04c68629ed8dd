import { createBatcher } from '../../lib/batch.js'
import { textArray } from './filter.js'
import { type Db, prepared, rows, type Sql, sql } from './client.js'
import { DROPPED_PREFIX } from './project-counts.js'

/**
 * Drops the oldest messages of the sandbox past `max`, counting them in `dropped` (and each
 * project's in its own counter, project-counts.ts), and says of
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
    const kept = await rows<{ id: string }>(db, prepared(trimStatement(max, ids)))
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
 * What it dropped is counted in all (`dropped`) and per project (project-counts.ts) by one
 * INSERT over the counter rows in the order of their names: two trims at once take the rows'
 * locks in the same order, so neither waits on the other in a circle.
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
      DELETE FROM sendbox_messages WHERE seq = ANY(ARRAY(SELECT seq FROM cut))
      RETURNING seq, project),
    counted AS (
      INSERT INTO sendbox_counters (name, value)
      SELECT name, n FROM (
        SELECT 'dropped' AS name, count(*) AS n FROM gone
        UNION ALL
        SELECT ${DROPPED_PREFIX}::text || project, count(*) FROM gone GROUP BY project) AS counts
      WHERE n > 0 ORDER BY name
      ON CONFLICT (name) DO UPDATE SET value = sendbox_counters.value + excluded.value)
    SELECT id FROM sendbox_messages
    WHERE id = ANY(${textArray(ids)}::text[]) AND seq NOT IN (SELECT seq FROM gone)`
}
