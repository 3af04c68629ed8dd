import type { JSONValue, Sql } from 'postgres'

/**
 * What PostgreSQL cannot hold as sent: text holds no NUL character, and jsonb no `\u0000`.
 * A send may carry either (JSON allows it, and the log keeps it), so the store writes every JSON
 * value as `json` (PostgreSQL keeps its text as given) and, in the columns that are only filtered
 * on, puts U+FFFF in place of NUL, as it does in the needles: one character for one, so a
 * substring matches as on the log.
 */

/** `text` with U+FFFF for each NUL: for filter columns and the needles compared with them. */
export const pgText = (text: string): string =>
  text.includes('\u0000') ? text.split('\u0000').join('\uffff') : text

/**
 * A value for a `json` column, sent as json (type 114) rather than the client's jsonb default.
 *
 * @example
 * await sql`INSERT INTO sendbox_rejections (rejection) VALUES (${asJson(sql, rejection)})`
 */
export const asJson = (sql: Sql, value: unknown) => sql.typed(value as JSONValue, 114)
