import type { Address, MessageFilter, MessageRecord } from './types.js'

export type RecordPredicate = (record: MessageRecord) => boolean

/** `Name <address>`, or the bare address when there is no name: the form `to`/`from` filters search. */
export function formatAddress({ name, address }: Address): string {
  if (!name) return address
  // A name with specials is quoted, as it would be in a header.
  const shown = /[(),.:;<>@[\]\\"]/.test(name) ? `"${name.replace(/(["\\])/g, '\\$1')}"` : name
  return `${shown} <${address}>`
}

/**
 * Turns a filter into a predicate. Compiling once per query means a scan over thousands of
 * records lower-cases and parses the filter once, not once per record. `limit`/`offset` are
 * paging, not matching, and are ignored here.
 */
export function compileFilter(filter: MessageFilter = {}): RecordPredicate {
  const to = needle(filter.to)
  const recipient = filter.recipient ? bareAddress(filter.recipient) : undefined
  const from = needle(filter.from)
  const template = needle(filter.template)
  const subject = needle(filter.subject)
  const project = filter.project || undefined
  const status = filter.status || undefined
  // The callers refuse an unreadable `since`; one that gets here anyway matches nothing (NaN
  // compares false), never everything: taken for "no filter", it once made a clear delete all.
  const hasSince = Boolean(filter.since)
  const since = hasSince ? Date.parse(filter.since!) : 0

  return (record) =>
    (project === undefined || record.project === project) &&
    (status === undefined || record.status === status) &&
    (template === undefined || contains(record.template, template)) &&
    (subject === undefined || contains(record.subject, subject)) &&
    (from === undefined || (record.from != null && contains(formatAddress(record.from), from))) &&
    (to === undefined || (record.to ?? []).some((a) => contains(formatAddress(a), to))) &&
    (recipient === undefined ||
      (record.to ?? []).some((a) => a.address.toLowerCase() === recipient)) &&
    (!hasSince || Date.parse(record.createdAt) >= since)
}

/** Whether a record passes a filter (see `compileFilter`). Pure. */
export function matchesFilter(record: MessageRecord, filter: MessageFilter): boolean {
  return compileFilter(filter)(record)
}

/** True when the filter selects every record (no criteria, or only empty ones). */
export function isEmptyFilter(filter: MessageFilter | undefined): boolean {
  if (!filter) return true
  const { to, recipient, from, template, subject, project, since, status, after } = filter
  return (
    !to && !recipient && !from && !template && !subject && !project && !status && !since && !after
  )
}

/**
 * The address an exact `recipient` filter means, lower-cased: `Ada <ada@example.com>` and
 * ` ADA@example.com ` both mean `ada@example.com`.
 *
 * @example bareAddress('Ada <Ada@Example.com>') // 'ada@example.com'
 */
export function bareAddress(value: string): string {
  return (/<([^<>]*)>\s*$/.exec(value)?.[1] ?? value).trim().toLowerCase()
}

function needle(value: string | undefined): string | undefined {
  return value ? value.toLowerCase() : undefined
}

function contains(haystack: string | undefined, lowerNeedle: string): boolean {
  return (haystack ?? '').toLowerCase().includes(lowerNeedle)
}
