import {
  api,
  ApiError,
  messagePath,
  type Address,
  type CheckReport,
  type MessageRecord,
  type MessageSummary,
  type StatusChange,
} from './api.js'
import { applyStatus, deliveryTab, statusBadge, updateHeaderBadge } from './delivery.js'
import { checksTab, showChecksBadge } from './checks.js'
import { linksTab, updateLinkClicks } from './links.js'
import {
  jsonBlock,
  revealLine,
  sandboxedFrame,
  showSource,
  tabList,
  warningItems,
} from './components.js'
import { $, announce, h, replace, toast } from './dom.js'
import { fullAddress, fullTime, plural, timeAgo } from './format.js'
import {
  DEFAULT_VIEW,
  MESSAGE_WIDTHS,
  onSystemSchemeChange,
  PreviewControls,
  setViewParams,
  viewParams,
  type ViewState,
} from './preview.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'
import type { ListPane } from './list-pane.js'
import { MessageList } from './message-list.js'
import {
  detailParams,
  pickTab,
  readDetailRoute,
  sourceLineParams,
  syncFrame,
  tabParam,
} from './split.js'

const TABS = [
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text' },
  { id: 'links', label: 'Links' },
  { id: 'source', label: 'Source' },
  { id: 'details', label: 'Details' },
  { id: 'delivery', label: 'Delivery' },
  { id: 'checks', label: 'Checks' },
]

/**
 * The message list (live, searchable: src/inbox/client/message-list.ts) and the open message,
 * side by side or one at a time. The list holds summaries; the open message is fetched whole.
 */
export class MessagesView {
  readonly root: HTMLElement
  readonly list: MessageList
  /** The list, its search box and its keys (app.ts sends j/k, /, Esc there). */
  readonly pane: ListPane
  private readonly detail: HTMLElement

  private openId: string | null = null
  private record: MessageRecord | null = null
  private tab = 'html'
  private view: ViewState = DEFAULT_VIEW
  private line: number | null = null
  private checks: CheckReport | null = null
  private checksError: string | null = null
  private frame: HTMLIFrameElement | null = null
  private panel: HTMLElement | null = null
  private tabs: HTMLElement | null = null
  private controls: PreviewControls | null = null

  constructor() {
    this.detail = h('section', {
      class: 'pane detail-pane',
      id: 'message-pane',
      'aria-label': 'Message',
    })
    this.list = new MessageList({
      open: (id) => goHash(this.hrefFor(id)),
      back: () => this.back(),
      gone: (ids) => {
        if (this.openId && this.record && ids.includes(this.openId)) this.renderGone()
      },
    })
    this.pane = this.list.pane
    this.root = h(
      'div',
      { class: 'split', id: 'view-messages', 'data-open': 'false' },
      this.pane.root,
      this.detail,
    )
    this.renderPlaceholder()
    // "Light" is asked for explicitly when the system is dark: follow the system's changes.
    onSystemSchemeChange(() => this.syncDetail())
  }

  // ---- routing -------------------------------------------------------------------------

  show(route: Extract<Route, { view: 'messages' }>): void {
    this.list.setQuery(route.params.get('q') ?? '')
    // Tab, width, colours and images carry over from one message to the next, and show in the URL.
    const detail = readDetailRoute(route.params, TABS, this.tab, this.view)
    ;({ tab: this.tab, view: this.view, line: this.line } = detail)
    if (route.id) replaceParams(detailParams(TABS, detail))
    this.root.dataset.open = String(!!route.id)
    if (route.id !== this.openId || !this.record) void this.open(route.id)
    else this.syncDetail()
    this.list.setCurrent(this.openId)
    if (!route.id) this.pane.restoreFocus(this.detail)
  }

  private hrefFor(id: string | null): string {
    const params = new URLSearchParams()
    const q = this.list.searchQuery
    if (q) params.set('q', q)
    if (id && this.tab !== 'html') params.set('tab', this.tab)
    if (id) setViewParams(params, this.view)
    return formatHash({ view: 'messages', id, params })
  }

  // ---- live events ---------------------------------------------------------------------

  onMessage(summary: MessageSummary): void {
    this.list.onMessage(summary)
  }

  onDeleted(id: string): void {
    this.list.onDeleted(id)
    if (id === this.openId) this.renderGone()
  }

  /** SSE `status`: a recipient event; the list's badge, the header's and the Delivery tab follow. */
  onStatus(change: StatusChange): void {
    this.list.onStatus(change)
    if (this.record && this.record.id === change.id) {
      this.record = applyStatus(this.record, change)
      updateHeaderBadge(this.detail, this.record.status)
      if (this.tab === 'delivery') this.renderPanel()
      else if (this.tab === 'links' && this.panel) updateLinkClicks(this.panel, this.record)
    }
  }

  onCleared(): void {
    this.list.onCleared()
  }

  /** After a (re)connection: whatever happened meanwhile. */
  resync(): void {
    this.list.resync()
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
    // The list has a summary; the message's HTML, text and variables come with the record.
    replace(this.detail, h('p', { class: 'placeholder' }, 'Loading…'))
    let record: MessageRecord
    try {
      record = await api.message(id)
    } catch (error) {
      if (this.openId !== id) return
      if (error instanceof ApiError && error.status === 404) return this.renderGone()
      replace(
        this.detail,
        h('p', { class: 'placeholder' }, `Could not load the message: ${(error as Error).message}`),
      )
      return
    }
    if (this.openId !== id) return
    this.record = record
    this.renderDetail(record)
    void this.loadChecks(record.id)
    document.title = `${record.subject} · sendbox`
    // On a narrow screen the message replaces the list: take the keyboard along.
    if (this.pane.list.getClientRects().length === 0)
      $('#message-subject', this.detail).focus({ preventScroll: true })
  }

  private renderPlaceholder(): void {
    document.title = 'sendbox'
    replace(
      this.detail,
      h(
        'div',
        { class: 'placeholder' },
        h('p', null, 'Select a message to read it.'),
        h(
          'p',
          { class: 'hint' },
          h('kbd', null, 'j'),
          ' ',
          h('kbd', null, 'k'),
          ' move · ',
          h('kbd', null, 'Enter'),
          ' opens · ',
          h('kbd', null, 'Esc'),
          ' goes back · ',
          h('kbd', null, '/'),
          ' searches',
        ),
      ),
    )
  }

  private renderGone(): void {
    this.record = null
    this.frame = null
    replace(
      this.detail,
      h(
        'div',
        { class: 'placeholder' },
        h('p', null, 'This message was deleted, or dropped by --max-messages.'),
        h('p', null, h('a', { href: this.hrefFor(null) }, 'Back to the messages')),
      ),
    )
  }

  private renderDetail(m: MessageRecord): void {
    const base = messagePath(m.id)
    this.tabs = tabList('message', 'Message views', TABS, this.tab, (tab) => this.setTab(tab))
    this.controls = new PreviewControls('message', MESSAGE_WIDTHS, this.view, (view) =>
      this.setView(view),
    )
    this.panel = h('div', {
      class: 'panel',
      id: 'message-panel',
      role: 'tabpanel',
      'aria-labelledby': `message-tab-${this.tab}`,
    })
    const warnings = m.warnings.length
      ? h(
          'div',
          { class: 'note note-warn', role: 'note' },
          h('strong', null, plural(m.warnings.length, 'warning')),
          h('ul', null, warningItems(m.warnings)),
        )
      : null
    replace(
      this.detail,
      h(
        'article',
        { class: 'message', 'aria-labelledby': 'message-subject' },
        h(
          'header',
          { class: 'message-head' },
          h(
            'a',
            { class: 'back', href: this.hrefFor(null) },
            h('span', { 'aria-hidden': 'true' }, '← '),
            'Messages',
          ),
          h('h2', { id: 'message-subject', tabindex: '-1' }, m.subject),
          h(
            'dl',
            { class: 'meta' },
            h('div', null, h('dt', null, 'From'), h('dd', null, addressNode(m.from))),
            h('div', null, h('dt', null, 'To'), h('dd', null, recipientList(m.to))),
            h(
              'div',
              null,
              h('dt', null, 'Sent'),
              h(
                'dd',
                null,
                h(
                  'time',
                  { datetime: m.createdAt, title: fullTime(m.createdAt), 'data-relative': '' },
                  timeAgo(m.createdAt),
                ),
              ),
            ),
            h(
              'div',
              null,
              h('dt', null, 'Status'),
              h(
                'dd',
                null,
                h('span', { id: 'message-status' }, statusBadge(m.status)),
                ' ',
                h(
                  'a',
                  {
                    href: formatHash({
                      view: 'messages',
                      id: m.id,
                      params: new URLSearchParams({ tab: 'delivery' }),
                    }),
                    class: 'quiet-link',
                  },
                  'timeline',
                ),
              ),
            ),
            h(
              'div',
              null,
              h('dt', null, 'Template'),
              h(
                'dd',
                null,
                h(
                  'a',
                  {
                    href: formatHash({
                      view: 'templates',
                      slug: m.template,
                      params: new URLSearchParams(),
                    }),
                  },
                  m.template,
                ),
              ),
            ),
          ),
          h(
            'div',
            { class: 'actions' },
            h(
              'a',
              { class: 'btn', href: `${base}/eml`, download: `${m.id}.eml`, id: 'download-eml' },
              'Download .eml',
            ),
            h(
              'a',
              { class: 'btn', href: `${base}/html`, target: '_blank', rel: 'noopener noreferrer' },
              'Open HTML',
              h('span', { class: 'visually-hidden' }, ' (new tab)'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'btn btn-danger-text',
                id: 'delete-message',
                onclick: () => void this.deleteOpen(),
              },
              'Delete',
            ),
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
    syncFrame(
      this.tabs,
      this.tab,
      this.controls,
      this.frame,
      this.view,
      `${messagePath(this.record.id)}/html`,
    )
    if (tabChanged) this.renderPanel()
    else if (this.tab === 'source') revealLine(this.panel?.querySelector('pre') ?? null, this.line)
  }

  private setTab(tab: string): void {
    this.tab = pickTab(TABS, tab)
    this.line = null
    replaceParams({ tab: tabParam(TABS, this.tab), line: null })
    this.syncDetail()
  }

  private setView(view: ViewState): void {
    this.view = view
    replaceParams(viewParams(view))
    this.syncDetail()
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
        const { canvas, frame } = sandboxedFrame(
          `${messagePath(m.id)}/html`,
          `The message as HTML: ${m.subject}`,
          this.view,
        )
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
        replace(
          panel,
          checksTab('message', this.checks, this.checksError, (line) => this.lineHref(line)),
        )
        break
      case 'delivery':
        replace(panel, deliveryTab(m))
        break
      case 'links':
        replace(panel, linksTab(m))
        break
      default:
        replace(panel, details(m))
    }
  }

  private async deleteOpen(): Promise<void> {
    const m = this.record
    if (!m) return
    const next = this.list.neighbour(m.id)
    try {
      await api.deleteMessage(m.id)
    } catch (error) {
      toast(`Could not delete the message: ${(error as Error).message}`)
      return
    }
    announce('Message deleted')
    this.list.removeLocal(m.id)
    // The deleted message leaves no history entry to come back to.
    history.replaceState(history.state, '', this.hrefFor(next))
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  }
}

/** The first few recipients, and a button for the rest (all of them are in Details too). */
function recipientList(to: Address[], shown = 3): HTMLElement {
  const box = h('span', { class: 'recipients' })
  const render = (count: number) => {
    replace(
      box,
      to.slice(0, count).map((a, i) => [i ? ', ' : '', addressNode(a)]),
    )
    if (to.length > count) {
      box.append(
        ' ',
        h(
          'button',
          { type: 'button', class: 'link-button', onclick: () => render(to.length) },
          `and ${to.length - count} more`,
        ),
      )
    }
  }
  render(shown)
  return box
}

function addressNode(a: { name: string | null; address: string }): (Node | string)[] {
  return a.name
    ? [
        h('span', { class: 'addr-name' }, a.name),
        ' ',
        h('span', { class: 'addr' }, `<${a.address}>`),
      ]
    : [h('span', { class: 'addr-name' }, a.address)]
}

function details(m: MessageRecord): HTMLElement {
  const row = (label: string, ...value: (Node | string)[]) =>
    h('div', null, h('dt', null, label), h('dd', null, value))
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
      row(
        'Template',
        h(
          'a',
          {
            href: formatHash({
              view: 'templates',
              slug: m.template,
              params: new URLSearchParams(),
            }),
          },
          m.template,
        ),
      ),
      row('Project', h('code', null, m.project)),
      row('Token', h('code', null, m.tokenHint)),
      row(
        'Warnings',
        m.warnings.length ? h('ul', { class: 'plain' }, warningItems(m.warnings)) : 'None',
      ),
    ),
    h('h3', null, 'Variables'),
    jsonBlock(m.templateVariables),
  )
}
