import type { Sql } from 'postgres'
import { asJson } from './text.js'
import type { JsonObject, RejectionTable } from '../types.js'

/** Rows kept beyond the newest the domain lists: trimmed in batches, not at every insert. */
const SLACK = 100

/**
 * Rejected sends in `sendbox_rejections`, the newest `max` kept (and up to a batch more).
 *
 * @example
 * const table = createRejectionTable(sql, 100)
 * await table.add({ id: 'rej_1', project: null, status: 401, … })
 */
export function createRejectionTable(sql: Sql, max: number): RejectionTable {
  let added = 0
  return {
    async add(rejection) {
      await sql`
        INSERT INTO sendbox_rejections (project, rejection)
        VALUES (${rejection.project}, ${asJson(sql, rejection)})`
      if (++added % SLACK !== 0) return
      await sql`
        DELETE FROM sendbox_rejections WHERE seq < (
          SELECT seq FROM sendbox_rejections ORDER BY seq DESC OFFSET ${max} LIMIT 1)`
    },
    async list(limit) {
      const rows = await sql<{ rejection: JsonObject }[]>`
        SELECT rejection FROM sendbox_rejections ORDER BY seq DESC LIMIT ${limit}`
      return rows.map((row) => row.rejection)
    },
    async clear(project) {
      const result =
        project === undefined
          ? await sql`DELETE FROM sendbox_rejections`
          : await sql`DELETE FROM sendbox_rejections WHERE project = ${project}`
      return result.count
    },
  }
}
