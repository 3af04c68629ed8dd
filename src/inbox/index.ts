import { readFile } from 'node:fs/promises'
import { getRouterParam, redirect, type H3 } from 'h3'
import { apiError } from '../http/errors.js'
import { route } from '../http/route.js'
import { FAVICON_SVG, INBOX_HTML } from './shell.js'
import { PACKAGE_ROOT } from '../package-root.js'

/**
 * The inbox page at /_sandbox/: an HTML shell (a string constant, so it ships in dist/) and the
 * page, built by scripts/bundle-inbox.js into dist/inbox/page/: app.js, the chunks it loads on
 * demand, and app.css, its stylesheet (from src/inbox/page/styles/). The page talks to nothing
 * but the inspector API and its event stream.
 */

export const PAGE_DIR = new URL('dist/inbox/page/', PACKAGE_ROOT)

/** What the page may do: its own scripts, styles and API, and frames of its own origin. */
export const INBOX_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  // Always revalidate: the page changes with every build, and it is served from localhost.
  'cache-control': 'no-cache',
  'referrer-policy': 'no-referrer',
}

const PAGE_FILE = /^[a-z0-9][a-z0-9-]*\.js$/

function asset(body: string, type: string, extra: Record<string, string> = {}): Response {
  return new Response(body, { headers: { 'content-type': type, ...COMMON_HEADERS, ...extra } })
}

/**
 * A file the build wrote to dist/inbox/page/, or a JSON error: the script and the stylesheet
 * missing are an unbuilt checkout (503), any other name a 404.
 * @example await builtFile('app.css') // ':root { … }'
 */
async function builtFile(file: string): Promise<string> {
  try {
    return await readFile(new URL(file, PAGE_DIR), 'utf8')
  } catch {
    if (file === 'app.js' || file === 'app.css')
      throw apiError(
        503,
        'inbox_not_built',
        `The inbox's ${file} is missing from dist/inbox/page/; build it with \`npm run build\`.`,
      )
    throw apiError(404, 'not_found', `There is no inbox file "${file}".`)
  }
}

export function registerInboxRoutes(app: H3): void {
  route(app, '/_sandbox/', {
    GET: (event) => {
      // The router matches /_sandbox and /_sandbox/ alike; relative URLs need the slash.
      if (event.url.pathname === '/_sandbox') return redirect('/_sandbox/', 301)
      return asset(INBOX_HTML, 'text/html; charset=utf-8', {
        'content-security-policy': INBOX_CSP,
        'x-frame-options': 'DENY',
      })
    },
  })
  route(app, '/_sandbox/app.css', {
    GET: async () => asset(await builtFile('app.css'), 'text/css; charset=utf-8'),
  })
  route(app, '/_sandbox/favicon.svg', { GET: () => asset(FAVICON_SVG, 'image/svg+xml') })
  route(app, '/_sandbox/:file', {
    GET: async (event) => {
      const file = getRouterParam(event, 'file') ?? ''
      if (!PAGE_FILE.test(file))
        throw apiError(
          404,
          'not_found',
          `There is no inbox file "${file}". The inbox is /_sandbox/; the inspector API lives under /_sandbox/api.`,
        )
      return asset(await builtFile(file), 'text/javascript; charset=utf-8')
    },
  })
}
