import type { Sql } from 'postgres'

/**
 * Drops the oldest messages of the sandbox past `max`, counting them in `dropped`. Sends that
 * commit together share one trim: each waits for a trim that began after its commit, so when a
 * send resolves the sandbox holds at most `max` (as on the log, where the drop follows the write).
 * The cut is found on the primary key's index (the newest `max` entries), whatever the table holds,
 * and only once the seqs span more than `max`.
 *
 * @example
 * const trimmer = createTrimmer(sql, 5000)
 * await trimmer.trim()
 */
export function createTrimmer(sql: Sql, max: number) {
  let running: Promise<void> | null = null
  let next: Promise<void> | null = null
  const once = async () => {
    // Finding the cut walks `max` entries of the index (137 ms at 200,000 on a loaded machine),
    // so it is skipped while the span of seqs, which no count can exceed, is within `max`: two
    // index lookups (0.15 ms), so a sandbox under its cap pays nothing whatever it holds.
    const result = await sql`
      WITH cut AS (
        SELECT seq FROM sendbox_messages
        WHERE (SELECT max(seq) - min(seq) + 1 FROM sendbox_messages) > ${max}
        ORDER BY seq DESC OFFSET ${max} LIMIT 1),
      gone AS (DELETE FROM sendbox_messages WHERE seq <= (SELECT seq FROM cut) RETURNING 1)
      UPDATE sendbox_counters SET value = value + (SELECT count(*) FROM gone)
      WHERE name = 'dropped' AND (SELECT count(*) FROM gone) > 0`
    return void result
  }
  const start = (): Promise<void> => {
    running = once().finally(() => {
      running = null
    })
    return running
  }
  return {
    trim(): Promise<void> {
      if (!running) return start()
      // One is under way (it may have begun before this commit): the one after it serves all
      // who arrive meanwhile.
      next ??= running
        .catch(() => {})
        .then(() => {
          next = null
          return start()
        })
      return next
    },
    idle: async () => {
      await next?.catch(() => {})
      await running?.catch(() => {})
    },
  }
}
