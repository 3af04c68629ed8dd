import type { MessageRecord, Release } from './types.js'

/**
 * How a record keeps its releases (a message sent on through the relay). `releases` goes just
 * before `recipients`, which stays the record's last key: compaction rewrites a record changed
 * by delivery events from its older line only when that line ends with `recipients`
 * (`withNewStates` in compaction.ts), and a release must not cost it that.
 */

/**
 * The record with the release added, as a new object; `record` is left as it was.
 *
 * @example
 * const next = withRelease(record, { to: ['me@acme.test'], at, rejected: [], response: '250 Ok' })
 * next.releases?.length // 1
 */
export function withRelease(record: MessageRecord, release: Release): MessageRecord {
  const { releases, recipients, ...rest } = record
  return { ...rest, releases: [...(releases ?? []), release], recipients }
}

/** The same, in place: the log's replay owns its records. */
export function applyReleaseInPlace(record: MessageRecord, release: Release): void {
  const { recipients } = record
  // Taken out and put back, so that it stays the last key (see above).
  Reflect.deleteProperty(record, 'recipients')
  record.releases = [...(record.releases ?? []), release]
  record.recipients = recipients
}
