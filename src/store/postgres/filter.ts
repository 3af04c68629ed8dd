import { bareAddress, formatAddress } from '../filter.js'
import type { MessageFilter, MessageRecord } from '../types.js'
import { pgText } from './text.js'
import { sql, type Sql } from './client.js'

/**
 * The message filters as SQL, with the JSON Lines log's meaning (src/store/filter.ts): text
 * filters are case-insensitive substrings, matched with LIKE on columns lower-cased by
 * JavaScript as the log lower-cases them (so both stores fold the same characters), and served by
 * trigram indexes; `recipient` is exact, on an array of bare addresses (a GIN index).
 */

/** `to`'s addresses joined by a character no needle holds: a match never spans two of them. */
const JOIN = '\u0001'

/** The columns a record is filtered by, as the store writes them. */
export function filterColumns(record: MessageRecord) {
  return {
    template_lc: pgText(record.template.toLowerCase()),
    subject_lc: pgText(record.subject.toLowerCase()),
    from_lc: record.from ? pgText(formatAddress(record.from).toLowerCase()) : '',
    to_lc: pgText((record.to ?? []).map((a) => formatAddress(a).toLowerCase()).join(JOIN)),
    recipients: textArray((record.to ?? []).map((a) => pgText(a.address.toLowerCase()))),
  }
}

/**
 * A text[] literal (`{"a@x.test","b@x.test"}`): each element quoted, `"` and `\\` escaped, sent
 * as one text value and cast to text[] in the statement.
 *
 * @example textArray(['ada@example.com']) // '{"ada@example.com"}'
 */
export const textArray = (items: readonly string[]): string =>
  `{${items.map((item) => `"${item.replace(/["\\]/g, '\\$&')}"`).join(',')}}`

const like = (text: string) => `%${pgText(text.toLowerCase()).replace(/[\\%_]/g, '\\$&')}%`

/**
 * `WHERE`'s condition for a filter (`TRUE` for none); limit and offset are paging, not matching.
 *
 * @example
 * await rows(db, sql`SELECT count(*) FROM sendbox_messages WHERE ${conditionOf({ to: 'ada' })}`)
 */
export function conditionOf(filter: MessageFilter = {}): Sql {
  const parts: Sql[] = []
  if (filter.project) parts.push(sql`project = ${filter.project}`)
  if (filter.status) parts.push(sql`status = ${filter.status}`)
  if (filter.template) parts.push(sql`template_lc LIKE ${like(filter.template)}`)
  if (filter.subject) parts.push(sql`subject_lc LIKE ${like(filter.subject)}`)
  if (filter.from) parts.push(sql`from_lc LIKE ${like(filter.from)}`)
  if (filter.to) parts.push(sql`to_lc LIKE ${like(filter.to)}`)
  if (filter.recipient)
    parts.push(sql`recipients @> ARRAY[${pgText(bareAddress(filter.recipient))}]::text[]`)
  // A cursor is a seq (store.ts); one that is not is after every message stored so far.
  if (filter.after !== undefined)
    parts.push(/^\d{1,15}$/.test(filter.after) ? sql`seq > ${filter.after}` : sql`FALSE`)
  if (filter.since) {
    // As on the log: an unreadable time matches nothing, never everything.
    const since = Date.parse(filter.since)
    parts.push(Number.isNaN(since) ? sql`FALSE` : sql`created_at >= ${new Date(since)}`)
  }
  return parts.reduce((all, part) => sql`${all} AND ${part}`, sql`TRUE`)
}
