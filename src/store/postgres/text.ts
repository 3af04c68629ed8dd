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
 * A value for a `json` column: its JSON text, which PostgreSQL takes as json where the column or
 * a cast says so (pg sends a string as it is, not quoted, and an array as a PostgreSQL array).
 *
 * @example
 * await db.query(sql`INSERT INTO sendbox_rejections (rejection) VALUES (${asJson(rejection)})`)
 */
export const asJson = (value: unknown): string => JSON.stringify(value ?? null)
