import { api, ApiError, messagePath, type Address, type CheckReport, type MessageRecord, type StatusChange } from './api.js'
import { applyStatus, deliveryTab, statusBadge, updateHeaderBadge } from './delivery.js'
import { checksTab, showChecksBadge } from './checks.js'
import { confirmDialog, jsonBlock, revealLine, sandboxedFrame, showSource, tabList, warningItems } from './components.js'
import { $, announce, h, replace, toast } from './dom.js'
import { fullAddress, fullTime, plural, recipients, shortAddress, timeAgo } from './format.js'
import { DEFAULT_VIEW, MESSAGE_WIDTHS, onSystemSchemeChange, PreviewControls, setViewParams, viewParams, type ViewState } from './preview.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'
import { describeFilter, filterToQuery, isFiltered, parseSearch, type SearchFilter } from './search.js'
import { ListPane } from './list-pane.js'
import { detailParams, itemLinks, pickTab, readDetailRoute, sourceLineParams, syncFrame, tabParam } from './split.js'
import { sendExample } from './snippet.js'
import { RejectionsPanel } from './rejections.js'

const PAGE = 100
const STATUSES = ['sent', 'delivered', 'bounced', 'complained', 'suppressed', 'deferred']
const MAX_LIMIT = 1000
const TABS = [
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text' },
  { id: 'source', label: 'Source' },
  { id: 'details', label: 'Details' },
  { id: 'delivery', label: 'Delivery' },
  { id: 'checks', label: 'Checks' },
]

/** The message list (live, searchable) and the open message, side by side or one at a time. */
export class MessagesView {
  readonly root: HTMLElement
  /** The list, its search box and its keys (app.ts sends j/k, /, Esc there). */
  readonly pane: ListPane
  /** Recent rejected sends, above the list. */
  readonly rejected = new RejectionsPanel()
  private readonly detail: HTMLElement
  private readonly dropped: HTMLElement
  private readonly clearButton: HTMLButtonElement
  private readonly more: HTMLButtonElement

  private items: MessageRecord[] = []
  private total = 0
  private limit = PAGE
  private loaded = false
  private query = ''
  private filter: SearchFilter = {}
  private openId: string | null = null
  private record: MessageRecord | null = null
  private tab = 'html'
  private view: ViewState = DEFAULT_VIEW
  private line: number | null = null
  private checks: CheckReport | null = null
  private checksError: string | null = null
  private loadSeq = 0
  private reloadTimer = 0
  private searchTimer = 0
  private readonly fresh = new Set<string>()
  private frame: HTMLIFrameElement | null = null
  private panel: HTMLElement | null = null
  private tabs: HTMLElement | null = null
  private controls: PreviewControls | null = null

  constructor() {
    this.dropped = h('p', { class: 'dropped', id: 'dropped', hidden: true })
    this.clearButton = h('button', { type: 'button', class: 'btn btn-quiet btn-danger-text', id: 'clear-all', onclick: () => void this.clearAll() }, 'Clear all')
    this.more = h('button', { type: 'button', class: 'btn more', hidden: true, onclick: () => this.showMore() }, 'Show more')
    this.detail = h('section', { class: 'pane detail-pane', id: 'message-pane', 'aria-label': 'Message' })
    this.pane = new ListPane(
      {
        key: 'id',
        ids: { pane: 'message-list-pane', title: 'messages-title', search: 'search', count: 'message-count', list: 'message-list' },
        title: 'Messages',
        searchLabel: 'Search messages',
        searchProps: { 'aria-describedby': 'search-help' },
        onInput: () => this.onSearchInput(),
        titleExtras: [h('span', { class: 'spacer' }), this.clearButton],
        headExtras: [h('p', { class: 'hint', id: 'search-help' }, 'Words match the subject; also ', h('code', null, 'to:'), ' ', h('code', null, 'from:'), ' ', h('code', null, 'template:'), ' ', h('code', null, 'status:')), this.dropped, this.rejected.root],
        footer: [this.more],
      },
      { open: (id) => goHash(this.hrefFor(id)), back: () => this.back() },
    )
    const listPane = this.pane.root
    this.root = h('div', { class: 'split', id: 'view-messages', 'data-open': 'false' }, listPane, this.detail)
    this.renderPlaceholder()
    // "Light" is asked for explicitly when the system is dark: follow the system's changes.
    onSystemSchemeChange(() => this.syncDetail())
  }

  // ---- routing -------------------------------------------------------------------------

  show(route: Extract<Route, { view: 'messages' }>): void {
    const q = route.params.get('q') ?? ''
    if (q !== this.query) {
      this.query = q
      this.filter = parseSearch(q)
      if (this.pane.search.value !== q) this.pane.search.value = q
      void this.reload()
    } else if (!this.loaded) void this.reload()
    // Tab, width, colours and images carry over from one message to the next, and show in the URL.
    const detail = readDetailRoute(route.params, TABS, this.tab, this.view)
    ;({ tab: this.tab, view: this.view, line: this.line } = detail)
    if (route.id) replaceParams(detailParams(TABS, detail))
    this.root.dataset.open = String(!!route.id)
    if (route.id !== this.openId || !this.record) void this.open(route.id)
    else this.syncDetail()
    this.pane.markCurrent(this.openId)
    if (!route.id) this.pane.restoreFocus(this.detail)
  }

  private hrefFor(id: string | null): string {
    const params = new URLSearchParams()
    if (this.query) params.set('q', this.query)
    if (id && this.tab !== 'html') params.set('tab', this.tab)
    if (id) setViewParams(params, this.view)
    return formatHash({ view: 'messages', id, params })
  }

  // ---- the list ------------------------------------------------------------------------

  async reload(): Promise<void> {
    const seq = ++this.loadSeq
    const query = filterToQuery(this.filter)
    query.set('limit', String(this.limit))
    if (this.filter.status && !STATUSES.includes(this.filter.status)) {
      // Half-typed (status:bou): nothing matches, and no request the server would refuse.
      this.items = []
      this.total = 0
      this.loaded = true
      return this.renderList()
    }
    try {
      const [page, health] = await Promise.all([api.messages(query), api.health()])
      if (seq !== this.loadSeq) return
      this.items = page.messages
      this.total = page.total
      this.loaded = true
      this.showDropped(health.dropped ?? 0)
      this.renderList()
      // The open message went away while we were not looking (a clear, a trim).
      if (this.openId && this.record && !this.items.some((m) => m.id === this.openId) && !isFiltered(this.filter) && this.items.length === this.total) this.renderGone()
    } catch (error) {
      if (seq === this.loadSeq) toast(`Could not load the messages: ${(error as Error).message}`)
    }
  }

  private scheduleReload(delay = 400): void {
    window.clearTimeout(this.reloadTimer)
    this.reloadTimer = window.setTimeout(() => void this.reload(), delay)
  }

  private showDropped(dropped: number): void {
    this.dropped.hidden = dropped === 0
    this.dropped.textContent = dropped ? `${plural(dropped, 'older message')} dropped by --max-messages` : ''
  }

  private renderList(): void {
    const filtered = isFiltered(this.filter)
    this.pane.setCount(this.loaded ? String(this.total) : '', filtered ? `${plural(this.total, 'matching message')}` : plural(this.total, 'message'))
    this.clearButton.textContent = filtered ? 'Delete matching' : 'Clear all'
    this.clearButton.disabled = this.total === 0
    this.pane.show(this.items.map((m) => this.renderItem(m)))
    this.more.hidden = this.items.length >= this.total || this.limit >= MAX_LIMIT
    this.renderEmpty(filtered)
  }

  private renderItem(m: MessageRecord): HTMLElement {
    const to = recipients(m.to)
    return h(
      'li',
      null,
      h(
        'a',
        { class: `item${this.fresh.has(m.id) ? ' is-new' : ''}`, href: this.hrefFor(m.id), 'data-id': m.id },
        h('span', { class: 'item-top' }, h('span', { class: 'item-from', title: fullAddress(m.from) }, shortAddress(m.from)), h('time', { class: 'item-time', datetime: m.createdAt, title: fullTime(m.createdAt), 'data-relative': '' }, timeAgo(m.createdAt))),
        h('span', { class: 'item-subject' }, m.subject),
        h('span', { class: 'item-meta' }, h('span', { class: 'item-to', title: m.to.map(fullAddress).join(', ') }, h('span', { class: 'visually-hidden' }, 'to '), to), statusBadge(m.status), h('span', { class: 'tag' }, h('span', { class: 'visually-hidden' }, 'template '), m.template)),
      ),
    )
  }

  private renderEmpty(filtered: boolean): void {
    if (!this.loaded || this.items.length > 0) return this.pane.setEmpty(null)
    if (filtered) {
      return this.pane.setEmpty([
        h('p', { class: 'empty-title' }, 'No message matches'),
        h('p', null, describeFilter(this.filter)),
        this.filter.status && !STATUSES.includes(this.filter.status) ? h('p', { class: 'hint' }, `status: is one of ${STATUSES.join(', ')}`) : null,
      ])
    }
    const curl = sendExample(location.origin)
    this.pane.setEmpty([h('p', { class: 'empty-title' }, 'No messages yet'), h('p', null, 'Send one and it shows up here at once:'), h('pre', { class: 'code', tabindex: '0' }, curl)])
  }

  private showMore(): void {
    this.limit = Math.min(MAX_LIMIT, this.limit + PAGE)
    void this.reload()
  }

  private onSearchInput(): void {
    window.clearTimeout(this.searchTimer)
    this.searchTimer = window.setTimeout(() => {
      const q = this.pane.search.value.trim()
      if (q === this.query) return
      this.query = q
      this.filter = parseSearch(q)
      this.limit = PAGE
      replaceParams({ q: q || null })
      void this.reload()
    }, 150)
  }


  private async clearAll(): Promise<void> {
    const filtered = isFiltered(this.filter)
    const ok = await confirmDialog(
      filtered
        ? { title: 'Delete the matching messages?', text: `${plural(this.total, 'message')} matching ${describeFilter(this.filter)} will be deleted. This cannot be undone.`, confirm: 'Delete matching' }
        : { title: 'Delete all messages?', text: `All ${plural(this.total, 'message')} will be deleted. This cannot be undone.`, confirm: 'Delete all' },
    )
    if (!ok) return
    try {
      await api.clearMessages(filterToQuery(this.filter))
      announce(filtered ? 'The matching messages were deleted' : 'All messages were deleted')
      await this.reload()
    } catch (error) {
      toast(`Could not delete: ${(error as Error).message}`)
    }
  }

  // ---- live events ---------------------------------------------------------------------

  onMessage(record: MessageRecord): void {
    announce(`New message from ${shortAddress(record.from)}: ${record.subject}`)
    this.fresh.add(record.id)
    window.setTimeout(() => this.fresh.delete(record.id), 3000)
    if (!this.loaded || isFiltered(this.filter)) return this.scheduleReload(100)
    if (!this.items.some((m) => m.id === record.id)) {
      this.items.unshift(record)
      this.total += 1
      if (this.items.length > this.limit) this.items.pop()
      this.renderList()
    }
    // Catch up with what the event does not say: trims by --max-messages, the dropped count.
    this.scheduleReload()
  }

  onDeleted(id: string): void {
    const before = this.items.length
    this.items = this.items.filter((m) => m.id !== id)
    if (this.items.length !== before) {
      this.total = Math.max(0, this.total - 1)
      this.renderList()
    }
    if (id === this.openId) this.renderGone()
    this.scheduleReload()
  }

  /** SSE `status`: a recipient event; the list's badge, the header's and the Delivery tab follow. */
  onStatus(change: StatusChange): void {
    const at = this.items.findIndex((m) => m.id === change.id)
    if (at !== -1) {
      const before = this.items[at]!
      this.items[at] = applyStatus(before, change)
      if (before.status !== change.status) {
        const badge = this.pane.list.querySelector(`a[data-id="${CSS.escape(change.id)}"] .status-badge`)
        badge?.replaceWith(statusBadge(change.status))
      }
    }
    if (this.record && this.record.id === change.id) {
      this.record = applyStatus(this.record, change)
      updateHeaderBadge(this.detail, this.record.status)
      if (this.tab === 'delivery') this.renderPanel()
    }
    // A status filter in the search: the matching set changed.
    if (this.filter.status) this.scheduleReload(100)
  }

  onCleared(): void {
    this.scheduleReload(50)
    void this.rejected.load()
  }

  /** After a reconnection: whatever happened meanwhile. */
  resync(): void {
    void this.reload()
    void this.rejected.load()
  }

  // ---- keyboard ------------------------------------------------------------------------

  /** Escape: from a message back to the list, with the keyboard on that message. */
  back(): boolean {
    if (!this.openId) return false
    this.pane.leaving(this.openId)
    goHash(this.hrefFor(null))
    return true
  }

  // ---- the open message ----------------------------------------------------------------

  private async open(id: string | null): Promise<void> {
    this.openId = id
    this.record = null
    this.frame = null
    this.checks = null
    this.checksError = null
    if (!id) return this.renderPlaceholder()
    let record = this.items.find((m) => m.id === id)
    if (!record) {
      replace(this.detail, h('p', { class: 'placeholder' }, 'Loading…'))
      try {
        record = await api.message(id)
      } catch (error) {
        if (this.openId !== id) return
        if (error instanceof ApiError && error.status === 404) return this.renderGone()
        replace(this.detail, h('p', { class: 'placeholder' }, `Could not load the message: ${(error as Error).message}`))
        return
      }
      if (this.openId !== id) return
    }
    this.record = record
    this.renderDetail(record)
    void this.loadChecks(record.id)
    document.title = `${record.subject} · sendbox`
    // On a narrow screen the message replaces the list: take the keyboard along.
    if (this.pane.list.getClientRects().length === 0) $('#message-subject', this.detail).focus({ preventScroll: true })
  }

  private renderPlaceholder(): void {
    document.title = 'sendbox'
    replace(this.detail, h('div', { class: 'placeholder' }, h('p', null, 'Select a message to read it.'), h('p', { class: 'hint' }, h('kbd', null, 'j'), ' ', h('kbd', null, 'k'), ' move · ', h('kbd', null, 'Enter'), ' opens · ', h('kbd', null, 'Esc'), ' goes back · ', h('kbd', null, '/'), ' searches')))
  }

  private renderGone(): void {
    this.record = null
    this.frame = null
    replace(this.detail, h('div', { class: 'placeholder' }, h('p', null, 'This message was deleted, or dropped by --max-messages.'), h('p', null, h('a', { href: this.hrefFor(null) }, 'Back to the messages'))))
  }

  private renderDetail(m: MessageRecord): void {
    const base = messagePath(m.id)
    this.tabs = tabList('message', 'Message views', TABS, this.tab, (tab) => this.setTab(tab))
    this.controls = new PreviewControls('message', MESSAGE_WIDTHS, this.view, (view) => this.setView(view))
    this.panel = h('div', { class: 'panel', id: 'message-panel', role: 'tabpanel', 'aria-labelledby': `message-tab-${this.tab}` })
    const warnings = m.warnings.length
      ? h('div', { class: 'note note-warn', role: 'note' }, h('strong', null, plural(m.warnings.length, 'warning')), h('ul', null, warningItems(m.warnings)))
      : null
    replace(
      this.detail,
      h(
        'article',
        { class: 'message', 'aria-labelledby': 'message-subject' },
        h(
          'header',
          { class: 'message-head' },
          h('a', { class: 'back', href: this.hrefFor(null) }, h('span', { 'aria-hidden': 'true' }, '← '), 'Messages'),
          h('h2', { id: 'message-subject', tabindex: '-1' }, m.subject),
          h(
            'dl',
            { class: 'meta' },
            h('div', null, h('dt', null, 'From'), h('dd', null, addressNode(m.from))),
            h('div', null, h('dt', null, 'To'), h('dd', null, recipientList(m.to))),
            h('div', null, h('dt', null, 'Sent'), h('dd', null, h('time', { datetime: m.createdAt, title: fullTime(m.createdAt), 'data-relative': '' }, timeAgo(m.createdAt)))),
            h('div', null, h('dt', null, 'Status'), h('dd', null, h('span', { id: 'message-status' }, statusBadge(m.status)), ' ', h('a', { href: formatHash({ view: 'messages', id: m.id, params: new URLSearchParams({ tab: 'delivery' }) }), class: 'quiet-link' }, 'timeline'))),
            h('div', null, h('dt', null, 'Template'), h('dd', null, h('a', { href: formatHash({ view: 'templates', slug: m.template, params: new URLSearchParams() }) }, m.template))),
          ),
          h(
            'div',
            { class: 'actions' },
            h('a', { class: 'btn', href: `${base}/eml`, download: `${m.id}.eml`, id: 'download-eml' }, 'Download .eml'),
            h('a', { class: 'btn', href: `${base}/html`, target: '_blank', rel: 'noopener noreferrer' }, 'Open HTML', h('span', { class: 'visually-hidden' }, ' (new tab)')),
            h('button', { type: 'button', class: 'btn btn-danger-text', id: 'delete-message', onclick: () => void this.deleteOpen() }, 'Delete'),
          ),
          warnings,
        ),
        h('div', { class: 'toolbar' }, this.tabs),
        this.controls.root,
        this.panel,
      ),
    )
    this.renderPanel()
  }

  /** Route changed only in tab or view: update in place, the frame keeps its document when it can. */
  private syncDetail(): void {
    if (!this.record || !this.tabs) return
    const tabChanged = this.panel?.getAttribute('aria-labelledby') !== `message-tab-${this.tab}`
    syncFrame(this.tabs, this.tab, this.controls, this.frame, this.view, `${messagePath(this.record.id)}/html`)
    if (tabChanged) this.renderPanel()
    else if (this.tab === 'source') revealLine(this.panel?.querySelector('pre') ?? null, this.line)
  }

  private setTab(tab: string): void {
    this.tab = pickTab(TABS, tab)
    this.line = null
    replaceParams({ tab: tabParam(TABS, this.tab), line: null })
    this.syncDetail()
    this.renderList()
  }

  private setView(view: ViewState): void {
    this.view = view
    replaceParams(viewParams(view))
    this.syncDetail()
    this.renderList()
  }

  private async loadChecks(id: string): Promise<void> {
    try {
      const report = await api.messageChecks(id)
      if (this.openId !== id) return
      this.checks = report
    } catch (error) {
      if (this.openId !== id) return
      this.checksError = (error as Error).message
    }
    showChecksBadge(this.tabs, this.checks)
    if (this.tab === 'checks') this.renderPanel()
  }

  /** "line 42" in the checks: the Source tab at that line, as a link (a history entry of its own). */
  private lineHref(line: number): string {
    return formatHash({ view: 'messages', id: this.openId, params: sourceLineParams(line) })
  }

  private renderPanel(): void {
    const m = this.record
    const panel = this.panel
    if (!m || !panel) return
    panel.setAttribute('aria-labelledby', `message-tab-${this.tab}`)
    this.controls?.root.toggleAttribute('hidden', this.tab !== 'html')
    this.frame = null
    switch (this.tab) {
      case 'html': {
        const { canvas, frame } = sandboxedFrame(`${messagePath(m.id)}/html`, `The message as HTML: ${m.subject}`, this.view)
        this.frame = frame
        replace(panel, canvas)
        break
      }
      case 'text':
        replace(panel, h('pre', { class: 'text-body', id: 'message-text', tabindex: '0' }, m.text))
        break
      case 'source':
        showSource(panel, m.html, this.line, 'The HTML source')
        break
      case 'checks':
        replace(panel, checksTab('message', this.checks, this.checksError, (line) => this.lineHref(line)))
        break
      case 'delivery':
        replace(panel, deliveryTab(m))
        break
      default:
        replace(panel, details(m))
    }
  }

  private async deleteOpen(): Promise<void> {
    const m = this.record
    if (!m) return
    const links = itemLinks(this.pane.list, 'id')
    const at = links.findIndex((l) => l.dataset.id === m.id)
    const next = links[at + 1] ?? links[at - 1]
    try {
      await api.deleteMessage(m.id)
    } catch (error) {
      toast(`Could not delete the message: ${(error as Error).message}`)
      return
    }
    announce('Message deleted')
    this.items = this.items.filter((x) => x.id !== m.id)
    this.total = Math.max(0, this.total - 1)
    this.renderList()
    // The deleted message leaves no history entry to come back to.
    history.replaceState(history.state, '', this.hrefFor(next?.dataset.id ?? null))
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  }
}

/** The first few recipients, and a button for the rest (all of them are in Details too). */
function recipientList(to: Address[], shown = 3): HTMLElement {
  const box = h('span', { class: 'recipients' })
  const render = (count: number) => {
    replace(box, to.slice(0, count).map((a, i) => [i ? ', ' : '', addressNode(a)]))
    if (to.length > count) {
      box.append(' ', h('button', { type: 'button', class: 'link-button', onclick: () => render(to.length) }, `and ${to.length - count} more`))
    }
  }
  render(shown)
  return box
}

function addressNode(a: { name: string | null; address: string }): (Node | string)[] {
  return a.name ? [h('span', { class: 'addr-name' }, a.name), ' ', h('span', { class: 'addr' }, `<${a.address}>`)] : [h('span', { class: 'addr-name' }, a.address)]
}

function details(m: MessageRecord): HTMLElement {
  const row = (label: string, ...value: (Node | string)[]) => h('div', null, h('dt', null, label), h('dd', null, value))
  return h(
    'div',
    { class: 'details' },
    h(
      'dl',
      { class: 'facts' },
      row('ID', h('code', null, m.id)),
      row('Sent', fullTime(m.createdAt)),
      row('From', fullAddress(m.from)),
      row('To', ...m.to.flatMap((a, i) => (i ? [h('br'), fullAddress(a)] : [fullAddress(a)]))),
      row('Subject', m.subject),
      row('Template', h('a', { href: formatHash({ view: 'templates', slug: m.template, params: new URLSearchParams() }) }, m.template)),
      row('Project', h('code', null, m.project)),
      row('Token', h('code', null, m.tokenHint)),
      row('Warnings', m.warnings.length ? h('ul', { class: 'plain' }, warningItems(m.warnings)) : 'None'),
    ),
    h('h3', null, 'Variables'),
    jsonBlock(m.templateVariables),
  )
}
