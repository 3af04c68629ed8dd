import { api, type Suppression } from './api.js'
import { confirmDialog } from './components.js'
import { announce, h, replace, toast } from './dom.js'
import { fullTime, plural, timeAgo } from './format.js'
import { formatHash } from './router.js'
import { statusBadge } from './delivery.js'

/**
 * The Suppressions view: the addresses a hard bounce or a complaint put on a project's list,
 * newest first; sends to them end `suppressed`. Each can be removed, or all at once. Live over
 * the SSE `suppression` event.
 */
export class SuppressionsView {
  readonly root: HTMLElement
  private readonly body: HTMLElement
  private readonly count: HTMLElement
  private readonly clearButton: HTMLButtonElement
  private items: Suppression[] = []

  constructor() {
    this.count = h('span', { class: 'count', id: 'suppression-count' })
    this.clearButton = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-quiet btn-danger-text',
        id: 'clear-suppressions',
        onclick: () => void this.clearAll(),
      },
      'Remove all',
    )
    this.body = h('div', { class: 'page-body' })
    this.root = h(
      'section',
      {
        class: 'page',
        id: 'view-suppressions',
        'aria-labelledby': 'suppressions-title',
        hidden: true,
      },
      h(
        'div',
        { class: 'page-head' },
        h(
          'div',
          { class: 'title-row' },
          h('h2', { id: 'suppressions-title' }, 'Suppressions'),
          this.count,
          h('span', { class: 'spacer' }),
          this.clearButton,
        ),
        h(
          'p',
          { class: 'hint' },
          "A hard bounce or a complaint puts the address on its project's list (a project is one API token). Sends to it are still accepted, and end suppressed.",
        ),
      ),
      this.body,
    )
  }

  show(): void {
    document.title = 'Suppressions · sendbox'
    void this.reload()
  }

  resync(): void {
    if (!this.root.hidden) void this.reload()
  }

  /** SSE `suppression`: added or removed somewhere. */
  onChange(): void {
    if (!this.root.hidden) void this.reload()
  }

  async reload(): Promise<void> {
    try {
      this.items = (await api.suppressions()).suppressions
      this.render()
    } catch (error) {
      toast(`Could not load the suppression list: ${(error as Error).message}`)
    }
  }

  private render(): void {
    this.count.textContent = String(this.items.length)
    this.count.setAttribute('aria-label', plural(this.items.length, 'address', 'addresses'))
    this.clearButton.disabled = this.items.length === 0
    if (this.items.length === 0) {
      replace(
        this.body,
        h(
          'div',
          { class: 'empty' },
          h('p', { class: 'empty-title' }, 'No suppressed addresses'),
          h(
            'p',
            null,
            'Send to ',
            h('code', null, 'someone+bounce@example.com'),
            ' and the bounce puts it here.',
          ),
        ),
      )
      return
    }
    replace(
      this.body,
      h(
        'table',
        { class: 'vars suppressions', id: 'suppression-table' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ...['Address', 'Reason', 'Project', 'Added', 'Message', ''].map((label) =>
              h('th', { scope: 'col' }, label),
            ),
          ),
        ),
        h(
          'tbody',
          null,
          this.items.map((s) =>
            h(
              'tr',
              { 'data-address': s.address },
              h('th', { scope: 'row' }, s.address),
              h('td', null, statusBadge(s.reason)),
              h('td', null, h('code', null, s.project)),
              h(
                'td',
                null,
                h(
                  'time',
                  { datetime: s.createdAt, title: fullTime(s.createdAt), 'data-relative': '' },
                  timeAgo(s.createdAt),
                ),
              ),
              h(
                'td',
                null,
                s.messageId
                  ? h(
                      'a',
                      {
                        href: formatHash({
                          view: 'messages',
                          id: s.messageId,
                          params: new URLSearchParams({ tab: 'delivery' }),
                        }),
                      },
                      s.messageId,
                    )
                  : '—',
              ),
              h(
                'td',
                null,
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'btn btn-small',
                    'aria-label': `Remove ${s.address} (project ${s.project})`,
                    onclick: () => void this.remove(s),
                  },
                  'Remove',
                ),
              ),
            ),
          ),
        ),
      ),
    )
  }

  private async remove(s: Suppression): Promise<void> {
    try {
      await api.deleteSuppression(s.address, s.project)
      announce(`${s.address} removed from the suppression list`)
      await this.reload()
    } catch (error) {
      toast(`Could not remove ${s.address}: ${(error as Error).message}`)
    }
  }

  private async clearAll(): Promise<void> {
    const ok = await confirmDialog({
      title: 'Empty the suppression list?',
      text: `${plural(this.items.length, 'address', 'addresses')} will be removed; sends to them go out again.`,
      confirm: 'Remove all',
    })
    if (!ok) return
    try {
      await api.clearSuppressions()
      announce('The suppression list is empty')
      await this.reload()
    } catch (error) {
      toast(`Could not empty the list: ${(error as Error).message}`)
    }
  }
}
