import {
  bareAddress,
  compileFilter,
  type RecordPredicate,
  type SearchText,
  searchTextOf,
} from './filter.js'
import { initialRecipients } from './recipients.js'
import { recordSize } from './size.js'
import { ProjectTally } from './tally.js'
import { TextColumn } from './text-column.js'
import type { MessageFilter, MessagePage, MessageRecord } from './types.js'

export interface RecordLimits {
  maxMessages: number
  maxBytes: number
}

/**
 * The live records in memory, in arrival order, with the limits that drop the oldest. Records
 * before `head` were dropped and are cut off in bulk later, so dropping the oldest costs O(1)
 * amortised, not a shift(). `records` is the array lowdb's data holds (compaction writes it once
 * `normalise` has cut the dropped prefix off). A class, not a closure: a dozen operations share
 * five pieces of state, and each stays a few lines.
 *
 * @example
 * const index = createRecordIndex(data.records, { maxMessages: 5000, maxBytes: 256 << 20 })
 * index.add(record); index.dropOverflow(); index.get(record.id) === record
 */
export class RecordIndex {
  private records: MessageRecord[]
  private head = 0
  private readonly byId = new Map<string, MessageRecord>()
  /**
   * Bytes of the live records (their JSON lines), per project and in all: the total is bounded
   * by maxBytes as their count is by maxMessages.
   */
  private readonly sizes = new ProjectTally()
  /** Records dropped by the limits, per project and in all. */
  private readonly drops = new ProjectTally()
  /** Arrival order, for putting back records whose removal did not reach the file. */
  private readonly order = new WeakMap<MessageRecord, number>()
  private nextOrder = 0
  /** Records whose own line was never written: never put back. */
  private readonly failed = new WeakSet<MessageRecord>()
  /**
   * Each record's lower-cased texts, at the record's position in `records` (every change to
   * `records` makes the same change here), made at the first filter that reads them and kept as
   * long as the record: a `?to=` list over 5,000 records took 5.3 ms of CPU making them anew.
   * Kept by position, in an array of their own, so that a scan reads them one after another and
   * never the records: kept by record (a WeakMap), each lookup read the record (its hash) and a
   * hash table, both scattered over a heap of 5,000 messages' bodies: a `?to=` list took 1.6 to
   * 2.0 ms in a server (timed in it) where the same list over records made one after another
   * took 0.3. A server holding 5,000 receipts, five alternating runs of 500 `?to=` reads: a
   * read's server CPU 0.88 to 0.98 ms, against 1.20 to 2.94 kept by record.
   */
  private texts: (SearchText | undefined)[]
  private readonly textOf = (record: MessageRecord, position: number): SearchText =>
    this.texts[position] ?? (this.texts[position] = searchTextOf(record))
  /**
   * The texts a `to` and a `recipient` filter read, laid end to end (text-column.ts), from the
   * first such filter on; null until then, and again after a put-back or a clear: made anew at
   * the next such filter. A send adds its line at that filter, a removal or a new address
   * rewrites one chunk of lines, a dropped oldest costs nothing.
   * On a server holding 5,000 receipts, a send → read round trip's read took about 1 ms of CPU
   * scanning the texts, scattered over the heap and out of the CPU's caches after the send's
   * render: laid end to end, a scan is an `indexOf` over one string (bench/maildev.js's send →
   * read; docs/performance.md has the figures).
   */
  private columns: { to: TextColumn; recipients: TextColumn } | null = null

  constructor(
    initial: MessageRecord[],
    private readonly limits: RecordLimits,
  ) {
    this.records = initial
    this.texts = unmade(initial.length)
    for (const record of initial) {
      this.order.set(record, this.nextOrder++)
      // Written before delivery states existed: its recipients are still where the send left them.
      record.recipients ??= initialRecipients(record.to ?? [], record.createdAt)
      this.track(record)
    }
  }

  private track(record: MessageRecord): void {
    this.byId.set(record.id, record)
    this.sizes.add(record.project, recordSize(record))
  }

  /** The position of a live record in `records`, or -1 when it is not live. */
  private indexOf(record: MessageRecord): number {
    // Newest first: changes mostly concern recent messages.
    const index = this.records.lastIndexOf(record)
    return index >= this.head ? index : -1
  }

  /**
   * The first arrival number after a cursor (the count of records stored when it was handed
   * out). One that is not a count, or is past the count now, is after every record stored so
   * far: a cursor never makes an older message count.
   */
  private firstAfter(cursor: string | undefined): number {
    if (cursor === undefined) return 0
    const n = /^\d{1,15}$/.test(cursor) ? Number(cursor) : Number.POSITIVE_INFINITY
    return Math.min(n, this.nextOrder)
  }

  live = (): number => this.records.length - this.head
  get = (id: string): MessageRecord | undefined => this.byId.get(id)
  /** The live records' bytes: one project's, or with none every project's. */
  bytes = (project?: string): number => this.sizes.of(project)
  /** Records dropped by the limits: one project's, or with none every project's. */
  dropped = (project?: string): number => this.drops.of(project)
  /** How many records were ever stored in this log: each takes the next position. */
  cursor = (): string => String(this.nextOrder)

  /** The array with the dropped prefix cut off: what compaction writes. */
  normalise(): MessageRecord[] {
    if (this.head > 0) {
      this.records.splice(0, this.head)
      this.texts.splice(0, this.head)
      this.columns?.to.shift(this.head)
      this.columns?.recipients.shift(this.head)
      this.head = 0
    }
    return this.records
  }

  remove(record: MessageRecord): void {
    if (this.byId.get(record.id) === record) this.byId.delete(record.id)
    this.sizes.add(record.project, -recordSize(record))
    const index = this.indexOf(record)
    if (index >= 0) this.cut(index)
  }

  /** Takes the record at `index` out of `records`, and its texts with it. */
  private cut(index: number): void {
    this.records.splice(index, 1)
    this.texts.splice(index, 1)
    this.columns?.to.cut(index)
    this.columns?.recipients.cut(index)
  }

  /**
   * Adds the newest record and returns the live one of the same id, if any: that one goes only
   * once the new one's line is written (`retire`), as replay replaces it only at that line.
   */
  add(record: MessageRecord): MessageRecord | undefined {
    const previous = this.byId.get(record.id)
    this.order.set(record, this.nextOrder++)
    this.records.push(record)
    this.texts.push(undefined)
    this.track(record)
    return previous
  }

  /** The record a newer one of its id replaced, now that the newer one's line is written. */
  retire(previous: MessageRecord): void {
    const index = this.indexOf(previous)
    if (index < 0) return
    this.cut(index)
    this.sizes.add(previous.project, -recordSize(previous))
    if (this.byId.get(previous.id) === previous) this.byId.delete(previous.id)
  }

  /** Takes back a record whose line was not written, and gives its id back to `previous`. */
  unadd(record: MessageRecord, previous: MessageRecord | undefined): void {
    this.failed.add(record)
    if (this.indexOf(record) >= 0) this.remove(record)
    if (previous && this.byId.get(previous.id) === undefined && this.indexOf(previous) >= 0)
      this.byId.set(previous.id, previous)
  }

  /**
   * Puts back, in arrival order, records whose removal (a delete, a clear) was not written.
   * One whose id is live again, or whose own line was never written, stays out.
   */
  reinsert(back: readonly MessageRecord[]): void {
    const eligible = back.filter((r) => !this.failed.has(r) && this.byId.get(r.id) === undefined)
    if (eligible.length === 0) return
    const current = this.records.splice(this.head)
    const rank = (r: MessageRecord) => this.order.get(r) ?? -1
    eligible.sort((a, b) => rank(a) - rank(b))
    let i = 0
    for (const record of current) {
      while (i < eligible.length && rank(eligible[i]!) < rank(record))
        this.records.push(eligible[i++]!)
      this.records.push(record)
    }
    while (i < eligible.length) this.records.push(eligible[i++]!)
    // Rare (a removal whose line failed): the live records' texts are made again as asked.
    this.texts = this.texts.slice(0, this.head).concat(unmade(this.records.length - this.head))
    this.columns = null
    for (const record of eligible) this.track(record)
  }

  /**
   * Puts `next` (a new version of `record`) in its place, weighed as itself: a record is weighed
   * by the line it was written as, a changed one by its estimate (size.ts), and what removes it
   * later subtracts the latter (a delete once left -74 bytes behind).
   */
  replace(record: MessageRecord, next: MessageRecord): void {
    this.order.set(next, this.order.get(record) ?? this.nextOrder++)
    const index = this.indexOf(record)
    if (index >= 0) {
      this.records[index] = next
      // A change of state keeps what the filters read (the same objects): its texts stay.
      if (!sameSearchFields(record, next)) {
        this.texts[index] = undefined
        if (this.columns && index < this.columns.to.next) {
          const text = this.textOf(next, index)
          this.columns.to.set(index, text.to)
          this.columns.recipients.set(index, text.recipients)
        }
      }
      this.sizes.add(record.project, -recordSize(record))
      this.sizes.add(next.project, recordSize(next))
    }
    this.byId.set(next.id, next)
  }

  /**
   * Drops the oldest past either limit, counting only records whose line is written (`pending`
   * are the newest, still queued), as replay does. The newest record stays, however large.
   */
  dropOverflow(pending = { count: 0, bytes: 0 }): void {
    const { maxMessages, maxBytes } = this.limits
    const over = () => {
      const written = this.live() - pending.count
      return written > maxMessages || (this.sizes.of() - pending.bytes > maxBytes && written > 1)
    }
    while (over()) {
      const oldest = this.records[this.head]!
      this.byId.delete(oldest.id)
      this.sizes.add(oldest.project, -recordSize(oldest))
      this.head++
      this.drops.add(oldest.project, 1)
    }
    if (this.head >= 64 && this.head * 8 >= this.live()) this.normalise()
  }

  /** Keeps only these (in order); returns the new array, for lowdb's data. */
  keepOnly(kept: MessageRecord[]): MessageRecord[] {
    this.records = kept
    this.texts = unmade(kept.length)
    this.columns = null
    this.head = 0
    this.byId.clear()
    this.sizes.reset()
    for (const record of kept) this.track(record)
    return this.records
  }

  /**
   * The positions (ascending) of the only records a `to` or `recipient` filter can match, from
   * the columns; undefined for any other filter (every record is scanned).
   */
  private candidates(filter: MessageFilter): number[] | undefined {
    const recipient = filter.recipient ? bareAddress(filter.recipient) : undefined
    const to = filter.to ? filter.to.toLowerCase() : undefined
    if (recipient === undefined && to === undefined) return undefined
    // Made anew when missing, or when more records were dropped since its last line than it
    // has lines: its next line would be a gone record's.
    if (!this.columns || this.columns.to.next < this.head)
      this.columns = { to: new TextColumn(this.head), recipients: new TextColumn(this.head) }
    const { columns } = this
    for (let i = columns.to.next; i < this.records.length; i++) {
      const text = this.textOf(this.records[i]!, i)
      columns.to.push(text.to)
      columns.recipients.push(text.recipients)
    }
    return recipient !== undefined
      ? columns.recipients.positions(recipient, this.head, true)
      : columns.to.positions(to!, this.head, false)
  }

  /** Newest first; `total` counts every match before limit/offset. A plain loop: 5000 records a list. */
  list(filter: MessageFilter = {}): MessagePage {
    const match = compileFilter(filter, this.textOf)
    const first = this.firstAfter(filter.after)
    const offset = Math.max(0, Math.floor(filter.offset ?? 0)) || 0
    const limit = filter.limit === undefined ? Infinity : Math.max(0, Math.floor(filter.limit)) || 0
    const page = { offset, limit, messages: [] as MessageRecord[], total: 0 }
    const project = filter.project || undefined
    const candidates = this.candidates(filter)
    if (candidates) {
      this.collect(candidates, match, first, page)
      const cursor = project === undefined ? this.nextOrder : this.projectCursor(project, first)
      return { messages: page.messages, total: page.total, cursor: String(cursor) }
    }
    // A list of one project answers that project's cursor: past its newest record, so that it
    // does not move with another project's sends (and never before the cursor it was given).
    let cursor = project === undefined ? this.nextOrder : first
    for (let i = this.records.length - 1; i >= this.head; i--) {
      const record = this.records[i]!
      // A record's arrival number is looked up only where it can matter (an `after`, or the
      // project's cursor): it is a WeakMap lookup per record, the scan's largest cost after text.
      if (first > 0 || (project !== undefined && record.project === project)) {
        const order = this.order.get(record)!
        // Arrival order: past the first record at or before the cursor, none is after it.
        if (order < first) break
        if (record.project === project && order >= cursor) cursor = order + 1
      }
      if (match(record, i)) take(page, record)
    }
    return { messages: page.messages, total: page.total, cursor: String(cursor) }
  }

  /** The matches among `candidates` (ascending positions), newest first, into `page`. */
  private collect(candidates: number[], match: RecordPredicate, first: number, page: Page): void {
    for (let k = candidates.length - 1; k >= 0; k--) {
      const i = candidates[k]!
      const record = this.records[i]!
      if (first > 0 && this.order.get(record)! < first) break
      if (match(record, i)) take(page, record)
    }
  }

  /**
   * A project's cursor (see `list`) found without a scan of every record: records are in arrival
   * order, so its newest is the first of the project from the end.
   */
  private projectCursor(project: string, first: number): number {
    for (let i = this.records.length - 1; i >= this.head; i--) {
      const record = this.records[i]!
      if (first === 0 && record.project !== project) continue
      const order = this.order.get(record)!
      if (order < first) break
      if (record.project === project) return order + 1
    }
    return first
  }

  latest(filter: MessageFilter = {}): MessageRecord | undefined {
    const match = compileFilter(filter, this.textOf)
    const first = this.firstAfter(filter.after)
    const candidates = this.candidates(filter)
    if (candidates) {
      for (let k = candidates.length - 1; k >= 0; k--) {
        const i = candidates[k]!
        const record = this.records[i]!
        if (first > 0 && this.order.get(record)! < first) return undefined
        if (match(record, i)) return record
      }
      return undefined
    }
    const { records, head, order } = this
    for (let i = records.length - 1; i >= head; i--) {
      // Arrival order only with an `after` (see `list`): without one, every record is after it.
      if (first > 0 && order.get(records[i]!)! < first) break
      if (match(records[i]!, i)) return records[i]
    }
    return undefined
  }

  matches(record: MessageRecord, filter: MessageFilter): boolean {
    return (
      (this.order.get(record) ?? -1) >= this.firstAfter(filter.after) &&
      compileFilter(filter)(record)
    )
  }

  /** The live records in order, oldest first. */
  *all(): Generator<MessageRecord> {
    for (let i = this.head; i < this.records.length; i++) yield this.records[i]!
  }
}

/** A list being gathered: the matches after `offset`, up to `limit`, and the count of all. */
interface Page {
  offset: number
  limit: number
  messages: MessageRecord[]
  total: number
}

function take(page: Page, record: MessageRecord): void {
  if (page.total >= page.offset && page.messages.length < page.limit) page.messages.push(record)
  page.total++
}

/** Texts for `length` records, none made yet: a packed array, which a scan reads fastest. */
const unmade = (length: number): (SearchText | undefined)[] =>
  Array.from({ length }, () => undefined)

/** Whether two versions of a record have the same fields `searchTextOf` reads. */
const sameSearchFields = (a: MessageRecord, b: MessageRecord): boolean =>
  a.to === b.to && a.from === b.from && a.template === b.template && a.subject === b.subject

/**
 * @example
 * const index = createRecordIndex([], { maxMessages: 5000, maxBytes: Infinity })
 */
export const createRecordIndex = (initial: MessageRecord[], limits: RecordLimits): RecordIndex =>
  new RecordIndex(initial, limits)
