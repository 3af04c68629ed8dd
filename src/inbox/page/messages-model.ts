import { signal } from '@preact/signals'
import {
  api,
  ApiError,
  type CheckReport,
  type MessageRecord,
  type MessageSummary,
  type Release,
  type StatusChange,
} from './api.js'
import { applyStatus } from './delivery-model.js'
import {
  detailParams,
  readDetailRoute,
  sameDetail,
  tabParam,
  type DetailRoute,
  type TabSpec,
} from './detail-route.js'
import { ListNav } from './list-nav.js'
import { MessageListModel } from './message-list-model.js'
import type { Page } from './page.js'
import { DEFAULT_VIEW, setViewParams, viewParams, type ViewState } from './preview.js'
import { RejectionsModel } from './rejections-model.js'
import { ReleaseModel } from './release-model.js'
import { SpamModel } from './spam-model.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'

export const MESSAGE_TABS: readonly TabSpec[] = [
  { id: 'html', label: 'HTML' },
  { id: 'text', label: 'Text' },
  { id: 'links', label: 'Links' },
  { id: 'source', label: 'Source' },
  { id: 'details', label: 'Details' },
  { id: 'delivery', label: 'Delivery' },
  { id: 'checks', label: 'Checks' },
]

/** The open message: nothing, on its way, here, gone, or an error. */
export type OpenMessage =
  | { state: 'none' }
  | { state: 'loading'; id: string }
  | { state: 'ready'; record: MessageRecord }
  | { state: 'gone'; id: string }
  | { state: 'error'; id: string; message: string }

/**
 * The Messages view's state: the list (MessageListModel), the rejected sends above it, and the
 * open message, fetched whole (the list holds summaries), with its checks and the tab, preview
 * view and source line the URL gives it. Tab, width, colours and images carry over from one
 * message to the next.
 */
export class MessagesModel {
  readonly list: MessageListModel
  readonly rejections: RejectionsModel
  /** "Send to a real inbox" on the open message. */
  readonly release: ReleaseModel
  /** The open message's SpamAssassin score, shown in its Checks tab. */
  readonly spam = new SpamModel()
  readonly open = signal<OpenMessage>({ state: 'none' })
  readonly checks = signal<{ report: CheckReport | null; error: string | null }>({
    report: null,
    error: null,
  })
  readonly detail = signal<DetailRoute>({ tab: 'html', view: DEFAULT_VIEW, line: null })
  /** The list's keyboard: j/k, `/`, Esc (app.tsx sends the keys). */
  readonly keys = new ListNav('id', {
    current: () => this.openId,
    open: (id) => goHash(this.hrefFor(id)),
    back: () => this.back(),
    clearSearch: () => replaceParams({ q: null }),
  })

  constructor(private readonly page: Page) {
    this.list = new MessageListModel(page, (ids) => {
      const open = this.open.peek()
      if (open.state === 'ready' && ids.includes(open.record.id))
        this.open.value = { state: 'gone', id: open.record.id }
    })
    this.rejections = new RejectionsModel()
    this.release = new ReleaseModel(page)
  }

  get openId(): string | null {
    const open = this.open.peek()
    return open.state === 'none' ? null : open.state === 'ready' ? open.record.id : open.id
  }

  // ---- routing -------------------------------------------------------------------------

  show(route: Route): void {
    this.list.setQuery(route.params.get('q') ?? '')
    const detail = readDetailRoute(route.params, MESSAGE_TABS, this.detail.peek())
    if (!sameDetail(detail, this.detail.peek())) this.detail.value = detail
    if (route.name) replaceParams(detailParams(MESSAGE_TABS, detail))
    if (route.name !== this.openId || this.open.peek().state === 'error') void this.load(route.name)
    this.list.current.value = route.name
  }

  /** The list's URL with its search, or a message's with the tab and view carried over. */
  hrefFor(id: string | null): string {
    const params = new URLSearchParams()
    const q = this.list.query.peek()
    if (q) params.set('q', q)
    const { tab, view } = this.detail.peek()
    if (id && tab !== 'html') params.set('tab', tab)
    if (id) setViewParams(params, view)
    return formatHash({ view: 'messages', name: id, params })
  }

  /**
   * A tab picked (a click, the arrows): the detail changes first, then the URL, whose route
   * leaves the default tab out (and a route that leaves it out keeps the tab it had).
   */
  setTab(tab: string): void {
    this.detail.value = { ...this.detail.peek(), tab, line: null }
    replaceParams({ tab: tabParam(MESSAGE_TABS, tab), line: null })
  }

  /** The preview options changed: the detail first, then the URL (which leaves defaults out). */
  setView(view: ViewState): void {
    this.detail.value = { ...this.detail.peek(), view }
    replaceParams(viewParams(view))
  }

  /** Escape: from a message back to the list. */
  back(): boolean {
    const id = this.openId
    if (!id) return false
    this.keys.leaving(id)
    goHash(this.hrefFor(null))
    return true
  }

  // ---- live events ---------------------------------------------------------------------

  onMessage(summary: MessageSummary): void {
    this.list.onMessage(summary)
  }

  onDeleted(id: string): void {
    this.list.onDeleted(id)
    if (id === this.openId) this.open.value = { state: 'gone', id }
  }

  /** SSE `status`: a recipient event; the list's badge, the header's and the Delivery tab follow. */
  onStatus(change: StatusChange): void {
    this.list.onStatus(change)
    const open = this.open.peek()
    if (open.state === 'ready' && open.record.id === change.id)
      this.open.value = { state: 'ready', record: applyStatus(open.record, change) }
  }

  /** SSE `release`: the message went to a real mailbox; the open record's releases follow. */
  onRelease({ id, release }: { id: string; release: Release }): void {
    const open = this.open.peek()
    if (open.state === 'ready' && open.record.id === id)
      this.open.value = {
        state: 'ready',
        record: { ...open.record, releases: [...(open.record.releases ?? []), release] },
      }
  }

  onCleared(): void {
    this.list.onCleared()
    void this.rejections.load()
  }

  /** After a (re)connection: whatever happened meanwhile. */
  resync(): void {
    this.list.resync()
    void this.rejections.load()
  }

  // ---- the open message ----------------------------------------------------------------

  private async load(id: string | null): Promise<void> {
    this.checks.value = { report: null, error: null }
    this.release.reset()
    this.spam.reset()
    if (!id) {
      this.open.value = { state: 'none' }
      return
    }
    this.open.value = { state: 'loading', id }
    let record: MessageRecord
    try {
      record = await api.message(id)
    } catch (error) {
      if (this.openId !== id) return
      this.open.value =
        error instanceof ApiError && error.status === 404
          ? { state: 'gone', id }
          : { state: 'error', id, message: (error as Error).message }
      return
    }
    if (this.openId !== id) return
    this.open.value = { state: 'ready', record }
    void this.spam.load(id)
    try {
      const report = await api.messageChecks(id)
      if (this.openId === id) this.checks.value = { report, error: null }
    } catch (error) {
      if (this.openId === id) this.checks.value = { report: null, error: (error as Error).message }
    }
  }

  /** Deletes the open message and goes on to the next one in the list (no history entry). */
  async deleteOpen(): Promise<void> {
    const id = this.openId
    if (!id) return
    const next = this.list.neighbour(id)
    try {
      await api.deleteMessage(id)
    } catch (error) {
      this.page.toast(`Could not delete the message: ${(error as Error).message}`)
      return
    }
    this.page.announce('Message deleted')
    this.list.removeLocal(id)
    history.replaceState(history.state, '', this.hrefFor(next))
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  }
}
