/** The time forms sendbox reads in filters (`since`): RFC 3339, or a date alone (midnight UTC). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/

/**
 * Whether `value` is an RFC 3339 time or a date that names a real moment (`2026-13-45` has
 * the form but not the moment).
 *
 * @example
 * isTimeText('2026-11-21T10:00:00Z') // true
 * isTimeText('tomorrow')             // false
 */
export function isTimeText(value: string): boolean {
  return RFC3339.test(value) && !Number.isNaN(Date.parse(value))
}

/** What `isTimeText` accepts, in words, for an error message. */
export const TIME_HINT =
  'an RFC 3339 time such as 2026-11-21T10:00:00Z, or a date such as 2026-11-21'
