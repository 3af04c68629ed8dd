import { asJson } from './text.js'
import { changed, type Db, rows, sql } from './client.js'
import type { JsonObject, RejectionTable } from '../types.js'

/** Rows kept beyond the newest the domain lists: trimmed in batches, not at every insert. */
const SLACK = 100

/**
 * Rejected sends in `sendbox_rejections`, the newest `max` of each project kept (and up to a batch
 * more); those without a valid token (no project) are kept apart.
 *
 * @example
 * const table = createRejectionTable(pool, 100)
 * await table.add({ id: 'rej_1', project: null, status: 401, … })
 */
export function createRejectionTable(db: Db, max: number): RejectionTable {
  let added = 0
  return {
    async add(rejection) {
      await db.query(sql`
        INSERT INTO sendbox_rejections (project, rejection)
        VALUES (${rejection.project}, ${asJson(rejection)})`)
      if (++added % SLACK !== 0) return
      // The newest `max` of each project (null, a send without a valid token, is one of its own).
      await db.query(sql`
        DELETE FROM sendbox_rejections WHERE seq IN (
          SELECT seq FROM (
            SELECT seq, row_number() OVER (PARTITION BY project ORDER BY seq DESC) AS n
            FROM sendbox_rejections) ranked
          WHERE n > ${max})`)
    },
    async list(limit) {
      // Each project's newest `limit` (the trim above lags by up to a batch).
      const listed = await rows<{ rejection: JsonObject }>(
        db,
        sql`
        SELECT rejection FROM (
          SELECT rejection, seq, row_number() OVER (PARTITION BY project ORDER BY seq DESC) AS n
          FROM sendbox_rejections) ranked
        WHERE n <= ${limit} ORDER BY seq DESC`,
      )
      return listed.map((row) => row.rejection)
    },
    async clear(project) {
      return changed(
        db,
        project === undefined
          ? sql`DELETE FROM sendbox_rejections`
          : sql`DELETE FROM sendbox_rejections WHERE project = ${project}`,
      )
    },
  }
}
