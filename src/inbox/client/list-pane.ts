import { h, replace, type Child } from './dom.js'
import {
  focusedItem,
  focusItem,
  focusSearch,
  markCurrent,
  moveInList,
  refocusItem,
  restoreListFocus,
  type ItemKey,
  type ListFocus,
} from './split.js'

/**
 * The list side of a view: a title with a count, a search box (`/` to reach it, Esc to clear it,
 * ↓ into the results), the list (j/k and the arrows move, the open item is marked), and what to
 * say when it is empty. The view renders the rows; the pane keeps the keyboard where it was.
 */

export interface ListPaneOptions {
  /** Which data attribute names an item: `data-slug`, `data-id`. */
  key: ItemKey
  /** Element ids, kept stable: links, the keyboard and the tests use them. */
  ids: { pane: string; title: string; search: string; count: string; list: string }
  title: string
  /** The search box's label (visually hidden) and placeholder. */
  searchLabel: string
  /** The search text changed (typed, or cleared by Esc). */
  onInput(): void
  /** Extra attributes of the search box (`aria-describedby`). */
  searchProps?: Record<string, string>
  /** After the count in the title row (a "Clear all" button). */
  titleExtras?: Child[]
  /** Under the search box (help, notices). */
  headExtras?: Child[]
  /** Under the list (a "Show more" button). */
  footer?: Child[]
}

/** How the pane reaches the rest of the view: open an item (j/k with the list off screen), go back to the list. */
export interface ListNavigation {
  open(value: string): void
  back(): void
  /** Before `/` looks for the search box: show the pane if the view has folded it away. */
  reveal?(): void
}

export class ListPane {
  readonly root: HTMLElement
  readonly search: HTMLInputElement
  readonly list: HTMLUListElement
  readonly count: HTMLElement
  readonly empty: HTMLElement
  private readonly key: ItemKey
  /** Where the keyboard goes once the list's route is back (see restoreListFocus). */
  private readonly afterRoute: ListFocus = { search: false, item: null }
  private current: string | null = null

  constructor(
    private readonly options: ListPaneOptions,
    private readonly nav: ListNavigation,
  ) {
    const { ids } = options
    this.key = options.key
    this.search = h('input', {
      id: ids.search,
      type: 'search',
      class: 'search-input',
      placeholder: options.searchLabel,
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-keyshortcuts': '/',
      ...options.searchProps,
      oninput: () => options.onInput(),
    })
    this.count = h('span', { class: 'count', id: ids.count })
    this.list = h('ul', { class: 'items', id: ids.list, 'aria-labelledby': ids.title })
    this.empty = h('div', { class: 'empty', hidden: true })
    this.root = h(
      'section',
      { class: 'pane list-pane', id: ids.pane, 'aria-labelledby': ids.title },
      h(
        'div',
        { class: 'pane-head' },
        h(
          'div',
          { class: 'title-row' },
          h('h2', { id: ids.title }, options.title),
          this.count,
          options.titleExtras,
        ),
        h(
          'div',
          { class: 'search', role: 'search' },
          h('label', { for: ids.search, class: 'visually-hidden' }, options.searchLabel),
          this.search,
          h('kbd', { class: 'search-key', 'aria-hidden': 'true' }, '/'),
        ),
        options.headExtras,
      ),
      this.list,
      this.empty,
      options.footer,
    )
  }

  /** The rows, in place of the old ones: the keyboard stays on the item it was on; the open item is marked. */
  show(rows: HTMLElement[]): void {
    const focused = focusedItem(this.list, this.key)
    replace(this.list, rows)
    this.markCurrent(this.current)
    refocusItem(this.list, this.key, focused)
  }

  /** The count by the title, with words for screen readers. */
  setCount(text: string, label: string): void {
    this.count.textContent = text
    this.count.setAttribute('aria-label', label)
    this.count.title = label
  }

  /** What the empty list says (null: the list is not empty, or not loaded). */
  setEmpty(content: Child | null): void {
    this.empty.hidden = content === null
    replace(this.empty, content)
  }

  /** aria-current on the open item. */
  markCurrent(current: string | null): void {
    this.current = current
    markCurrent(this.list, this.key, current)
  }

  // ---- keyboard (app.ts calls these through the view) --------------------------------------

  focusItem(index: number): void {
    focusItem(this.list, this.key, index)
  }

  /** j/k: the next or previous item; opens it when the list is not on screen. */
  move(delta: number): void {
    moveInList(this.list, this.key, this.current, delta, (value) => this.nav.open(value))
  }

  /** `/`: the search box, coming back to the list first when it is not on screen. */
  focusSearch(): void {
    this.nav.reveal?.()
    focusSearch(this.search, this.afterRoute, () => this.nav.back())
  }

  /** Esc in the search box: clear it first, then leave it for the first result. */
  escapeSearch(): void {
    if (this.search.value) {
      this.search.value = ''
      this.options.onInput()
    } else this.focusItem(0)
  }

  /** Going back to the list from this item: the keyboard lands on it there. */
  leaving(item: string): void {
    this.afterRoute.item = item
  }

  /** On the list's own route: the keyboard where the last key asked for it. */
  restoreFocus(detail: HTMLElement): void {
    restoreListFocus(this.afterRoute, this.search, this.list, detail, this.key)
  }
}
