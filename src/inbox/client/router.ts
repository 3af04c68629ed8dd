/**
 * Hash routes, so every view (and its tab, case and preview options) is a URL that survives a
 * reload:
 *
 *   #/                                      the message list (with ?q=search)
 *   #/messages/<id>?tab=text&width=375     a message (tab: html | text | source | delivery | details | checks)
 *   #/templates                             the templates
 *   #/templates/<slug>?case=x&width=600     a template (tab: preview | text | source | liquid | variables | checks)
 *   #/webhooks                              webhook deliveries (?open=<delivery id>)
 *   #/suppressions                          the suppression list
 *
 * Both previews also take `width` (320–1600; the presets are just values), `dark` (`media`: the
 * email's own dark-mode rules; `invert`: colours inverted), `images=off`, and on a source tab
 * (`source`, the rendered HTML; `liquid`, a template's own file) `line`: the line the checks,
 * or an error, pointed at.
 */

export type Route =
  | { view: 'messages'; id: string | null; params: URLSearchParams }
  | { view: 'templates'; slug: string | null; params: URLSearchParams }
  | { view: 'webhooks'; params: URLSearchParams }
  | { view: 'suppressions'; params: URLSearchParams }

function decode(segment: string | undefined): string | null {
  if (!segment) return null
  try {
    return decodeURIComponent(segment)
  } catch {
    return null
  }
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '')
  const queryAt = raw.indexOf('?')
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt)
  const params = new URLSearchParams(queryAt === -1 ? '' : raw.slice(queryAt + 1))
  const [, section, name] = path.split('/')
  if (section === 'templates') return { view: 'templates', slug: decode(name), params }
  if (section === 'webhooks' || section === 'suppressions') return { view: section, params }
  if (section === 'messages') return { view: 'messages', id: decode(name), params }
  return { view: 'messages', id: null, params }
}

export function formatHash(route: Route): string {
  if (route.view === 'webhooks' || route.view === 'suppressions') {
    const query = route.params.toString()
    return `#/${route.view}${query ? `?${query}` : ''}`
  }
  const name = route.view === 'messages' ? route.id : route.slug
  let path =
    route.view === 'messages'
      ? name
        ? `#/messages/${encodeURIComponent(name)}`
        : '#/'
      : `#/templates${name ? `/${encodeURIComponent(name)}` : ''}`
  const query = route.params.toString()
  if (query) path += `?${query}`
  return path
}

/** A 1-based line number from the URL, or null. */
export function parseLine(value: string | null): number | null {
  if (!value || !/^\d{1,7}$/.test(value)) return null
  return Number(value) || null
}

export function currentRoute(): Route {
  return parseHash(window.location.hash)
}

/** Changes a parameter of the current view without adding a history entry. */
export function replaceParams(update: Record<string, string | null>): void {
  const route = currentRoute()
  for (const [key, value] of Object.entries(update)) {
    if (value === null || value === '') route.params.delete(key)
    else route.params.set(key, value)
  }
  const next = formatHash(route)
  if (next !== window.location.hash) history.replaceState(history.state, '', next)
}

/** Goes to a view, as a new history entry (fires hashchange). */
export function goHash(next: string): void {
  if (next === window.location.hash || (next === '#/' && window.location.hash === ''))
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  else window.location.hash = next
}
