import type { MessageFilter, MessageRecord } from '../store/types.js'
import type { MessageSummary } from './types.js'
import { FILTER_QUERY, PAGING_QUERY } from '../http/message-query.js'

/** Reading the message query (defined in src/http/message-query.ts) for the store. */

export {
  AFTER_QUERY,
  CURSOR_QUERY,
  FIELDS_QUERY,
  FILTER_QUERY,
  LIST_DEFAULT_LIMIT,
  LIST_MAX_LIMIT,
  PAGING_QUERY,
  TIMEOUT_QUERY,
} from '../http/message-query.js'

/** The query's names that the store's filter takes: worked out once, not per name per request. */
const FILTER_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(FILTER_QUERY),
  ...Object.keys(PAGING_QUERY),
])

/** Parsed filter values → the store's filter (absent ones left out). */
export function filterOf(
  query: Partial<
    Record<keyof typeof FILTER_QUERY | keyof typeof PAGING_QUERY, string | number | undefined>
  >,
): MessageFilter {
  const filter: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && FILTER_NAMES.has(name)) filter[name] = value
  return filter as MessageFilter
}

/**
 * A record without its bodies (`html`, `text`, `templateVariables`): what `?fields=summary`
 * answers, in the list and on the event stream.
 *
 * @example summaryOf(record) // { id, status, template, from, to, subject, createdAt, … }
 */
export function summaryOf(record: MessageRecord): MessageSummary {
  const { html: _html, text: _text, templateVariables: _variables, ...summary } = record
  return summary
}
