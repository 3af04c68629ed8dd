import { signal } from '@preact/signals'
import { api, type MessageRecord, type MessageSummary, type StatusChange } from './api.js'
import { arrivalAnnouncer, frameScheduler, loneArrivals } from './burst.js'
import { count, plural, shortAddress } from './format.js'
import { MessageListState, type PageRequest } from './message-list-state.js'
import type { Page } from './page.js'
import { describeFilter, filterToQuery, isFiltered, parseSearch } from './search.js'

/**
 * The message list's behaviour, without the DOM: MessageListState (which rows, which total)
 * fed by pages and live events, drawn at most once a frame. Live events change the state at once;
 * `version` changes at the next frame (while a burst lasts, every DRAW_EVERY_MS), and the list
 * component (messages.tsx) renders from the state then: keyed by id, so a row that came is one
 * new element, a row that went is one removed, a status is one badge. Pages are summaries
 * (`?fields=summary`); "Show more" asks for the next one only.
 */

/** The stream quiet this long: count once what events do not say (drops by --max-messages). */
const QUIET_MS = 500
/** "Show more" asks again when deletions meanwhile may have made its page skip rows; this many times at most. */
const MORE_RETRIES = 2

export const toSummary = ({
  html: _h,
  text: _t,
  templateVariables: _v,
  ...summary
}: MessageRecord): MessageSummary => summary

export class MessageListModel {
  readonly state = new MessageListState()
  /** Bumped once per draw: the list renders from `state` when it changes. */
  readonly version = signal(0)
  /** How many old messages --max-messages dropped. */
  readonly dropped = signal(0)
  /** A "Show more" page is on its way. */
  readonly loadingMore = signal(false)
  /** The search the list shows (the URL's `q`). */
  readonly query = signal('')
  /** The open message (marked in the list). */
  readonly current = signal<string | null>(null)
  /** Rows that arrived live and alone since the last draw: drawn highlighted at the next. */
  private fresh = new Set<string>()
  /** Those of the draw being rendered. */
  private drawnFresh = new Set<string>()
  /** The event stream is open: a page asked for from now on misses nothing. */
  private streaming = false
  private quietTimer = 0
  private lastEvent = 0
  private readonly frames
  private readonly arrivals
  private readonly lone

  constructor(
    private readonly page: Page,
    /** Messages that are gone (deleted, or dropped by --max-messages): the open one may be among them. */
    private readonly gone: (ids: string[]) => void,
  ) {
    this.frames = frameScheduler(() => this.draw(), page.timing)
    this.arrivals = arrivalAnnouncer((text) => page.announce(text), page.timing, count)
    this.lone = loneArrivals(page.timing)
  }

  /** Whether a row is drawn highlighted: asked once, when its element is made. */
  isFresh(id: string): boolean {
    return this.drawnFresh.has(id)
  }

  // ---- the search and the pages ---------------------------------------------------------

  /** The route's search (`?q=`): a new one loads its first page. */
  setQuery(q: string): void {
    const state = this.state
    if (q === this.query.peek() && (state.loaded || state.loading)) return
    if (q !== this.query.peek()) {
      this.query.value = q
      state.setFilter(parseSearch(q))
    }
    if (this.streaming) void this.load()
  }

  /** The stream (re)opened: whatever happened before it, or while it was down, comes with one page. */
  resync(): void {
    this.streaming = true
    void this.load()
  }

  /** The list's first page (as many rows as it holds), and the dropped count with it. */
  async load(): Promise<void> {
    const state = this.state
    if (state.impossible) {
      state.setEmpty()
      return this.frames.flush()
    }
    const request = state.loadRequest()
    try {
      const [page, health] = await Promise.all([
        api.summaries(this.pageQuery(request)),
        api.health(),
      ])
      this.dropped.value = health.dropped ?? 0
      if (!state.applyLoad(request, page)) return
      if (state.needsCount) this.noteEvent()
      this.frames.flush()
      const open = this.current.peek()
      if (open && !state.has(open) && this.complete) this.gone([open])
    } catch (error) {
      if (state.abandon(request))
        this.page.toast(`Could not load the messages: ${(error as Error).message}`)
    }
  }

  /** "Show more": the next page only (overlapping the last row by one, to see that nothing was skipped). */
  async showMore(retries = MORE_RETRIES): Promise<void> {
    const request = this.state.moreRequest()
    if (!request) return
    this.loadingMore.value = true
    try {
      const page = await api.summaries(this.pageQuery(request))
      const result = this.state.applyMore(request, page)
      if (result === 'retry' && retries > 0) return await this.showMore(retries - 1)
      if (this.state.needsCount) this.noteEvent()
      this.frames.flush()
    } catch (error) {
      this.state.abandon(request)
      this.page.toast(`Could not load more messages: ${(error as Error).message}`)
    } finally {
      this.loadingMore.value = false
    }
  }

  private pageQuery(request: PageRequest): URLSearchParams {
    const query = filterToQuery(this.state.filter)
    query.set('limit', String(request.limit))
    if (request.offset) query.set('offset', String(request.offset))
    return query
  }

  /** Once the stream is quiet: how many match (and the dropped count), which events do not say. */
  private async count(): Promise<void> {
    const state = this.state
    if (state.loading || !state.loaded) return this.noteEvent()
    const events = state.events
    try {
      const filtered = isFiltered(state.filter) && !state.impossible
      const [health, page] = await Promise.all([
        api.health(),
        filtered
          ? api.summaries(this.pageQuery({ seq: 0, offset: 0, limit: 1, anchor: null }))
          : null,
      ])
      this.dropped.value = health.dropped ?? 0
      const dropped = state.applyCount(
        events,
        state.impossible ? 0 : (page?.total ?? health.messages),
      )
      if (dropped === null) return this.noteEvent()
      if (dropped.length) this.gone(dropped)
      this.frames.schedule()
    } catch {
      // sendbox is away: the stream's reconnection loads the list again.
    }
  }

  /** A live event: count once the stream has been quiet for a while (one timer, however many events). */
  private noteEvent(): void {
    const timing = this.page.timing
    this.lastEvent = timing.now()
    if (this.quietTimer) return
    const check = () => {
      const quiet = timing.now() - this.lastEvent
      if (quiet < QUIET_MS) this.quietTimer = timing.setTimeout(check, QUIET_MS - quiet)
      else {
        this.quietTimer = 0
        void this.count()
      }
    }
    this.quietTimer = timing.setTimeout(check, QUIET_MS)
  }

  // ---- live events ---------------------------------------------------------------------

  /** A `message` event: the stream is opened with `?fields=summary`, so it is a summary already. */
  onMessage(summary: MessageSummary): void {
    this.arrivals.arrived(`from ${shortAddress(summary.from)}: ${summary.subject}`)
    if (this.lone()) this.fresh.add(summary.id)
    this.state.insert(summary)
    this.noteEvent()
    this.frames.schedule()
  }

  onDeleted(id: string): void {
    this.state.remove(id)
    this.noteEvent()
    this.frames.schedule()
  }

  onStatus(change: StatusChange): void {
    if (this.state.status(change.id, change.status) === 'fetch') void this.fetchJoined(change.id)
    this.noteEvent()
    this.frames.schedule()
  }

  /** A full or filtered clear: the event does not say which went, so the first page comes again. */
  onCleared(): void {
    void this.load()
  }

  /** Deleted from this page: the row goes now (the stream's echo counts for nothing). */
  removeLocal(id: string): void {
    this.state.remove(id)
    this.frames.flush()
  }

  /** A status the search asks for reached a message the list does not have: it joins, in its place. */
  private async fetchJoined(id: string): Promise<void> {
    try {
      this.state.insert(toSummary(await api.message(id)))
      this.frames.schedule()
    } catch {
      // Deleted meanwhile: nothing joins.
    }
  }

  /** The rows came, went or changed: the list renders again (once per frame at most). */
  private draw(): void {
    // The keyed render finds what came, went and changed by itself; the state's own record of it is spent.
    this.state.takeChanges()
    this.drawnFresh = this.fresh
    this.fresh = new Set()
    this.version.value++
  }

  // ---- the open message's neighbours ---------------------------------------------------

  /** The row after this one (else before): where the view goes when it is deleted. */
  neighbour(id: string): string | null {
    const rows = this.state.rows
    const at = rows.findIndex((r) => r.id === id)
    if (at === -1) return null
    return (rows[at + 1] ?? rows[at - 1])?.id ?? null
  }

  /** Every match is in the list: one not in it is gone (deleted, cleared, trimmed). */
  get complete(): boolean {
    const state = this.state
    return state.loaded && !state.loading && !isFiltered(state.filter) && state.hidden === 0
  }

  // ---- "Clear all" ---------------------------------------------------------------------

  /** "Clear all" (or "Delete matching" under a search), after a confirmation. */
  async clearAll(): Promise<void> {
    const filter = this.state.filter
    const filtered = isFiltered(filter)
    const total = this.state.total
    const ok = await this.page.confirm(
      filtered
        ? {
            title: 'Delete the matching messages?',
            text: `${plural(total, 'message')} matching ${describeFilter(filter)} will be deleted. This cannot be undone.`,
            confirm: 'Delete matching',
          }
        : {
            title: 'Delete all messages?',
            text: `All ${plural(total, 'message')} will be deleted. This cannot be undone.`,
            confirm: 'Delete all',
          },
    )
    if (!ok) return
    try {
      await api.clearMessages(filterToQuery(filter))
      this.page.announce(
        filtered ? 'The matching messages were deleted' : 'All messages were deleted',
      )
      await this.load()
    } catch (error) {
      this.page.toast(`Could not delete: ${(error as Error).message}`)
    }
  }
}
