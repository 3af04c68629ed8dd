import type { MessageRecord } from './types.js'

/**
 * The size of a record: the length of its JSON line, which is what the log file, a list answer
 * and the event stream carry, and close to what it holds in memory. Measured once per record:
 * the file adapter and replay note the line they already have, and anything else serialises it
 * on first use. Records are never changed once stored, so the size never goes stale.
 */
const sizes = new WeakMap<MessageRecord, number>()

/**
 * @example recordSize(record) // 5321
 */
export function recordSize(record: MessageRecord): number {
  let size = sizes.get(record)
  if (size === undefined) {
    size = JSON.stringify(record).length + 1
    sizes.set(record, size)
  }
  return size
}

/**
 * Notes the size of a line already serialised (`line` without its newline).
 *
 * @example noteRecordLine(record, JSON.stringify(record))
 */
export function noteRecordLine(record: MessageRecord, line: string): void {
  sizes.set(record, line.length + 1)
}
