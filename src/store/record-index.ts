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
  /** Arrival order, for putting back records whose removal did not reach the file. */
  const order = new WeakMap<MessageRecord, number>()
  let nextOrder = 0
  /** Records whose own line was never written: never put back. */
  const failed = new WeakSet<MessageRecord>()
  for (const record of records) {
    order.set(record, nextOrder++)
    // Written before delivery states existed: its recipients are still where the send left them.
    record.recipients ??= initialRecipients(record.to ?? [], record.createdAt)
    byId.set(record.id, record)
    bytes += recordSize(record)
  }

  const live = () => records.length - head
  /**
   * The first arrival number after a cursor (the count of records stored when it was handed
   * out). One that is not a count, or is past the count now, is after every record stored so
   * far: a cursor never makes an older message count.
   */
  const firstAfter = (cursor: string | undefined): number => {
    if (cursor === undefined) return 0
    const n = /^\d{1,15}$/.test(cursor) ? Number(cursor) : Number.POSITIVE_INFINITY
    return Math.min(n, nextOrder)
  }

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

  return {
    live,
    get: (id: string) => byId.get(id),
    bytes: () => bytes,
    dropped: () => dropped,
    /** The array with the dropped prefix cut off: what compaction writes. */
    normalise,
    /**
     * Adds the newest record and returns the live one of the same id, if any: that one goes only
     * once the new one's line is written (`retire`), as replay replaces it only at that line.
     */
    add(record: MessageRecord): MessageRecord | undefined {
      const previous = byId.get(record.id)
      order.set(record, nextOrder++)
      records.push(record)
      byId.set(record.id, record)
      bytes += recordSize(record)
      return previous
    },
    /** The record a newer one of its id replaced, now that the newer one's line is written. */
    retire(previous: MessageRecord): void {
      const index = records.lastIndexOf(previous)
      if (index < head) return
      records.splice(index, 1)
      bytes -= recordSize(previous)
      if (byId.get(previous.id) === previous) byId.delete(previous.id)
    },
    /** Takes back a record whose line was not written, and gives its id back to `previous`. */
    unadd(record: MessageRecord, previous: MessageRecord | undefined): void {
      failed.add(record)
      if (records.lastIndexOf(record) >= head) remove(record)
      if (previous && byId.get(previous.id) === undefined && records.lastIndexOf(previous) >= head)
        byId.set(previous.id, previous)
    },
    remove,
    /**
     * Puts back, in arrival order, records whose removal (a delete, a clear) was not written.
     * One whose id is live again, or whose own line was never written, stays out.
     */
    reinsert(back: readonly MessageRecord[]): void {
      const eligible = back.filter((r) => !failed.has(r) && byId.get(r.id) === undefined)
      if (eligible.length === 0) return
      const current = records.splice(head)
      const rank = (r: MessageRecord) => order.get(r) ?? -1
      eligible.sort((a, b) => rank(a) - rank(b))
      let i = 0
      for (const record of current) {
        while (i < eligible.length && rank(eligible[i]!) < rank(record))
          records.push(eligible[i++]!)
        records.push(record)
      }
      while (i < eligible.length) records.push(eligible[i++]!)
      for (const record of eligible) {
        byId.set(record.id, record)
        bytes += recordSize(record)
      }
    },
    /** Puts `next` (a new version of `record`) in its place. */
    replace(record: MessageRecord, next: MessageRecord): void {
      order.set(next, order.get(record) ?? nextOrder++)
      // Recent messages are the ones with events: the search from the end is short.
      const index = records.lastIndexOf(record)
      if (index >= head) records[index] = next
      byId.set(next.id, next)
    },
    /**
     * Drops the oldest past either limit, counting only records whose line is written (`pending`
     * are the newest, still queued), as replay does. The newest record stays, however large.
     */
    dropOverflow(pending = { count: 0, bytes: 0 }): void {
      const over = () => {
        const written = live() - pending.count
        return (
          written > limits.maxMessages || (bytes - pending.bytes > limits.maxBytes && written > 1)
        )
      }
      while (over()) {
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
    /** Newest first; `total` counts every match before limit/offset. A plain loop: 5000 records a list. */
    list(filter: MessageFilter = {}): MessagePage {
      const match = compileFilter(filter)
      const first = firstAfter(filter.after)
      const offset = Math.max(0, Math.floor(filter.offset ?? 0)) || 0
      const limit =
        filter.limit === undefined ? Infinity : Math.max(0, Math.floor(filter.limit)) || 0
      const messages: MessageRecord[] = []
      let total = 0
      for (let i = records.length - 1; i >= head; i--) {
        const record = records[i]!
        // Arrival order: past the first record at or before the cursor, none is after it.
        if (order.get(record)! < first) break
        if (!match(record)) continue
        if (total >= offset && messages.length < limit) messages.push(record)
        total++
      }
      return { messages, total, cursor: String(nextOrder) }
    },
    latest(filter: MessageFilter = {}): MessageRecord | undefined {
      const match = compileFilter(filter)
      const first = firstAfter(filter.after)
      for (let i = records.length - 1; i >= head && order.get(records[i]!)! >= first; i--)
        if (match(records[i]!)) return records[i]
      return undefined
    },
    /** How many records were ever stored in this log: each takes the next position. */
    cursor: (): string => String(nextOrder),
    matches(record: MessageRecord, filter: MessageFilter): boolean {
      return (order.get(record) ?? -1) >= firstAfter(filter.after) && compileFilter(filter)(record)
    },
    /** The live records in order, oldest first. */
    *all(): Generator<MessageRecord> {
      for (let i = head; i < records.length; i++) yield records[i]!
    },
  }
}

export type RecordIndex = ReturnType<typeof createRecordIndex>
