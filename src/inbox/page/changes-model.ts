import { signal } from '@preact/signals'
import {
  api,
  type SnapshotCase,
  type SnapshotChange,
  type SnapshotCounts,
  type SnapshotStatus,
  type SnapshotSummary,
  type TemplateChange,
} from './api.js'
import {
  caseId,
  compareParams,
  DEFAULT_COMPARE,
  parseCaseId,
  readCompare,
  sameCase,
  sameCompare,
  type CaseKey,
  type CompareMode,
  type CompareOptions,
} from './changes-route.js'
import { plural } from './format.js'
import { ListNav } from './list-nav.js'
import type { Page } from './page.js'
import type { ViewState } from './preview.js'
import { formatHash, goHash, replaceParams, type Route } from './router.js'

/**
 * The Changes view's state (docs/inbox.md#reviewing-changes): every case whose render is not its snapshot
 * (changed, new, and obsolete snapshots), live over the SSE `snapshot` event; the case open
 * (`#/changes/<template>?case=<case>`) in full, with how it is compared; accepting one or all.
 * The count in the navigation (changed + new) comes with every event, whatever view is shown.
 * changes.tsx draws it.
 */

/** A burst of events (a partial saved, used by six templates) reloads once. */
const EVENT_BURST_MS = 100

/** The order of the list: what changed first, then what is new, then what is gone. */
const ORDER: Record<SnapshotStatus, number> = { changed: 0, new: 1, obsolete: 2, same: 3 }

/** What a case's snapshot status means, in words. */
export const STATUS_WORDS: Record<SnapshotStatus, { label: string; explain: string }> = {
  changed: {
    label: 'Changed',
    explain: 'The render differs from its snapshot (or no longer renders).',
  },
  new: { label: 'New', explain: 'No snapshot yet: accepting writes this render as its snapshot.' },
  obsolete: {
    label: 'Obsolete',
    explain: 'Its template or fixture case is gone: accepting removes the snapshot files.',
  },
  same: { label: 'Same', explain: 'The render is its snapshot.' },
}

/** Changed and new: what is left to review, the number the navigation shows. */
export const toReview = (counts: SnapshotCounts | null): number | null =>
  counts ? counts.changed + counts.new : null

export type DetailState = 'idle' | 'loading' | 'ok' | 'gone' | 'error'

export class ChangesModel {
  /** The cases to review (all but `same`), changed first; null until loaded. */
  readonly items = signal<SnapshotSummary[] | null>(null)
  readonly counts = signal<SnapshotCounts | null>(null)
  /** The snapshot folder, as the server shows it. */
  readonly folder = signal('')
  /** The case in the URL. */
  readonly open = signal<CaseKey | null>(null)
  /** The open case in full, once loaded (the last answer stays while the next loads). */
  readonly detail = signal<SnapshotCase | null>(null)
  readonly detailState = signal<DetailState>('idle')
  readonly options = signal<CompareOptions>(DEFAULT_COMPARE)
  /** Swipe: where the divider is, in % of the width from the left (the snapshot's side). */
  readonly split = signal(50)
  /** Overlay: the opacity of the render now over the snapshot, in %. */
  readonly opacity = signal(50)
  /** Cases being accepted (`*`: all). */
  readonly accepting = signal<ReadonlySet<string>>(new Set())
  readonly filter = signal('')
  readonly keys = new ListNav('id', {
    current: () => {
      const open = this.open.peek()
      return open ? caseId(open) : null
    },
    open: (id) => goHash(this.hrefFor(parseCaseId(id))),
    back: () => this.back(),
    clearSearch: () => {
      this.filter.value = ''
    },
  })
  private shown = false
  private listTicket = 0
  private detailTicket = 0
  private eventTimer = 0
  private reloadDetail = false

  constructor(private readonly page: Page) {}

  // ---- routing -------------------------------------------------------------------------

  show(route: Route): void {
    const options = readCompare(route.params, this.options.peek())
    if (!sameCompare(options, this.options.peek())) this.options.value = options
    const open = route.name
      ? { template: route.name, case: route.params.get('case') || 'default' }
      : null
    if (open) replaceParams({ case: open.case, ...compareParams(options) })
    if (!sameCase(open, this.open.peek())) {
      this.open.value = open
      this.detail.value = null
      this.detailState.value = open ? 'loading' : 'idle'
      if (open) void this.loadDetail()
    }
    if (!this.shown) void this.reload()
    this.shown = true
  }

  hide(): void {
    this.shown = false
  }

  /** A link to a case (or to the list), with the comparison as it is now. */
  hrefFor(key: CaseKey | null): string {
    const params = new URLSearchParams()
    if (key) {
      params.set('case', key.case)
      for (const [name, value] of Object.entries(compareParams(this.options.peek())))
        if (value) params.set(name, value)
    }
    return formatHash({ view: 'changes', name: key?.template ?? null, params })
  }

  setMode(mode: CompareMode): void {
    this.setOptions({ ...this.options.peek(), mode })
  }

  setView(view: ViewState): void {
    this.setOptions({ ...this.options.peek(), view: { ...view, imagesOff: false } })
  }

  setDifference(difference: boolean): void {
    this.setOptions({ ...this.options.peek(), difference })
  }

  /** The options first, then the URL (which leaves the defaults out). */
  private setOptions(options: CompareOptions): void {
    this.options.value = options
    replaceParams(compareParams(options))
  }

  setSplit(percent: number): void {
    this.split.value = Math.round(Math.min(100, Math.max(0, percent)))
  }

  setOpacity(percent: number): void {
    this.opacity.value = Math.round(Math.min(100, Math.max(0, percent)))
  }

  /** Escape: from a case back to the list. */
  back(): boolean {
    const open = this.open.peek()
    if (!open) return false
    this.keys.leaving(caseId(open))
    goHash(this.hrefFor(null))
    return true
  }

  // ---- loading, and the event stream ---------------------------------------------------

  /** The list and the counts (at start, on a reconnection, after an accept, after events). */
  async reload(): Promise<void> {
    const ticket = ++this.listTicket
    try {
      const answer = await api.snapshots()
      if (ticket !== this.listTicket) return
      this.items.value = answer.snapshots
        .filter((s) => s.status !== 'same')
        .sort((a, b) => ORDER[a.status] - ORDER[b.status])
      this.counts.value = answer.counts
      this.folder.value = answer.folder
    } catch (error) {
      if (ticket === this.listTicket)
        this.page.toast(`Could not load the changes: ${(error as Error).message}`)
    }
  }

  /** The open case in full; an answer overtaken by a newer request is dropped. */
  private async loadDetail(): Promise<void> {
    const open = this.open.peek()
    if (!open) return
    const ticket = ++this.detailTicket
    try {
      const detail = await api.snapshot(open.template, open.case)
      if (ticket !== this.detailTicket) return
      this.detail.value = detail
      this.detailState.value = 'ok'
    } catch (error) {
      if (ticket !== this.detailTicket) return
      const gone = (error as { status?: number }).status === 404
      this.detailState.value = gone ? 'gone' : 'error'
      if (gone) this.detail.value = null
      else
        this.page.toast(
          `Could not load ${open.template} (${open.case}): ${(error as Error).message}`,
        )
    }
  }

  /** After a reconnection: whatever changed meanwhile. */
  resync(): void {
    void this.reload()
    if (this.open.peek()) void this.loadDetail()
  }

  /**
   * SSE `snapshot`: a status changed. The count follows at once (the navigation shows it in
   * every view); the list, and the open case when it is the one, a moment later, once per burst.
   */
  onSnapshot(change: SnapshotChange): void {
    this.counts.value = change.counts
    this.soon(sameCase(change, this.open.peek()))
  }

  /**
   * SSE `template`: a template, a partial it uses or a fixture was saved. A case that was
   * changed and still is sends no `snapshot` event, but its render (and its diff) moved.
   */
  onTemplateChange(change: TemplateChange): void {
    if (this.open.peek()?.template === change.slug) this.soon(true)
  }

  private soon(detail: boolean): void {
    this.reloadDetail ||= detail
    this.page.timing.clearTimeout(this.eventTimer)
    this.eventTimer = this.page.timing.setTimeout(() => {
      const reloadDetail = this.reloadDetail
      this.reloadDetail = false
      void this.reload()
      if (reloadDetail) void this.loadDetail()
    }, EVENT_BURST_MS)
  }

  // ---- accepting -----------------------------------------------------------------------

  /** The case after this one in the list, else the one before: where review goes on. */
  private neighbour(key: CaseKey): CaseKey | null {
    const items = this.items.peek() ?? []
    const at = items.findIndex((s) => sameCase(s, key))
    const next = items[at + 1] ?? items[at - 1] ?? null
    return at === -1 || !next ? null : { template: next.template, case: next.case }
  }

  private setAccepting(id: string, on: boolean): void {
    const next = new Set(this.accepting.peek())
    if (on) next.add(id)
    else next.delete(id)
    this.accepting.value = next
  }

  /**
   * Accepts a case: its render now becomes its snapshot (an obsolete snapshot is removed). The
   * open case then moves on to the next one to review.
   */
  async accept(key: CaseKey): Promise<void> {
    const id = caseId(key)
    const next = this.neighbour(key)
    this.setAccepting(id, true)
    try {
      const answer = await api.acceptSnapshot(key.template, key.case)
      this.counts.value = answer.counts
      const left = toReview(answer.counts) ?? 0
      this.page.announce(
        `${answer.status === null ? 'Removed the snapshot of' : 'Accepted'} ${key.template} (${key.case}); ${plural(left, 'change')} left to review`,
      )
      await this.reload()
      if (sameCase(this.open.peek(), key)) goHash(this.hrefFor(next))
    } catch (error) {
      this.page.toast(`Could not accept ${key.template} (${key.case}): ${(error as Error).message}`)
    } finally {
      this.setAccepting(id, false)
    }
  }

  /** Accepts every changed and new case that renders, once the dialog says yes. */
  async acceptAll(): Promise<void> {
    const counts = this.counts.peek()
    const obsolete = counts?.obsolete ?? 0
    const yes = await this.page.confirm({
      title: 'Accept every change?',
      text: `${counts ? `${plural(counts.changed, 'changed case')} and ${counts.new} new: each` : 'Each'} render becomes its snapshot.${obsolete ? ` ${plural(obsolete, 'obsolete snapshot')} ${obsolete === 1 ? 'stays' : 'stay'} (accept ${obsolete === 1 ? 'it' : 'each'} to remove it, or run sendbox check -u).` : ''}`,
      confirm: 'Accept all',
    })
    if (!yes) return
    this.setAccepting('*', true)
    try {
      const answer = await api.acceptAllSnapshots()
      this.counts.value = answer.counts
      this.page.announce(`Accepted ${plural(answer.accepted.length, 'case')}`)
      if (answer.skipped.length)
        this.page.toast(
          `${plural(answer.skipped.length, 'case')} not accepted, ${answer.skipped.length === 1 ? 'it does' : 'they do'} not render: ${answer.skipped.map((s) => `${s.template} (${s.case})`).join(', ')}`,
        )
      await this.reload()
      if (this.open.peek()) await this.loadDetail()
    } catch (error) {
      this.page.toast(`Could not accept the changes: ${(error as Error).message}`)
    } finally {
      this.setAccepting('*', false)
    }
  }
}
