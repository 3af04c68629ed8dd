import * as v from 'valibot'
import {
  enumOf,
  FIELD,
  integer,
  object,
  optional,
  parse,
  rule,
  shown,
  string,
} from '../lib/schema.js'
import { isTimeText, TIME_HINT } from '../lib/time.js'
import { MESSAGE_STATUSES } from '../store/index.js'
import type { MessageFilter } from '../store/types.js'

/**
 * A message filter handed over by the programmatic API, checked before it reaches the log. The
 * log takes a filter it cannot read for "no filter": `sandbox.clear({ since: 'tomorrow' })` once
 * deleted every message, and so did a key misspelt in plain JavaScript. `fail()` and
 * `simulate()` throw a `TypeError` for bad input; the filtered calls do the same.
 */

/** A time `since` can hold: what the inspector's `since` parameter accepts. */
const time = () =>
  v.pipe(
    string(),
    rule(
      'invalid_value',
      isTimeText,
      (issue) => `${FIELD} must be ${TIME_HINT}; got ${shown(issue.input, 100)}.`,
    ),
  )

const text = () => optional(string())

export const MESSAGE_FILTER = object({
  to: text(),
  recipient: text(),
  from: text(),
  template: text(),
  subject: text(),
  project: text(),
  since: optional(time()),
  status: optional(enumOf(MESSAGE_STATUSES)),
  after: text(),
  limit: optional(integer({ minimum: 0 })),
  offset: optional(integer({ minimum: 0 })),
})

/**
 * The filter, checked: every problem at once in one `TypeError` naming the call. `undefined`
 * is no filter; a key whose value is `undefined` counts as absent (`{ to: process.env.TO }`).
 *
 * @example
 * parseMessageFilter({ since: 'tomorrow' }, 'sandbox.clear()')
 * // TypeError: sandbox.clear(): the filter is not valid: since must be an RFC 3339 time …
 */
export function parseMessageFilter(filter: unknown, call: string): MessageFilter {
  if (filter === undefined) return {}
  const defined =
    filter !== null && typeof filter === 'object' && !Array.isArray(filter)
      ? Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined))
      : filter
  const parsed = parse(MESSAGE_FILTER, defined)
  if (parsed.ok) return parsed.value
  throw new TypeError(
    `${call}: the filter is not valid: ${parsed.problems.map((p) => p.message).join(' ')}`,
  )
}
