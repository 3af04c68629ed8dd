import { readView, viewParams, type ViewState } from './preview.js'
import { currentRoute, parseLine } from './router.js'

/**
 * What an open item's detail takes from the URL: its tab, its preview view and, on a source
 * tab, the line to mark. Tab and view carry over from one item to the next when the URL leaves
 * them out; the URL leaves out what is the default.
 */

export interface TabSpec {
  id: string
  label: string
}

export interface DetailRoute {
  tab: string
  view: ViewState
  line: number | null
}

/** The tab the URL names, else the first tab (the default, which the URL leaves out). */
export const pickTab = (tabs: readonly TabSpec[], tab: string | null): string =>
  tabs.some((t) => t.id === tab) ? tab! : tabs[0]!.id

/** The tab as a URL parameter: null (left out) for the default tab. */
export const tabParam = (tabs: readonly TabSpec[], tab: string): string | null =>
  tab === tabs[0]!.id ? null : tab

/**
 * What a route asks of the detail: the tab and the view carry over when it leaves them out; a
 * line only on a source tab (`lineTabs`).
 *
 * @example
 * readDetailRoute(new URLSearchParams('tab=source&line=4'), TABS, { tab: 'html', view, line: null })
 * // { tab: 'source', view, line: 4 }
 */
export function readDetailRoute(
  params: URLSearchParams,
  tabs: readonly TabSpec[],
  current: DetailRoute,
  lineTabs: readonly string[] = ['source'],
): DetailRoute {
  const tab = params.has('tab') ? pickTab(tabs, params.get('tab')) : current.tab
  return {
    tab,
    view: readView(params, current.view),
    line: lineTabs.includes(tab) ? parseLine(params.get('line')) : null,
  }
}

/** The detail's URL parameters, for replaceParams (null: leave the key out). */
export function detailParams(
  tabs: readonly TabSpec[],
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

/** Two detail routes are the same (the view re-renders only when they are not). */
export const sameDetail = (a: DetailRoute, b: DetailRoute): boolean =>
  a.tab === b.tab &&
  a.line === b.line &&
  a.view.width === b.view.width &&
  a.view.dark === b.view.dark &&
  a.view.imagesOff === b.view.imagesOff
