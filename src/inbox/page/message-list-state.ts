import type { MessageStatus, MessageSummary, MessageSummaryPage } from './api.js'
import { isFiltered, matchesSearch, type SearchFilter } from './search.js'
import { MESSAGE_STATUSES } from '../../store/recipients.js'

/**
 * The message list as plain state, without the DOM (src/inbox/page/message-list.ts draws it):
 * which messages the list holds — always the newest `rows.length` of the `total` that match,
 * newest first —, and which rows changed since it was last drawn.
 *
 * Pages come from `GET /_sandbox/api/messages?fields=summary` by offset and limit: the first on
 * load (`loadRequest`/`applyLoad`), the next on "Show more" (`moreRequest`/`applyMore`), never the
 * ones already here again. The event stream changes it row by row: a message on top (`insert`),
 * a deletion (`remove`), a status (`status`). Events that come while a page is on its way are
 * applied again to its answer, so a page computed before or after them comes out the same. What
 * the events cannot say (the oldest messages dropped by --max-messages, a deletion among messages
 * not shown under a search) is settled by a count once the stream is quiet (`applyCount`).
 */

/** Rows per page: the first page, and each "Show more". */
export const PAGE = 100
/** The largest `limit` the inspector answers. */
export const MAX_LIMIT = 1000
/** Ids deleted here, remembered so that the event stream's echo of a deletion counts once. */
const GONE_KEPT = 1000

/** What `status:` may name: the server's own list (a plain constant, bundled into the page). */
export const STATUSES: readonly string[] = MESSAGE_STATUSES

/** What the page has to redraw: rows to take out, rows whose status changed (rows to add are the ones it has no element for). */
export interface Changes {
  removed: string[]
  updated: string[]
}

export interface PageRequest {
  seq: number
  offset: number
  limit: number
  /** "Show more" asks from the last row on (an overlap of one): the answer should start with it. */
  anchor: string | null
}

type Recorded =
  | { type: 'message'; summary: MessageSummary }
  | { type: 'deleted'; id: string }
  | { type: 'status'; id: string; status: MessageStatus }

/** Newest first: ULIDs sort as they were made, and the log lists in that order. */
const newer = (a: string, b: string): boolean => a > b

export class MessageListState {
  /** The newest `rows.length` matches, newest first. */
  rows: MessageSummary[] = []
  /** How many messages match, shown or not. */
  total = 0
  /** How many rows the list holds at most: a page, and another for each "Show more". */
  capacity = PAGE
  /** A first page has come. */
  loaded = false
  filter: SearchFilter = {}
  /**
   * The total may be off: a deletion the list cannot place, a count raced by events. A count
   * (`applyCount`) settles it; the page asks for one once the stream is quiet.
   */
  needsCount = false
  /** Live events seen: a count is taken only when none came while it was on its way. */
  events = 0

  private readonly index = new Map<string, MessageSummary>()
  private readonly gone = new Set<string>()
  private removed = new Set<string>()
  private updated = new Set<string>()
  private seq = 0
  private pending: { request: PageRequest; events: Recorded[] } | null = null

  /** How many match and are not shown: what "Show more" can still bring. */
  get hidden(): number {
    return Math.max(0, this.total - this.rows.length)
  }

  /** A page is on its way. */
  get loading(): boolean {
    return this.pending !== null
  }

  /** A status that is not one (`status:bou`, typed halfway): nothing matches, and no request the inspector would refuse. */
  get impossible(): boolean {
    return !!this.filter.status && !STATUSES.includes(this.filter.status)
  }

  has(id: string): boolean {
    return this.index.has(id)
  }

  get(id: string): MessageSummary | undefined {
    return this.index.get(id)
  }

  /** A new search: the next load starts over with one page; an answer for the old search is dropped. */
  setFilter(filter: SearchFilter): void {
    this.filter = filter
    this.capacity = PAGE
    this.pending = null
    this.seq++
  }

  /** Nothing can match (see `impossible`): an empty list, without asking. */
  setEmpty(): void {
    this.replaceRows([])
    this.total = 0
    this.loaded = true
    this.pending = null
    this.seq++
  }

  /** A request failed: forget it (true when it was still the current one). */
  abandon(request: PageRequest): boolean {
    if (this.pending?.request.seq !== request.seq) return false
    this.pending = null
    return true
  }

  // ---- pages --------------------------------------------------------------------------------

  /** The first page: as many rows as the list holds (a page, or more after "Show more"), at most MAX_LIMIT. */
  loadRequest(): PageRequest {
    const request = {
      seq: ++this.seq,
      offset: 0,
      limit: Math.min(MAX_LIMIT, Math.max(PAGE, this.capacity)),
      anchor: null,
    }
    this.pending = { request, events: [] }
    return request
  }

  /** The first page's answer: the list becomes it, and the events that came meanwhile apply again. False when it was superseded. */
  applyLoad(request: PageRequest, page: MessageSummaryPage): boolean {
    if (!this.pending || this.pending.request.seq !== request.seq) return false
    const { events } = this.pending
    this.pending = null
    this.replaceRows(page.messages.slice(0, request.limit))
    this.total = page.total
    this.capacity = request.limit
    this.loaded = true
    for (const event of events) this.replay(event)
    return true
  }

  /** The next page, overlapping the last row by one; null when every match is shown or a page is on its way. */
  moreRequest(): PageRequest | null {
    if (this.pending || !this.loaded || this.hidden === 0) return null
    const last = this.rows.at(-1)
    const request = last
      ? {
          seq: ++this.seq,
          offset: this.rows.length - 1,
          limit: Math.min(MAX_LIMIT, PAGE + 1),
          anchor: last.id,
        }
      : { seq: ++this.seq, offset: 0, limit: PAGE, anchor: null }
    this.pending = { request, events: [] }
    return request
  }

  /**
   * The next page's answer, appended without the rows already here. `retry`: it starts past the
   * last row, so rows were deleted above it meanwhile and the page may have skipped some (ask
   * again, from the rows as they are now). `stale`: superseded.
   */
  applyMore(request: PageRequest, page: MessageSummaryPage): 'ok' | 'retry' | 'stale' {
    if (!this.pending || this.pending.request.seq !== request.seq) return 'stale'
    const { events } = this.pending
    this.pending = null
    const first = page.messages[0]
    if (request.anchor && first && first.id !== request.anchor && newer(request.anchor, first.id))
      return 'retry'
    for (const summary of page.messages) {
      if (
        this.index.has(summary.id) ||
        this.gone.has(summary.id) ||
        !matchesSearch(summary, this.filter)
      )
        continue
      this.rows.push(summary)
      this.index.set(summary.id, summary)
    }
    this.capacity = Math.max(this.capacity, this.rows.length)
    // The answer's total is as of its page; events since then already moved ours.
    if (events.length === 0) this.total = Math.max(page.total, this.rows.length)
    else {
      this.total = Math.max(this.total, this.rows.length)
      this.needsCount = true
      // A status or a deletion that came meanwhile may concern a row of this page.
      for (const event of events) {
        if (event.type === 'status') this.setStatus(event.id, event.status)
        else if (event.type === 'deleted' && this.index.has(event.id)) this.drop(event.id, false)
      }
    }
    return 'ok'
  }

  /** A count of what matches (`total`), taken at `events`: settles the total, and drops rows past it (the oldest went). Null when events came meanwhile (count again later). */
  applyCount(events: number, total: number): string[] | null {
    if (events !== this.events || this.pending) return null
    this.needsCount = false
    this.total = total
    const dropped: string[] = []
    while (this.rows.length > total) {
      const row = this.rows.pop()!
      this.index.delete(row.id)
      this.removed.add(row.id)
      dropped.push(row.id)
    }
    return dropped
  }

  // ---- live events --------------------------------------------------------------------------

  /** A message arrived: on top if it matches the search; past the capacity, the oldest row makes room. */
  insert(summary: MessageSummary): boolean {
    this.record({ type: 'message', summary })
    return this.add(summary)
  }

  /** A message was deleted (here, or anywhere: the event stream echoes this page's own deletions). */
  remove(id: string): boolean {
    this.record({ type: 'deleted', id })
    if (this.gone.has(id)) return false
    this.forget(id)
    if (this.index.has(id)) {
      this.drop(id, true)
      return true
    }
    // Not shown. Without a search every message counts, so it was among the hidden ones;
    // with one, whether it matched is not known here.
    if (!this.loaded) return false
    if (isFiltered(this.filter)) this.needsCount = true
    else this.total = Math.max(this.rows.length, this.total - 1)
    return false
  }

  /**
   * A message's status changed: its row follows (or leaves the list, when the search names
   * another status). `fetch`: the search names this status, and the message is not in the list:
   * it may belong there (the caller fetches it and `insert`s it).
   */
  status(id: string, status: MessageStatus): 'fetch' | null {
    this.record({ type: 'status', id, status })
    if (this.index.has(id)) this.setStatus(id, status)
    else if (this.loaded && this.filter.status === status && !this.gone.has(id)) return 'fetch'
    return null
  }

  /** What changed since the last call: the page redraws only that. */
  takeChanges(): Changes {
    const removed = [...this.removed].filter((id) => !this.index.has(id))
    const updated = [...this.updated].filter((id) => this.index.has(id))
    this.removed = new Set()
    this.updated = new Set()
    return { removed, updated }
  }

  // ---- inside -------------------------------------------------------------------------------

  private record(event: Recorded): void {
    this.events++
    this.pending?.events.push(event)
  }

  /** An event that came while a first page was on its way, applied to its answer: by presence, so one the page already has changes nothing. */
  private replay(event: Recorded): void {
    if (event.type === 'message') this.add(event.summary)
    else if (event.type === 'deleted') {
      if (this.index.has(event.id)) this.drop(event.id, true)
      // Among the hidden rows, or already left out of the page: the count tells.
      else this.needsCount = true
    } else this.setStatus(event.id, event.status)
  }

  private add(summary: MessageSummary): boolean {
    // Before the first page the event waits for it (it is recorded); a page makes it count.
    if (!this.loaded || this.impossible) return false
    if (
      this.index.has(summary.id) ||
      this.gone.has(summary.id) ||
      !matchesSearch(summary, this.filter)
    )
      return false
    const at = this.positionOf(summary.id)
    const hidden = this.hidden
    this.total++
    // Older than every row, with more behind them: it is among the hidden ones.
    if (at > 0 && at === this.rows.length && hidden > 0) return true
    this.rows.splice(at, 0, summary)
    this.index.set(summary.id, summary)
    while (this.rows.length > this.capacity) {
      const last = this.rows.pop()!
      this.index.delete(last.id)
      this.removed.add(last.id)
    }
    return true
  }

  /** Where a message goes, newest first: on top for a live one (checked first), else by binary search. */
  private positionOf(id: string): number {
    if (this.rows.length === 0 || newer(id, this.rows[0]!.id)) return 0
    let low = 0
    let high = this.rows.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (newer(this.rows[mid]!.id, id)) low = mid + 1
      else high = mid
    }
    return low
  }

  private setStatus(id: string, status: MessageStatus): void {
    const row = this.index.get(id)
    if (!row || row.status === status) return
    // The list's own copy: a status is the only thing about a message that changes.
    row.status = status
    if (!matchesSearch(row, this.filter)) this.drop(id, true)
    else this.updated.add(id)
  }

  private drop(id: string, count: boolean): void {
    const at = this.rows.findIndex((m) => m.id === id)
    if (at === -1) return
    this.rows.splice(at, 1)
    this.index.delete(id)
    this.removed.add(id)
    if (count) this.total = Math.max(this.rows.length, this.total - 1)
  }

  private forget(id: string): void {
    this.gone.add(id)
    if (this.gone.size > GONE_KEPT) this.gone.delete(this.gone.values().next().value!)
  }

  private replaceRows(next: MessageSummary[]): void {
    const before = new Map(this.index)
    this.index.clear()
    this.rows = []
    for (const summary of next) {
      if (this.index.has(summary.id)) continue
      const old = before.get(summary.id)
      if (old && old.status !== summary.status) this.updated.add(summary.id)
      this.rows.push(summary)
      this.index.set(summary.id, summary)
    }
    for (const id of before.keys()) if (!this.index.has(id)) this.removed.add(id)
  }
}
