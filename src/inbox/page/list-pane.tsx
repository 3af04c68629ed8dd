import type { ComponentChildren, Ref } from 'preact'
import { plural } from './format.js'
import type { ListNav } from './list-nav.js'

/**
 * The list side of a view: a title with a count, a search box (`/` to reach it, Esc to clear
 * it, ↓ into the results), the list (j/k and the arrows move: ListNav), what to say when it is
 * empty, and a footer. The view renders the rows (each an `<li>` holding an `<a data-id>` or
 * `<a data-slug>`).
 */

export interface ListPaneProps {
  nav: ListNav
  /** Element ids, kept stable: links, the keyboard and the tests use them. */
  ids: { pane: string; title: string; search: string; count: string; list: string }
  title: string
  /** The count by the title, and in words for screen readers; null while unknown. */
  count: CountFigure | null
  /** The search box's label (visually hidden) and placeholder. */
  searchLabel: string
  search: string
  onSearch(value: string): void
  /** Attributes of the search box (`aria-describedby`). */
  searchDescribedBy?: string
  /** After the count in the title row (a "Clear all" button). */
  titleExtras?: ComponentChildren
  /** Under the search box (help, notices). */
  headExtras?: ComponentChildren
  /** The rows. */
  children: ComponentChildren
  /** What the list says when it is empty; null: it is not (or not loaded). */
  empty: ComponentChildren | null
  /** Under the list (a "Show more" button). */
  footer?: ComponentChildren
  listRef?: Ref<HTMLUListElement>
  /** Pointer over the list (a tooltip made only when asked for). */
  onListPointerOver?: (event: PointerEvent) => void
}

/**
 * @example
 * <ListPane nav={nav} ids={IDS} title="Templates" count={null} searchLabel="Filter templates" search={q} onSearch={setQ} empty={null}>{rows}</ListPane>
 */
export function ListPane(props: ListPaneProps) {
  const { nav, ids } = props
  return (
    <section class="pane list-pane" id={ids.pane} aria-labelledby={ids.title}>
      <div class="pane-head">
        <div class="title-row">
          <h2 id={ids.title}>{props.title}</h2>
          <Count id={ids.count} count={props.count} />
          {props.titleExtras}
        </div>
        <div class="search" role="search">
          <label for={ids.search} class="visually-hidden">
            {props.searchLabel}
          </label>
          <input
            ref={(element) => {
              nav.search = element
            }}
            id={ids.search}
            type="search"
            class="search-input"
            placeholder={props.searchLabel}
            autocomplete="off"
            spellcheck={false}
            aria-keyshortcuts="/"
            aria-describedby={props.searchDescribedBy}
            value={props.search}
            onInput={(event) => props.onSearch((event.target as HTMLInputElement).value)}
          />
          <span class="search-key" aria-hidden="true">
            <kbd>/</kbd>
          </span>
        </div>
        {props.headExtras}
      </div>
      <ul
        class="items"
        id={ids.list}
        aria-labelledby={ids.title}
        onPointerOver={props.onListPointerOver}
        ref={(element) => {
          nav.list = element
          if (typeof props.listRef === 'function') props.listRef(element)
          else if (props.listRef) props.listRef.current = element
        }}
      >
        {props.children}
      </ul>
      {props.empty === null ? null : <div class="empty">{props.empty}</div>}
      {props.footer}
    </section>
  )
}

/** What a count badge shows: the figure, and the same in words for screen readers. */
export interface CountFigure {
  text: string
  label: string
}

/**
 * A count badge's figure for `n` things, in words too.
 *
 * @example
 * countOf(2, 'address', 'addresses') // { text: '2', label: '2 addresses' }
 */
export const countOf = (n: number, one: string, many?: string): CountFigure => ({
  text: String(n),
  label: plural(n, one, many),
})

/**
 * The count badge of a list or a page (Messages, Templates, Suppressions all have it), with
 * words for screen readers.
 *
 * @example
 * <Count id="suppression-count" count={{ text: '2', label: '2 addresses' }} />
 */
export function Count({ id, count }: { id: string; count: CountFigure | null }) {
  return (
    <span class="count" id={id} role="img" aria-label={count?.label} title={count?.label}>
      {count?.text ?? ''}
    </span>
  )
}
