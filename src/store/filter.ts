import type { Address, MessageFilter, MessageRecord } from './types.js'

/**
 * Whether a record passes a filter. `position` is where the caller keeps the record (the message
 * log's index in its array), handed on to its `textOf`; a caller that keeps no texts leaves it out.
 */
export type RecordPredicate = (record: MessageRecord, position?: number) => boolean

/** A record's `SearchText`, by the record or by where its keeper holds it (see `compileFilter`). */
export type TextOf = (record: MessageRecord, position: number) => SearchText

/** `Name <address>`, or the bare address when there is no name: the form `to`/`from` filters search. */
export function formatAddress({ name, address }: Address): string {
  if (!name) return address
  // A name with specials is quoted, as it would be in a header.
  const shown = /[(),.:;<>@[\]\\"]/.test(name) ? `"${name.replace(/(["\\])/g, '\\$1')}"` : name
  return `${shown} <${address}>`
}

/**
 * What the text filters search in a record, each lower-cased once: `to` and `from` as
 * `formatAddress` writes them, `recipients` the bare addresses an exact `recipient` compares.
 */
export interface SearchText {
  readonly to: readonly string[]
  readonly recipients: readonly string[]
  readonly from: string
  readonly template: string
  readonly subject: string
}

/**
 * A record's `SearchText`. A caller that scans the same records again keeps these (the message
 * log does, per record): lower-casing and formatting each record's addresses at every scan was
 * most of a filtered list's CPU time over 5,000 records (4.9 ms of 5.3 per `?to=` read).
 *
 * @example searchTextOf(record).to // ['ada lovelace <ada@example.com>']
 */
export function searchTextOf(record: MessageRecord): SearchText {
  const to = record.to ?? []
  return {
    to: to.map((a) => formatAddress(a).toLowerCase()),
    recipients: to.map((a) => a.address.toLowerCase()),
    from: record.from != null ? formatAddress(record.from).toLowerCase() : '',
    template: (record.template ?? '').toLowerCase(),
    subject: (record.subject ?? '').toLowerCase(),
  }
}

/**
 * Turns a filter into a predicate. Compiling once per query means a scan over thousands of
 * records lower-cases and parses the filter once, not once per record. `limit`/`offset` are
 * paging, not matching, and are ignored here. `textOf` gives a record's lower-cased texts: a
 * store that keeps them passes its own (see `searchTextOf`), which gets the `position` the
 * predicate was given; only a filter on text asks.
 *
 * @example
 * const match = compileFilter({ to: 'ADA@' })
 * match(record) // true when a recipient's `Name <address>` contains `ada@`
 */
export function compileFilter(
  filter: MessageFilter = {},
  textOf: TextOf = searchTextOf,
): RecordPredicate {
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
  const byText = [to, recipient, from, template, subject].some((x) => x !== undefined)
  // A record without a `from` is found by no `from` filter, not even one of every record.
  const matchesText = (text: SearchText, record: MessageRecord) =>
    (template === undefined || text.template.includes(template)) &&
    (subject === undefined || text.subject.includes(subject)) &&
    (from === undefined || (record.from != null && text.from.includes(from))) &&
    (to === undefined || text.to.some((a) => a.includes(to))) &&
    (recipient === undefined || text.recipients.includes(recipient))

  return (record, position = -1) =>
    (project === undefined || record.project === project) &&
    (status === undefined || record.status === status) &&
    (!byText || matchesText(textOf(record, position), record)) &&
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
