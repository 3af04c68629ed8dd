/**
 * Hash routes, so every view (and its tab, case and preview options) is a URL that survives a
 * reload:
 *
 *   #/                                      the message list (with ?q=search)
 *   #/messages/<id>?tab=text&width=375     a message (tab: html | text | links | source | delivery | details | checks)
 *   #/templates                             the templates
 *   #/templates/<slug>?case=x&width=600     a template (tab: preview | text | source | liquid | variables | checks)
 *   #/webhooks?status=failed&open=<id>      webhook deliveries (filters: status, event, message; the open one)
 *   #/suppressions                          the suppression list
 *
 * A route is `{ view, name, params }`: the first path segment names the view (views.tsx lists
 * them; an unknown one shows the messages), the second the item open in it. Both previews also
 * take `width` (320–1600), `dark` (`media` or `invert`), `images=off`, and on a source tab
 * (`source`, the rendered HTML; `liquid`, a template's own file) `line`.
 *
 * Why no router library: the page's routes are read outside components (app.tsx's `navigate`
 * tells the models on `hashchange`; models write parameters with `replaceParams`), and its links
 * are hashes. preact-iso routes paths only (its maintainers decline hash routing) and would add
 * 1.8 KB gzipped; wouter-preact has a hash location but is a hook router, peers on Preact 10,
 * and adds 2.5 KB gzipped. This file is 0.6 KB gzipped, and the views' own URL parameters
 * (detail-route.ts, changes-route.ts) would stay with either. Back/forward is the browser's
 * `hashchange`; the focus after a navigation is list-nav.ts's, which neither library does.
 */

export interface Route {
  /** The view: `messages`, `templates`, … (views.tsx). */
  view: string
  /** The item open in it: a message id, a template slug; null for the list alone. */
  name: string | null
  params: URLSearchParams
}

function decode(segment: string | undefined): string | null {
  if (!segment) return null
  try {
    return decodeURIComponent(segment)
  } catch {
    return null
  }
}

/**
 * @example
 * parseHash('#/templates/welcome?case=ada') // { view: 'templates', name: 'welcome', params: case=ada }
 */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '')
  const queryAt = raw.indexOf('?')
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt)
  const params = new URLSearchParams(queryAt === -1 ? '' : raw.slice(queryAt + 1))
  const [, section, name] = path.split('/')
  return { view: section || 'messages', name: decode(name), params }
}

/**
 * @example
 * formatHash({ view: 'messages', name: null, params: new URLSearchParams('q=ada') }) // '#/?q=ada'
 */
export function formatHash(route: Route): string {
  const name = route.name ? `/${encodeURIComponent(route.name)}` : ''
  const path = route.view === 'messages' && !name ? '#/' : `#/${route.view}${name}`
  const query = route.params.toString()
  return query ? `${path}?${query}` : path
}

/** A link to a view: `href(‘templates’, 'welcome')`. */
export const href = (
  view: string,
  name: string | null = null,
  params: Record<string, string> | URLSearchParams = {},
): string => formatHash({ view, name, params: new URLSearchParams(params) })

/** A 1-based line number from the URL, or null. */
export function parseLine(value: string | null): number | null {
  if (!value || !/^\d{1,7}$/.test(value)) return null
  return Number(value) || null
}

export function currentRoute(): Route {
  return parseHash(window.location.hash)
}

/** Changes parameters of the current view without adding a history entry (null or '': removed). */
export function replaceParams(update: Record<string, string | null>): void {
  const route = currentRoute()
  for (const [key, value] of Object.entries(update)) {
    if (value === null || value === '') route.params.delete(key)
    else route.params.set(key, value)
  }
  const next = formatHash(route)
  if (next !== window.location.hash) {
    history.replaceState(history.state, '', next)
    // The page follows the URL: a replaced one is announced like a navigation.
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  }
}

/** Goes to a view, as a new history entry (fires hashchange). */
export function goHash(next: string): void {
  if (next === window.location.hash || (next === '#/' && window.location.hash === ''))
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  else window.location.hash = next
}
