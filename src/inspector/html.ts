import { enumParam } from '../http/params.js'

/**
 * How the inspector answers with an email's HTML (`/messages/:id/html`, `/templates/:slug/preview`,
 * `/previews/:id`): in an opaque origin with no scripts (a sandboxing CSP), images allowed
 * from anywhere like a mail client with images on. Two query parameters adjust it:
 *
 * - `?images=off` blocks images through the CSP: what a reader with images off sees.
 * - `?frame=measure` serves it for the inbox's measuring frame: of the inbox's own origin (so the
 *   page can read its height) and still without scripts. The inbox loads a template preview
 *   there too, hidden, and gives the visible (opaque) frame that height: the pane scrolls, not
 *   the frame, so a preview that re-renders keeps its place.
 * - `?scheme=dark|light` decides the email's `prefers-color-scheme` queries in advance. The spec
 *   says a frame's `prefers-color-scheme` follows the `color-scheme` of its <iframe>, and Firefox
 *   and Safari do so; Chromium follows the system instead, and a sandboxed frame's document is
 *   off limits to the page. So `(prefers-color-scheme: dark)` becomes a query that always
 *   matches and `(prefers-color-scheme: light)` one that never does (or the other way round), in
 *   `<style>` and in `media` attributes (`<picture><source media=…>`) alike.
 */

export const MESSAGE_HTML_CSP =
  "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; img-src * data: blob:; style-src * 'unsafe-inline'; font-src * data:; base-uri 'none'; form-action 'none'"

/** The measuring frame's policy: the same, but of the page's origin (no `allow-scripts` either way). */
const MEASURE_CSP = MESSAGE_HTML_CSP.replace(
  'sandbox allow-popups allow-popups-to-escape-sandbox',
  'sandbox allow-same-origin',
)

const PREFERS = /\(\s*prefers-color-scheme\s*:\s*(dark|light)\s*\)/gi
/** `grid` is 0 on every bitmap screen: `(grid: 0)` always matches, `(grid: 1)` never does. */
const ALWAYS = '(grid: 0)'
const NEVER = '(grid: 1)'
/** `<meta name="color-scheme" content="light dark">` and `color-scheme: light dark`: pick one. */
const META_SCHEME =
  /(<meta\b[^>]*\bname\s*=\s*["']?(?:color-scheme|supported-color-schemes)["']?[^>]*\bcontent\s*=\s*["'])\s*(?:light\s+dark|dark\s+light)\s*(["'])/gi
const CSS_SCHEME = /(color-scheme\s*:\s*)(?:light\s+dark|dark\s+light)\b/gi

export function forceColorScheme(html: string, scheme: 'dark' | 'light'): string {
  return html
    .replace(PREFERS, (_, value: string) => (value.toLowerCase() === scheme ? ALWAYS : NEVER))
    .replace(META_SCHEME, (_, before: string, quote: string) => `${before}${scheme}${quote}`)
    .replace(CSS_SCHEME, (_, before: string) => `${before}${scheme}`)
}

/** `?images=` and `?scheme=` of every HTML answer, defined once for the routes and the document. */
export const HTML_QUERY = {
  images: enumParam(
    ['on', 'off'],
    "`off` blocks images through the Content-Security-Policy (`img-src 'none'`): what a reader with images off sees.",
    'on',
  ),
  scheme: enumParam(
    ['dark', 'light'],
    "Decides the email's `prefers-color-scheme` queries in advance (`dark`: the dark rules always apply; `light`: never); absent, the HTML is served as stored.",
  ),
  frame: enumParam(
    ['view', 'measure'],
    "`measure` serves it for the inbox's hidden measuring frame: sandboxed without scripts as always, but of the inspector's own origin, so the inbox can read the email's height (it sizes the visible, opaque frame to it, so a re-rendered preview keeps its scroll position).",
    'view',
  ),
}

/**
 * The email's HTML as the inspector serves it, with `?images=` and `?scheme=` applied.
 *
 * @example
 * return htmlAnswer(record.html, query)   // query from HTML_QUERY
 */
export function htmlAnswer(
  html: string,
  options: {
    images?: 'on' | 'off' | undefined
    scheme?: 'dark' | 'light' | undefined
    frame?: 'view' | 'measure' | undefined
  },
): Response {
  const csp = options.frame === 'measure' ? MEASURE_CSP : MESSAGE_HTML_CSP
  return new Response(options.scheme ? forceColorScheme(html, options.scheme) : html, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        options.images === 'off' ? csp.replace('img-src * data: blob:', "img-src 'none'") : csp,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
  })
}
