import { compileFilter } from './filter.js'
import { initialRecipients } from './recipients.js'
import { recordSize } from './size.js'
import type { MessageFilter, MessagePage, MessageRecord } from './types.js'

export interface RecordLimits {
  maxMessages: number
  maxBytes: number
}

/**
 * The live records in memory, in arrival order, with the limits that drop the oldest. Records
 * before `head` were dropped and are cut off in bulk later, so dropping the oldest costs O(1)
 * amortised, not a shift(). `records` is the array lowdb's data holds (compaction writes it once
 * `normalise` has cut the dropped prefix off).
 *
 * @example
 * const index = createRecordIndex(data.records, { maxMessages: 5000, maxBytes: 256 << 20 })
 * index.add(record); index.dropOverflow(); index.get(record.id) === record
 */
export function createRecordIndex(initial: MessageRecord[], limits: RecordLimits) {
  let records = initial
  let head = 0
  const byId = new Map<string, MessageRecord>()
  /** Bytes of the live records (their JSON lines): bounded by maxBytes as their count is by maxMessages. */
  let bytes = 0
  let dropped = 0
  for (const record of records) {
    // Written before delivery states existed: its recipients are still where the send left them.
    record.recipients ??= initialRecipients(record.to ?? [], record.createdAt)
    byId.set(record.id, record)
    bytes += recordSize(record)
  }

  const live = () => records.length - head

  function normalise(): MessageRecord[] {
    if (head > 0) {
      records.splice(0, head)
      head = 0
    }
    return records
  }

  function remove(record: MessageRecord): void {
    if (byId.get(record.id) === record) byId.delete(record.id)
    bytes -= recordSize(record)
    // Newest first: deletes mostly concern recent messages.
    const index = records.lastIndexOf(record)
    if (index >= head) records.splice(index, 1)
  }

  /** Records newest first that match, from `from` (an index into the array) down. */
  function* newestFirst(filter: MessageFilter): Generator<MessageRecord> {
    const match = compileFilter(filter)
    for (let i = records.length - 1; i >= head; i--) {
      const record = records[i]!
      if (match(record)) yield record
    }
  }

  return {
    live,
    get: (id: string) => byId.get(id),
    bytes: () => bytes,
    dropped: () => dropped,
    /** The array with the dropped prefix cut off: what compaction writes. */
    normalise,
    /** Adds the newest record; one of the same id goes (the newest of an id is the live one). */
    add(record: MessageRecord): void {
      const previous = byId.get(record.id)
      if (previous) remove(previous)
      records.push(record)
      byId.set(record.id, record)
      bytes += recordSize(record)
    },
    remove,
    /** Puts `next` (a new version of `record`) in its place. */
    replace(record: MessageRecord, next: MessageRecord): void {
      // Recent messages are the ones with events: the search from the end is short.
      const index = records.lastIndexOf(record)
      if (index >= head) records[index] = next
      byId.set(next.id, next)
    },
    /** Drops the oldest past either limit. The newest record stays, however large. */
    dropOverflow(): void {
      while (live() > limits.maxMessages || (bytes > limits.maxBytes && live() > 1)) {
        const oldest = records[head]!
        byId.delete(oldest.id)
        bytes -= recordSize(oldest)
        head++
        dropped++
      }
      if (head >= 64 && head * 8 >= live()) normalise()
    },
    /** Keeps only these (in order); returns the new array, for lowdb's data. */
    keepOnly(kept: MessageRecord[]): MessageRecord[] {
      records = kept
      head = 0
      byId.clear()
      bytes = 0
      for (const record of kept) {
        byId.set(record.id, record)
        bytes += recordSize(record)
      }
      return records
    },
    /** Newest first; `total` counts every match before limit/offset. */
    list(filter: MessageFilter = {}): MessagePage {
      const offset = Math.max(0, Math.floor(filter.offset ?? 0)) || 0
      const limit =
        filter.limit === undefined ? Infinity : Math.max(0, Math.floor(filter.limit)) || 0
      const messages: MessageRecord[] = []
      let total = 0
      for (const record of newestFirst(filter)) {
        if (total >= offset && messages.length < limit) messages.push(record)
        total++
      }
      return { messages, total }
    },
    latest(filter: MessageFilter = {}): MessageRecord | undefined {
      for (const record of newestFirst(filter)) return record
      return undefined
    },
    /** The live records in order, oldest first. */
    *all(): Generator<MessageRecord> {
      for (let i = head; i < records.length; i++) yield records[i]!
    },
  }
}

export type RecordIndex = ReturnType<typeof createRecordIndex>
