import { api, type MessageRecord, type MessageSummary, type StatusChange } from './api.js'
import { statusBadge } from './delivery.js'
import { confirmDialog } from './components.js'
import { announce, h, toast } from './dom.js'
import {
  count,
  fullAddress,
  fullTime,
  plural,
  recipients,
  shortAddress,
  timeAgo,
} from './format.js'
import { ListPane } from './list-pane.js'
import { MessageListState, STATUSES, type PageRequest } from './message-list-state.js'
import { RejectionsPanel } from './rejections.js'
import { formatHash, replaceParams } from './router.js'
import { describeFilter, filterToQuery, isFiltered, parseSearch } from './search.js'
import { sendExample } from './snippet.js'

/**
 * The message list, drawn from MessageListState: one element per row, made when the row comes and
 * kept until it goes. Live events change the state at once, and the list at the next animation
 * frame (while a burst lasts, every DRAW_EVERY_MS), touching only the rows that came, went or
 * changed status: 300 sends a second cost a few small DOM passes a second. Pages are summaries
 * (`?fields=summary`); "Show more" asks for the next one only, and the footer says how many
 * are not shown.
 */

/** The stream quiet this long: count once what events do not say (drops by --max-messages). */
const QUIET_MS = 500
/** At most one announcement for arrivals this often: a burst is one sentence, not hundreds. */
const ANNOUNCE_MS = 1000
/** While events keep coming, the list is drawn this often at most (a lone event is drawn at the next frame). */
const DRAW_EVERY_MS = 100
/** Arrivals closer than this are a burst: not highlighted one by one. */
const BURST_MS = 1000
/** "Show more" asks again when deletions meanwhile may have made its page skip rows; this many times at most. */
const MORE_RETRIES = 2

/** What the list asks of the view it sits in. */
export interface MessageListHost {
  /** Open a message (j/k with the list off screen). */
  open(id: string): void
  /** Back from the open message to the list. */
  back(): void
  /** Messages that are gone (deleted, or dropped by --max-messages): the open one may be among them. */
  gone(ids: string[]): void
}

export const toSummary = ({
  html: _h,
  text: _t,
  templateVariables: _v,
  ...summary
}: MessageRecord): MessageSummary => summary

export class MessageList {
  /** The list, its search box and its keys (app.ts sends j/k, /, Esc there). */
  readonly pane: ListPane
  /** Recent rejected sends, above the list. */
  readonly rejected = new RejectionsPanel()
  readonly state = new MessageListState()
  private readonly rowElements = new Map<string, HTMLLIElement>()
  private readonly dropped: HTMLElement
  private readonly clearButton: HTMLButtonElement
  private readonly footer: HTMLElement
  private readonly shown: HTMLElement
  private readonly more: HTMLButtonElement

  private query = ''
  private searchTimer = 0
  /** Rows that arrived live, alone, since the last draw: drawn highlighted. */
  private readonly fresh = new Set<string>()
  /** What the empty list says now, so that a frame redraws it only when that changes. */
  private emptyKind = ''
  private current: string | null = null
  /** The event stream is open: a page asked for from now on misses nothing (events cover what comes after). */
  private streaming = false
  private frame = 0
  private drawTimer = 0
  private lastDraw = -Infinity
  /** Row elements carry the search in their links: a new search draws them anew. */
  private redraw = false
  private quietTimer = 0
  private lastEvent = 0
  private lastArrival = -Infinity
  private rowSize = 0
  private arrivals: { count: number; newest: MessageSummary | null; at: number; timer: number } = {
    count: 0,
    newest: null,
    at: 0,
    timer: 0,
  }

  constructor(private readonly host: MessageListHost) {
    this.dropped = h('p', { class: 'dropped', id: 'dropped', hidden: true })
    this.clearButton = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-quiet btn-danger-text',
        id: 'clear-all',
        onclick: () => void this.clearAll(),
      },
      'Clear all',
    )
    this.shown = h('p', { class: 'more-count', id: 'message-more-count' })
    this.more = h(
      'button',
      {
        type: 'button',
        class: 'btn',
        id: 'message-more',
        'aria-describedby': 'message-more-count',
        onclick: () => void this.showMore(),
      },
      'Show more',
    )
    this.footer = h('div', { class: 'more-bar', hidden: true }, this.shown, this.more)
    this.pane = new ListPane(
      {
        key: 'id',
        ids: {
          pane: 'message-list-pane',
          title: 'messages-title',
          search: 'search',
          count: 'message-count',
          list: 'message-list',
        },
        title: 'Messages',
        searchLabel: 'Search messages',
        searchProps: { 'aria-describedby': 'search-help' },
        onInput: () => this.onSearchInput(),
        titleExtras: [h('span', { class: 'spacer' }), this.clearButton],
        headExtras: [
          h(
            'p',
            { class: 'hint', id: 'search-help' },
            'Words match the subject; also ',
            h('code', null, 'to:'),
            ' ',
            h('code', null, 'from:'),
            ' ',
            h('code', null, 'template:'),
            ' ',
            h('code', null, 'status:'),
          ),
          this.dropped,
          this.rejected.root,
        ],
        footer: [this.footer],
      },
      { open: (id) => host.open(id), back: () => host.back() },
    )
    // The full date as a tooltip, made when a row is pointed at rather than for every row drawn.
    this.pane.list.addEventListener('pointerover', (event) => {
      const time = (event.target as Element)
        .closest?.('.item')
        ?.querySelector<HTMLTimeElement>('time:not([title])')
      if (time) time.title = fullTime(time.dateTime)
    })
  }

  // ---- the search and the pages ---------------------------------------------------------

  /** The route's search (`?q=`): a new one loads its first page. */
  setQuery(q: string): void {
    if (q === this.query && (this.state.loaded || this.state.loading)) return
    if (q !== this.query) {
      this.query = q
      this.state.setFilter(parseSearch(q))
      this.redraw = true
      if (this.pane.search.value !== q) this.pane.search.value = q
    }
    if (this.streaming) void this.load()
  }

  get searchQuery(): string {
    return this.query
  }

  /** The stream (re)opened: whatever happened before it, or while it was down, comes with one page. */
  resync(): void {
    this.streaming = true
    void this.load()
    void this.rejected.load()
  }

  /** The list's first page (as many rows as it holds), and the dropped count with it. */
  async load(): Promise<void> {
    const state = this.state
    if (state.impossible) {
      state.setEmpty()
      return this.draw()
    }
    const request = state.loadRequest()
    try {
      const [page, health] = await Promise.all([
        api.summaries(this.pageQuery(request)),
        api.health(),
      ])
      this.showDropped(health.dropped ?? 0)
      if (!state.applyLoad(request, page)) return
      if (state.needsCount) this.noteEvent()
      this.draw()
      // Every message is in the list, and the open one is not: a clear or a trim took it.
      const open = this.current
      if (open && !state.has(open) && !isFiltered(state.filter) && state.hidden === 0)
        this.host.gone([open])
    } catch (error) {
      if (state.abandon(request)) {
        toast(`Could not load the messages: ${(error as Error).message}`)
      }
    }
  }

  /** "Show more": the next page only (overlapping the last row by one, to see that nothing was skipped). */
  private async showMore(retries = MORE_RETRIES): Promise<void> {
    const request = this.state.moreRequest()
    if (!request) return
    this.more.disabled = true
    try {
      const page = await api.summaries(this.pageQuery(request))
      const result = this.state.applyMore(request, page)
      if (result === 'retry' && retries > 0) return await this.showMore(retries - 1)
      if (this.state.needsCount) this.noteEvent()
      this.draw()
    } catch (error) {
      this.state.abandon(request)
      toast(`Could not load more messages: ${(error as Error).message}`)
    } finally {
      this.more.disabled = false
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
      this.showDropped(health.dropped ?? 0)
      const dropped = state.applyCount(
        events,
        state.impossible ? 0 : (page?.total ?? health.messages),
      )
      if (dropped === null) return this.noteEvent()
      if (dropped.length) this.host.gone(dropped)
      this.schedule()
    } catch {
      // sendbox is away: the stream's reconnection loads the list again.
    }
  }

  /** A live event: count once the stream has been quiet for a while (one timer, however many events). */
  private noteEvent(): void {
    this.lastEvent = performance.now()
    if (this.quietTimer) return
    const check = () => {
      const quiet = performance.now() - this.lastEvent
      if (quiet < QUIET_MS) this.quietTimer = window.setTimeout(check, QUIET_MS - quiet)
      else {
        this.quietTimer = 0
        void this.count()
      }
    }
    this.quietTimer = window.setTimeout(check, QUIET_MS)
  }

  private showDropped(dropped: number): void {
    this.dropped.hidden = dropped === 0
    this.dropped.textContent = dropped
      ? `${plural(dropped, 'older message')} dropped by --max-messages`
      : ''
  }

  /** Typing settled on a new search: it goes in the URL (no history entry) and loads. */
  private onSearchInput(): void {
    window.clearTimeout(this.searchTimer)
    this.searchTimer = window.setTimeout(() => {
      const q = this.pane.search.value.trim()
      if (q === this.query) return
      replaceParams({ q: q || null })
      this.setQuery(q)
    }, 150)
  }

  // ---- live events ---------------------------------------------------------------------

  /** A `message` event: the stream is opened with `?fields=summary`, so it is a summary already. */
  onMessage(summary: MessageSummary): void {
    this.arrived(summary)
    // A message that arrives alone is highlighted as it comes; in a burst, a highlight on every
    // row would say nothing (and repaint the list every frame).
    const now = performance.now()
    if (now - this.lastArrival > BURST_MS) this.fresh.add(summary.id)
    this.lastArrival = now
    this.state.insert(summary)
    this.noteEvent()
    this.schedule()
  }

  onDeleted(id: string): void {
    this.state.remove(id)
    this.noteEvent()
    this.schedule()
  }

  onStatus(change: StatusChange): void {
    if (this.state.status(change.id, change.status) === 'fetch') void this.fetchJoined(change.id)
    this.noteEvent()
    this.schedule()
  }

  /** A full or filtered clear: the event does not say which went, so the first page comes again. */
  onCleared(): void {
    void this.load()
    void this.rejected.load()
  }

  /** Deleted from this page: the row goes now (the stream's echo counts for nothing). */
  removeLocal(id: string): void {
    this.state.remove(id)
    this.draw()
  }

  /** A status the search asks for reached a message the list does not have: it joins, in its place. */
  private async fetchJoined(id: string): Promise<void> {
    try {
      this.state.insert(toSummary(await api.message(id)))
      this.schedule()
    } catch {
      // Deleted meanwhile: nothing joins.
    }
  }

  /** New arrivals are announced to screen readers once a second at most: the first at once, then a count. */
  private arrived(summary: MessageSummary): void {
    const arrivals = this.arrivals
    arrivals.count++
    arrivals.newest = summary
    if (arrivals.timer) return
    const wait = Math.max(0, arrivals.at + ANNOUNCE_MS - performance.now())
    arrivals.timer = window.setTimeout(() => {
      const { count: n, newest } = arrivals
      arrivals.timer = 0
      arrivals.count = 0
      arrivals.at = performance.now()
      if (!newest) return
      const what = `from ${shortAddress(newest.from)}: ${newest.subject}`
      announce(n === 1 ? `New message ${what}` : `${count(n)} new messages, the newest ${what}`)
    }, wait)
  }

  // ---- drawing -------------------------------------------------------------------------

  /**
   * Draw at the next frame, once however many events come before it. A lone event is drawn at
   * once; while they keep coming, a draw follows the last one by DRAW_EVERY_MS at least, so a
   * burst costs a few small DOM passes a second, not one per frame.
   */
  private schedule(): void {
    if (this.frame || this.drawTimer) return
    const wait = this.lastDraw + DRAW_EVERY_MS - performance.now()
    if (wait <= 0) this.frame = requestAnimationFrame(() => this.draw())
    else
      this.drawTimer = window.setTimeout(() => {
        this.drawTimer = 0
        this.frame = requestAnimationFrame(() => this.draw())
      }, wait)
  }

  /** Brings the DOM to the state: rows that went, rows that came, badges that changed, the counts. */
  draw(): void {
    if (this.frame) cancelAnimationFrame(this.frame)
    window.clearTimeout(this.drawTimer)
    this.frame = 0
    this.drawTimer = 0
    this.lastDraw = performance.now()
    const state = this.state
    const list = this.pane.list
    const { removed, updated } = state.takeChanges()
    const focused = this.focusedRow()
    if (this.redraw && state.loaded && !state.loading) {
      // A new search: its rows link with it.
      this.redraw = false
      list.replaceChildren()
      this.rowElements.clear()
    }
    for (const id of removed) {
      this.rowElements.get(id)?.remove()
      this.rowElements.delete(id)
    }
    for (const id of updated) {
      const badge = this.rowElements.get(id)?.querySelector('.status-badge')
      const row = state.get(id)
      if (badge && row) badge.replaceWith(statusBadge(row.status))
    }
    if (this.rowElements.size !== state.rows.length) this.placeRows()
    this.fresh.clear()
    if (!this.rowSize) this.measureRow()
    // The row that had the keyboard was drawn anew, or went: the keyboard stays on it, or at its place.
    if (focused && !focused.element.isConnected) {
      const again =
        this.rowElements.get(focused.id) ??
        list.children[Math.min(focused.index, list.children.length - 1)]
      again?.querySelector<HTMLElement>('a[data-id]')?.focus()
    }
    this.drawCounts()
  }

  /**
   * Rows off screen are neither laid out nor painted (content-visibility: auto), and take the
   * size of a drawn row meanwhile: measured once, so that the list does not shift when they are.
   */
  private measureRow(): void {
    const size = this.pane.list.firstElementChild?.getBoundingClientRect().height
    if (!size) return
    this.rowSize = size
    this.pane.list.style.setProperty('--row-size', `${size}px`)
  }

  /** Adds the rows that have no element yet, in their places (on top for live ones, at the end for a page). */
  private placeRows(): void {
    const list = this.pane.list
    const { rows } = this.state
    if (this.rowElements.size > rows.length) {
      // Out of step (it should not happen): draw them all anew.
      list.replaceChildren()
      this.rowElements.clear()
    }
    let missing = rows.length - this.rowElements.size
    let cursor = list.firstElementChild
    for (const row of rows) {
      if (missing === 0) break
      const existing = this.rowElements.get(row.id)
      if (existing) {
        if (existing !== cursor) list.insertBefore(existing, cursor)
        cursor = existing.nextElementSibling
        continue
      }
      const element = this.renderRow(row)
      this.rowElements.set(row.id, element)
      list.insertBefore(element, cursor)
      missing--
    }
  }

  private renderRow(m: MessageSummary): HTMLLIElement {
    const link = h(
      'a',
      {
        class: `item msg${this.fresh.has(m.id) ? ' is-new' : ''}`,
        href: this.rowHref(m.id),
        'data-id': m.id,
      },
      h('span', { class: 'item-from', title: fullAddress(m.from) }, shortAddress(m.from)),
      h(
        'time',
        { class: 'item-time', datetime: m.createdAt, 'data-relative': '' },
        timeAgo(m.createdAt),
      ),
      h('span', { class: 'item-subject' }, m.subject),
      h(
        'span',
        { class: 'item-to', title: m.to.map(fullAddress).join(', ') },
        h('span', { class: 'visually-hidden' }, 'to '),
        recipients(m.to),
      ),
      statusBadge(m.status),
      h('span', { class: 'tag' }, h('span', { class: 'visually-hidden' }, 'template '), m.template),
    )
    if (m.id === this.current) link.setAttribute('aria-current', 'true')
    return h('li', null, link)
  }

  /** A row's link: the message, with the search kept (the tab and the view carry over by themselves). */
  private rowHref(id: string): string {
    return formatHash({
      view: 'messages',
      id,
      params: new URLSearchParams(this.query ? { q: this.query } : {}),
    })
  }

  private drawCounts(): void {
    const state = this.state
    const filtered = isFiltered(state.filter)
    this.pane.setCount(
      state.loaded ? count(state.total) : '',
      plural(state.total, filtered ? 'matching message' : 'message'),
    )
    this.clearButton.textContent = filtered ? 'Delete matching' : 'Clear all'
    this.clearButton.disabled = state.total === 0
    const hidden = state.hidden
    this.footer.hidden = !state.loaded || hidden === 0
    if (!this.footer.hidden)
      this.shown.textContent = `Showing ${count(state.rows.length)} of ${count(state.total)}; ${count(hidden)} not shown`
    this.drawEmpty(filtered)
  }

  private drawEmpty(filtered: boolean): void {
    const state = this.state
    const filter = state.filter
    const kind =
      !state.loaded || state.rows.length > 0 || state.hidden > 0
        ? ''
        : filtered
          ? `matches ${describeFilter(filter)}`
          : 'none'
    if (kind === this.emptyKind) return
    this.emptyKind = kind
    if (!kind) return this.pane.setEmpty(null)
    if (filtered) {
      return this.pane.setEmpty([
        h('p', { class: 'empty-title' }, 'No message matches'),
        h('p', null, describeFilter(filter)),
        state.impossible
          ? h('p', { class: 'hint' }, `status: is one of ${STATUSES.join(', ')}`)
          : null,
      ])
    }
    this.pane.setEmpty([
      h('p', { class: 'empty-title' }, 'No messages yet'),
      h('p', null, 'Send one and it shows up here at once:'),
      h('pre', { class: 'code', tabindex: '0' }, sendExample(location.origin)),
    ])
  }

  private focusedRow(): { element: Element; id: string; index: number } | null {
    const active = document.activeElement
    const row =
      active instanceof HTMLElement && this.pane.list.contains(active) ? active.closest('li') : null
    const id = row?.querySelector<HTMLElement>('a[data-id]')?.dataset.id
    return row && id
      ? {
          element: row,
          id,
          index: Array.prototype.indexOf.call(this.pane.list.children, row) as number,
        }
      : null
  }

  // ---- the open message, neighbours ------------------------------------------------------

  /** The open message: marked in the list (aria-current). */
  setCurrent(id: string | null): void {
    this.current = id
    this.pane.markCurrent(id)
  }

  /** The row after this one (else before): where the list goes when it is deleted. */
  neighbour(id: string): string | null {
    const element = this.rowElements.get(id)
    const next = (
      element?.nextElementSibling ?? element?.previousElementSibling
    )?.querySelector<HTMLElement>('a[data-id]')
    return next?.dataset.id ?? null
  }

  /** Whether the message is shown in the list (and so was not deleted or dropped). */
  has(id: string): boolean {
    return this.state.has(id)
  }

  private async clearAll(): Promise<void> {
    const filter = this.state.filter
    const filtered = isFiltered(filter)
    const total = this.state.total
    const ok = await confirmDialog(
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
      announce(filtered ? 'The matching messages were deleted' : 'All messages were deleted')
      await this.load()
    } catch (error) {
      toast(`Could not delete: ${(error as Error).message}`)
    }
  }
}
