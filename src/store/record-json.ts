import type { MessageRecord } from './types.js'

/**
 * A record's JSON, serialised once. The log serialises a record when it appends it; the event
 * stream's `message` frame, built right after the append resolves, carries the same JSON, so it
 * takes that line instead of serialising the record again. The line is held only until the
 * append's batch has been published (the next turn of the event loop): holding it for as long as
 * the record lives would double the memory of every stored message, and compaction does not need
 * it (it copies the line's bytes from the file).
 */
const fresh = new WeakMap<MessageRecord, string>()

/**
 * The record's JSON: the line the log just wrote for it if there is one, else serialised now.
 * Records are never changed once stored, so the line is the record.
 *
 * @example `data: ${recordJson(event.record)}\n\n`
 */
export function recordJson(record: MessageRecord): string {
  return fresh.get(record) ?? JSON.stringify(record)
}

/** Holds `line` (`JSON.stringify(record)`) for `recordJson` until `releaseRecordLines`. */
export function holdRecordLine(record: MessageRecord, line: string): void {
  fresh.set(record, line)
}

/** Lets go of the lines of these records on the next turn, once whoever awaited their append has run. */
export function releaseRecordLines(records: readonly MessageRecord[]): void {
  if (records.length === 0) return
  setImmediate(() => {
    for (const record of records) fresh.delete(record)
  })
}
