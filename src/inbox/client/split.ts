import { selectTab, type TabSpec } from './components.js'
import { refocus } from './dom.js'
import {
  applyView,
  frameSrc,
  loadFrame,
  readView,
  viewParams,
  type PreviewControls,
  type ViewState,
} from './preview.js'
import { currentRoute, parseLine } from './router.js'

/**
 * What both views are: a list of items (`data-id` messages, `data-slug` templates) beside the open
 * item's detail, with its tabs, preview view and Source line in the URL.
 */

export type ItemKey = 'id' | 'slug'

// ---- the detail's tab, view and line -----------------------------------------------------

/** The tab the URL names, else the first tab (the default, which the URL leaves out). */
export const pickTab = (tabs: TabSpec[], tab: string | null): string =>
  tabs.some((t) => t.id === tab) ? tab! : tabs[0]!.id

/** The tab as a URL parameter: null (left out) for the default tab. */
export const tabParam = (tabs: TabSpec[], tab: string): string | null =>
  tab === tabs[0]!.id ? null : tab

export interface DetailRoute {
  tab: string
  view: ViewState
  line: number | null
}

/** What a route asks of the detail: the tab and the view carry over when it leaves them out; a line only on a source tab (`lineTabs`). */
export function readDetailRoute(
  params: URLSearchParams,
  tabs: TabSpec[],
  tab: string,
  view: ViewState,
  lineTabs: readonly string[] = ['source'],
): DetailRoute {
  if (params.has('tab')) tab = pickTab(tabs, params.get('tab'))
  return {
    tab,
    view: readView(params, view),
    line: lineTabs.includes(tab) ? parseLine(params.get('line')) : null,
  }
}

/** The detail's URL parameters, for replaceParams (null: leave the key out). */
export function detailParams(
  tabs: TabSpec[],
  { tab, view, line }: DetailRoute,
): Record<string, string | null> {
  return { tab: tabParam(tabs, tab), ...viewParams(view), line: line ? String(line) : null }
}

/** The current route's parameters, on a source tab at this line ("line 42" in the checks links there). */
export function sourceLineParams(line: number, tab = 'source'): URLSearchParams {
  const params = new URLSearchParams(currentRoute().params)
  params.set('tab', tab)
  params.set('line', String(line))
  return params
}

/** The frame in this view, on this document (`src` before the view options): it keeps its document when the URL is the same. */
export function updateFrame(
  frame: HTMLIFrameElement | null,
  view: ViewState,
  src: string | null,
): void {
  applyView(frame, view)
  if (src) loadFrame(frame, frameSrc(src, view))
}

/** A new tab or view, shown in place: the tab list, the controls and the frame follow. */
export function syncFrame(
  tabs: HTMLElement,
  tab: string,
  controls: PreviewControls | null,
  frame: HTMLIFrameElement | null,
  view: ViewState,
  src: string | null,
): void {
  selectTab(tabs, tab)
  controls?.sync(view)
  updateFrame(frame, view, src)
}

// ---- the list and the keyboard -----------------------------------------------------------

/** aria-current on the open item's entry in the list. */
export function markCurrent(list: HTMLElement, key: ItemKey, current: string | null): void {
  for (const item of list.querySelectorAll<HTMLElement>(`[data-${key}]`)) {
    if (item.dataset[key] === current) item.setAttribute('aria-current', 'true')
    else item.removeAttribute('aria-current')
  }
}

/** The item in the list that has the keyboard, to give it back once the list is rebuilt (`refocusItem`). */
export const focusedItem = (list: HTMLElement, key: ItemKey): string | undefined =>
  (document.activeElement as HTMLElement | null)?.closest<HTMLElement>(`#${list.id} [data-${key}]`)
    ?.dataset[key]

export function refocusItem(list: HTMLElement, key: ItemKey, value: string | undefined): void {
  if (value) list.querySelector<HTMLElement>(`[data-${key}="${CSS.escape(value)}"]`)?.focus()
}

export const itemLinks = (list: HTMLElement, key: ItemKey): HTMLElement[] => [
  ...list.querySelectorAll<HTMLElement>(`a[data-${key}]`),
]

export function focusItem(list: HTMLElement, key: ItemKey, index: number): void {
  const links = itemLinks(list, key)
  links[Math.max(0, Math.min(index, links.length - 1))]?.focus()
}

/** j/k: the next or previous item in the list; opens it (`open`) when the list is not on screen. */
export function moveInList(
  list: HTMLElement,
  key: ItemKey,
  current: string | null,
  delta: number,
  open: (value: string) => void,
): void {
  const links = itemLinks(list, key)
  if (!links.length) return
  const listShown = list.getClientRects().length > 0
  const active = links.indexOf(document.activeElement as HTMLElement)
  const at = active !== -1 ? active : links.findIndex((l) => l.dataset[key] === current)
  const next =
    at === -1
      ? delta > 0
        ? 0
        : links.length - 1
      : Math.max(0, Math.min(links.length - 1, at + delta))
  const link = links[next]!
  if (listShown) link.focus()
  else if (link.dataset[key] !== current) open(link.dataset[key]!)
}

/** Where the keyboard goes once a route has brought the list back: the search box (`/`), or the item just left (Esc). */
export interface ListFocus {
  search: boolean
  item: string | null
}

/** `/`: the search box, coming back to the list first (`back`) when it is not on screen. */
export function focusSearch(search: HTMLInputElement, pending: ListFocus, back: () => void): void {
  if (search.getClientRects().length > 0) {
    search.focus()
    search.select()
  } else {
    pending.search = true
    back()
  }
}

/** On the list's route: the keyboard goes where `pending` says (see refocus: not away from where the user put it). */
export function restoreListFocus(
  pending: ListFocus,
  search: HTMLInputElement,
  list: HTMLElement,
  detail: HTMLElement,
  key: ItemKey,
): void {
  if (pending.search) {
    pending.search = false
    pending.item = null
    search.focus()
  }
  if (pending.item) {
    refocus(
      list.querySelector<HTMLElement>(`[data-${key}="${CSS.escape(pending.item)}"]`),
      list,
      detail,
    )
    pending.item = null
  }
}
