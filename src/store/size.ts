import type { MessageRecord } from './types.js'

/**
 * The size of a record: about the length of its JSON line, which is what the log file, a list
 * answer and the event stream carry, and close to what it holds in memory. Measured once per
 * record. The file adapter and replay note the exact length of the line they serialise anyway;
 * without a file (`--memory`) it is estimated from the long strings, so that a send does not
 * serialise its record only to weigh it (that cost 2% of a send). Records are never changed once
 * stored, so a size never goes stale.
 */
const sizes = new WeakMap<MessageRecord, number>()

/** The fixed fields (id, dates, status, project, names of the keys), generously. */
const OVERHEAD = 400

/**
 * Estimates a record's JSON length: its HTML, text and variables (serialised; small unless a
 * caller sent large ones) plus the short fields. JSON escaping makes the real line a little
 * longer; the estimate is for bounding memory, not for billing.
 *
 * @example estimateRecordSize(record) // 5120
 */
export function estimateRecordSize(record: MessageRecord): number {
  let size =
    OVERHEAD +
    record.html.length +
    record.text.length +
    record.subject.length +
    record.template.length
  size += JSON.stringify(record.templateVariables).length
  for (const address of [record.from, ...record.to])
    size += 32 + address.address.length + (address.name?.length ?? 0)
  for (const warning of record.warnings)
    size += 48 + warning.message.length + (warning.variable?.length ?? 0)
  for (const release of record.releases ?? [])
    size += 64 + release.response.length + JSON.stringify([release.to, release.rejected]).length
  return size
}

/**
 * @example recordSize(record) // 5321
 */
export function recordSize(record: MessageRecord): number {
  let size = sizes.get(record)
  if (size === undefined) {
    size = estimateRecordSize(record)
    sizes.set(record, size)
  }
  return size
}

/**
 * Notes the exact size of a line already serialised (`line` without its newline).
 *
 * @example noteRecordLine(record, JSON.stringify(record))
 */
export function noteRecordLine(record: MessageRecord, line: string): void {
  sizes.set(record, line.length + 1)
}
