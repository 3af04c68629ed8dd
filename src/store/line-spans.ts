import type { LineSpan } from './compaction.js'
import type { MessageRecord } from './types.js'

/**
 * Where each record's line is in the log file, so compaction copies bytes instead of
 * serialising records again: a record's own line (as sendbox wrote it, or as read), and for a
 * record changed by delivery events, the version it was made from. A compaction makes a new file
 * (`next()`): spans of an earlier one are stale.
 *
 * @example
 * const spans = createLineSpans()
 * spans.set(record, { position: 30, length: 412 })
 * spans.lineOf(record) // { position: 30, length: 412 }
 */
export function createLineSpans() {
  /** Counts the files the log has had. */
  let generation = 0
  const spans = new WeakMap<MessageRecord, LineSpan & { file: number }>()
  /** A record changed by delivery events → the version it was made from, until its own line is written. */
  const parents = new WeakMap<MessageRecord, MessageRecord>()
  const lineOf = (record: MessageRecord): LineSpan | undefined => {
    const span = spans.get(record)
    return span?.file === generation ? span : undefined
  }
  return {
    lineOf,
    /** The newest older version of the record whose line is in the current file. */
    baseOf(record: MessageRecord): MessageRecord | undefined {
      let base = parents.get(record)
      while (base && !lineOf(base)) base = parents.get(base)
      return base
    },
    /** `span` null: the record is no longer its line (replay folded events in). */
    set(record: MessageRecord, span: LineSpan | null): void {
      if (span) spans.set(record, { file: generation, ...span })
      else spans.delete(record)
    },
    derived(next: MessageRecord, from: MessageRecord): void {
      parents.set(next, from)
    },
    /** A new file holds these lines; every other span is stale now. */
    next(moved: readonly [MessageRecord, LineSpan][]): void {
      generation++
      for (const [record, span] of moved) {
        spans.set(record, { file: generation, ...span })
        parents.delete(record)
      }
    },
  }
}
