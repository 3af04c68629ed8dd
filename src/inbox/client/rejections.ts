import type { Rejection } from '../../core/rejections.js'
import { API } from './api.js'
import { h, replace } from './dom.js'
import { fullTime, timeAgo } from './format.js'

/**
 * Recent rejected sends, folded away above the message list: "2 sends rejected recently". A
 * send the application thought went out, but sendbox refused (a 422, a live token), shows up
 * here with its code and message instead of nowhere. Fed by GET /_sandbox/api/rejections and
 * the event stream's `rejected` events; hidden while there is none.
 */

const SHOWN = 20

export class RejectionsPanel {
  readonly root: HTMLDetailsElement
  private readonly summary: HTMLElement
  private readonly list: HTMLUListElement
  private items: Rejection[] = []
  private total = 0

  constructor() {
    this.summary = h('summary', { class: 'rejections-summary' })
    this.list = h('ul', { class: 'rejections-list', 'aria-label': 'Rejected sends' })
    this.root = h(
      'details',
      { class: 'rejections', id: 'rejections', hidden: true },
      this.summary,
      this.list,
    )
  }

  /** Fetches the newest ones (on start, on reconnect, after a clear). */
  async load(): Promise<void> {
    try {
      const response = await fetch(`${API}/rejections?limit=${SHOWN}`, { cache: 'no-store' })
      if (!response.ok) return
      const page = (await response.json()) as { rejections: Rejection[]; total: number }
      this.items = page.rejections
      this.total = page.total
      this.render()
    } catch {
      // sendbox is away; the next reconnect loads them again.
    }
  }

  /** One arrived over the event stream. */
  add(rejection: Rejection): void {
    this.items = [rejection, ...this.items].slice(0, SHOWN)
    this.total++
    this.render()
  }

  private render(): void {
    this.root.hidden = this.total === 0
    this.summary.textContent = `${this.total} ${this.total === 1 ? 'send' : 'sends'} rejected recently`
    replace(this.list, ...this.items.map((r) => this.item(r)))
  }

  private item(r: Rejection): HTMLElement {
    const what = [
      r.template,
      r.to?.length
        ? `→ ${r.to.slice(0, 2).join(', ')}${r.to.length > 2 ? ` +${r.to.length - 2}` : ''}`
        : null,
    ]
      .filter(Boolean)
      .join(' ')
    return h(
      'li',
      { class: 'rejection' },
      h(
        'span',
        { class: 'rejection-top' },
        h('span', { class: 'tag rejection-code' }, `${r.status} ${r.code}`),
        h('time', { class: 'item-time', datetime: r.at, title: fullTime(r.at) }, timeAgo(r.at)),
      ),
      what ? h('span', { class: 'rejection-what' }, what) : null,
      h('span', { class: 'rejection-message' }, r.message),
    )
  }
}
