/**
 * The keyboard of a list view (messages, templates): j/k and the arrows move through the items
 * (and open the next one when the list is off screen, on a phone), `/` goes to the search box,
 * Esc clears it, and going back to the list puts the keyboard on the item just left. Focus is
 * the one thing here that is imperative by nature: this object holds the list and the search
 * box (ListPane gives it them) and moves the focus between their elements.
 */

/** Which data attribute names an item: `data-id` (messages), `data-slug` (templates). */
export type ItemKey = 'id' | 'slug'

export interface ListHooks {
  /** The open item, if any. */
  current(): string | null
  /** Open an item (j/k with the list off screen). */
  open(value: string): void
  /** Back from the open item to the list. */
  back(): void
  /** Empty the search (Esc in a search box that has text). */
  clearSearch(): void
  /** Before `/` looks for the search box: show the list if the view folded it away. */
  reveal?(): void
}

/**
 * Focuses `target` after a route change, unless the user has meanwhile put the focus somewhere
 * outside `within` (a route changes a moment after the key that asked for it: `Esc` then `/`
 * must leave the focus in the search box).
 */
export function refocus(target: HTMLElement | null | undefined, ...within: HTMLElement[]): void {
  const active = document.activeElement
  if (!active || active === document.body || within.some((el) => el.contains(active)))
    target?.focus()
}

export class ListNav {
  list: HTMLElement | null = null
  search: HTMLInputElement | null = null
  /** Where the keyboard goes once the list's route is back: the search box (`/`), or the item just left (Esc). */
  private afterRoute: { search: boolean; item: string | null } = { search: false, item: null }

  constructor(
    readonly key: ItemKey,
    private readonly hooks: ListHooks,
  ) {}

  private links(): HTMLElement[] {
    return this.list ? [...this.list.querySelectorAll<HTMLElement>(`a[data-${this.key}]`)] : []
  }

  focusItem(index: number): void {
    const links = this.links()
    links[Math.max(0, Math.min(index, links.length - 1))]?.focus()
  }

  /** j/k: the next or previous item; opens it when the list is not on screen. */
  move(delta: number): void {
    const links = this.links()
    if (!links.length || !this.list) return
    const current = this.hooks.current()
    const listShown = this.list.getClientRects().length > 0
    const active = links.indexOf(document.activeElement as HTMLElement)
    const at = active !== -1 ? active : links.findIndex((l) => l.dataset[this.key] === current)
    const next =
      at === -1
        ? delta > 0
          ? 0
          : links.length - 1
        : Math.max(0, Math.min(links.length - 1, at + delta))
    const link = links[next]!
    if (listShown) link.focus()
    else if (link.dataset[this.key] !== current) this.hooks.open(link.dataset[this.key]!)
  }

  /** `/`: the search box, coming back to the list first when it is not on screen. */
  focusSearch(): void {
    this.hooks.reveal?.()
    const search = this.search
    if (search && search.getClientRects().length > 0) {
      search.focus()
      search.select()
    } else {
      this.afterRoute.search = true
      this.hooks.back()
    }
  }

  /** Esc in the search box: clear it first, then leave it for the first result. */
  escapeSearch(): void {
    if (this.search?.value) this.hooks.clearSearch()
    else this.focusItem(0)
  }

  /** Going back to the list from this item: the keyboard lands on it there. */
  leaving(item: string): void {
    this.afterRoute.item = item
  }

  /** On the list's own route, once drawn: the keyboard where the last key asked for it. */
  restoreFocus(detail: HTMLElement | null): void {
    const pending = this.afterRoute
    if (pending.search) {
      pending.search = false
      pending.item = null
      this.search?.focus()
    }
    if (pending.item && this.list) {
      refocus(
        this.list.querySelector<HTMLElement>(`[data-${this.key}="${CSS.escape(pending.item)}"]`),
        ...[this.list, detail].filter((el): el is HTMLElement => !!el),
      )
      pending.item = null
    }
  }

  /** The keyboard moves in the list: is it in the list now? */
  contains(target: EventTarget | null): boolean {
    return !!this.list && target instanceof Node && this.list.contains(target)
  }
}
