import { createHash, timingSafeEqual } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'
import type { H3Event } from 'h3'
import { apiError } from './errors.js'
import { noteRequest } from './request-log.js'

/**
 * What keeps websites out of a sandbox that runs on a developer's machine (docs/security.md). One
 * check per request, before any route, in this order:
 *
 * 1. **Host** (DNS rebinding): a page on `evil.example` that re-points its own name at 127.0.0.1
 *    becomes same-origin with us; only its Host header gives it away. IP literals, `localhost`,
 *    `*.localhost` and the names given with `--allowed-host` pass (Vite's `server.allowedHosts`).
 * 2. **Cross-site** (webpack-dev-server 5.2.1, Vite 6): a browser marks a request another site
 *    made with `Sec-Fetch-Site: cross-site|same-site` and, for anything but a plain GET, with an
 *    `Origin`. Either one that is not ours is refused, on every route, so that no-cors POSTs,
 *    beacons and text/plain forms (which skip CORS preflights) write nothing either. A top-level
 *    GET navigation to the inbox page still opens it (a link, a bookmark). Clients that send none
 *    of these headers (curl, test suites, server-side code) are not browsers and pass.
 *    `--cors ORIGIN` lets one origin call the emulated API only, with a real preflight.
 * 3. **Basic auth** on everything but the emulated API, with `--inspector-password`.
 *
 * Plain functions over the request's headers; `createGuard` wires them into one h3 middleware.
 */

export interface GuardPolicy {
  /** Lowercased names besides localhost, `*.localhost` and IP literals; `.x` is x and its subdomains. */
  allowedHosts: readonly string[]
  /** `--allowed-host all`. */
  anyHost: boolean
  /** Origins allowed on the emulated API. */
  cors: readonly string[]
  inspectorPassword: string | null
  /** Serving HTTPS itself: then only an `https:` origin is its own. */
  tls: boolean
}

/** Every answer carries it: a JSON error must never be sniffed into HTML by an old browser. */
export const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const

/** Methods and request headers a `--cors` origin may use on the emulated API. */
const CORS_METHODS = 'GET, HEAD, POST'
const CORS_HEADERS = 'authorization, content-type'
/** Headers a browser app needs to read from our answers (Location of a send, Retry-After of a 429). */
const CORS_EXPOSE = 'location, retry-after, www-authenticate'

/**
 * The host name of a Host header, lowercased, without port or a final dot; IPv6 keeps its
 * brackets. Null when the header is not a host[:port].
 *
 * @example hostName('LocalHost:5025') // 'localhost'
 * @example hostName('[::1]:5025')     // '[::1]'
 */
export function hostName(host: string): string | null {
  const value = host.trim().toLowerCase()
  const match = value.startsWith('[')
    ? /^(\[[0-9a-f:.]+\])(?::\d{1,5})?$/.exec(value)
    : /^([^:\s]+)(?::\d{1,5})?$/.exec(value)
  if (!match) return null
  const name = match[1]!
  return name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name
}

/**
 * Whether a request addressed to `host` (the Host header) may be answered.
 *
 * @example isHostAllowed('127.0.0.1:5025', policy)        // true: an IP literal
 * @example isHostAllowed('app.localhost:5025', policy)    // true
 * @example isHostAllowed('evil.example:5025', policy)     // false, unless --allowed-host evil.example
 */
export function isHostAllowed(
  host: string | null,
  policy: Pick<GuardPolicy, 'allowedHosts' | 'anyHost'>,
): boolean {
  // No Host at all is an HTTP/1.0 client, never a browser (browsers always send it).
  if (policy.anyHost || host === null) return true
  const name = hostName(host)
  if (name === null) return false
  if (name.startsWith('[')) return isIPv6(name.slice(1, -1))
  if (isIPv4(name) || name === 'localhost' || name.endsWith('.localhost')) return true
  return policy.allowedHosts.some((allowed) =>
    allowed.startsWith('.')
      ? name === allowed.slice(1) || name.endsWith(allowed)
      : name === allowed,
  )
}

/** The emulated API's paths: the only ones `--cors` opens and Basic auth leaves alone. */
export function isApiPath(pathname: string): boolean {
  return (
    pathname === '/messages' || pathname === '/templates' || /^\/templates\/[^/]+$/.test(pathname)
  )
}

/** Where a link or a bookmark may land from another site: the inbox page (and `/`, which redirects there). */
const NAVIGABLE: ReadonlySet<string> = new Set(['/', '/_sandbox', '/_sandbox/'])

/**
 * Whether an `Origin` is the server's own: same host and port as the request's Host (already
 * checked), over http or https (a TLS proxy in front); over https only when the server itself
 * serves TLS (`tls`): no page of that port was ever served over plain http.
 *
 * @example isOwnOrigin('http://localhost:5025', 'localhost:5025')        // true
 * @example isOwnOrigin('http://localhost:5025', 'localhost:5025', true)  // false
 * @example isOwnOrigin('null', 'localhost:5025')                         // false
 */
export function isOwnOrigin(origin: string, host: string | null, tls = false): boolean {
  if (host === null) return false
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'https:' && (tls || url.protocol !== 'http:')) return false
  let own: string
  try {
    own = new URL(`${url.protocol}//${host}`).host
  } catch {
    return false
  }
  return url.host === own
}

/** What a request's fetch metadata says about where it came from. */
export interface RequestOrigin {
  host: string | null
  origin: string | null
  /** `Sec-Fetch-Site`. */
  site: string | null
  /** `Sec-Fetch-Mode`. */
  mode: string | null
}

/**
 * Why another site's request is refused, or null when it is not another site's. Exported for
 * tests; `createGuard` calls it.
 *
 * @example crossSiteReason({ host: 'localhost:5025', origin: 'http://evil.test', site: 'cross-site', mode: 'cors' }, 'POST', '/_sandbox/api/faults')
 * // 'Origin http://evil.test'
 */
export function crossSiteReason(
  request: RequestOrigin,
  method: string,
  pathname: string,
  tls = false,
): string | null {
  const foreignSite = request.site === 'cross-site' || request.site === 'same-site'
  const foreignOrigin = request.origin !== null && !isOwnOrigin(request.origin, request.host, tls)
  if (!foreignSite && !foreignOrigin) return null
  // A link or a bookmark to the inbox: the page loads, and its own requests are same-origin.
  if (
    (method === 'GET' || method === 'HEAD') &&
    request.mode === 'navigate' &&
    !foreignOrigin &&
    NAVIGABLE.has(pathname)
  )
    return null
  return foreignOrigin ? `Origin ${request.origin}` : `Sec-Fetch-Site: ${request.site}`
}

/**
 * What the Host check compared, for the console line of a refused request: the Host received
 * and the names this server answers. Never a secret: the names come from the command line.
 *
 * @example hostComparison('evil.example:5025', { allowedHosts: [], anyHost: false })
 * // 'Host "evil.example:5025" is none of localhost, *.localhost, an IP address or a name given with --allowed-host (none given)'
 */
export function hostComparison(
  host: string | null,
  policy: Pick<GuardPolicy, 'allowedHosts'>,
): string {
  const names = policy.allowedHosts.length ? policy.allowedHosts.join(', ') : 'none given'
  return `Host ${quoted(host ?? '')} is none of localhost, *.localhost, an IP address or a name given with --allowed-host (${names})`
}

/**
 * What the cross-site check compared, for the console line of a refused request: the `Origin`
 * received against the origins the request's own Host makes (or the browser's
 * `Sec-Fetch-Site`). A proxy that passes on the Host without its port (nginx's `$host`) is the
 * usual cause of an Origin that differs only by port, so that case says what to forward.
 *
 * @example originComparison({ host: 'mail.test', origin: 'http://mail.test:8080', site: 'same-origin', mode: 'cors' })
 * // 'Origin "http://mail.test:8080" is not this server's own, http://mail.test or https://mail.test (from Host "mail.test"): the port differs, …'
 */
export function originComparison(request: RequestOrigin, tls = false): string {
  const { origin, host } = request
  if (origin === null || isOwnOrigin(origin, host, tls))
    return `Sec-Fetch-Site: ${quoted(request.site ?? '')} (the browser says another site made this request)`
  const own = ownOrigins(host, tls)
  const expected = own.length ? own.join(' or ') : 'none (no usable Host)'
  const hint = sameNameOtherPort(origin, host)
    ? ': the port differs, as when a proxy passes on the Host without the port the browser used (nginx: proxy_set_header Host $http_host, not $host)'
    : ''
  return `Origin ${quoted(origin)} is not this server's own, ${expected} (from Host ${quoted(host ?? '')})${hint}`
}

/** The origins a Host makes: http and https, or https only when the server serves TLS. */
function ownOrigins(host: string | null, tls: boolean): string[] {
  if (host === null) return []
  const origins: string[] = []
  for (const scheme of tls ? ['https:'] : ['http:', 'https:'])
    try {
      origins.push(new URL(`${scheme}//${host}`).origin)
    } catch {
      // A Host no URL can be made of: no origin is its own.
    }
  return origins
}

/** Whether an Origin names the Host's name with another port. */
function sameNameOtherPort(origin: string, host: string | null): boolean {
  const name = host === null ? null : hostName(host)
  try {
    return name !== null && new URL(origin).hostname === name
  } catch {
    return false
  }
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/**
 * Whether an `Authorization: Basic …` header carries the password (any user name). Compares
 * SHA-256 digests in constant time, so neither the length nor a prefix of the password leaks
 * through timing.
 *
 * @example basicAuthMatches(`Basic ${btoa('me:s3cret')}`, 's3cret') // true
 */
export function basicAuthMatches(header: string | null, password: string): boolean {
  const match = header ? /^basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header.trim()) : null
  if (!match) return false
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon === -1) return false
  return timingSafeEqual(digest(decoded.slice(colon + 1)), digest(password))
}

/** A preflight answer for an allowed origin. */
function preflight(origin: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': CORS_METHODS,
      'access-control-allow-headers': CORS_HEADERS,
      'access-control-max-age': '600',
      vary: 'Origin',
      ...NOSNIFF,
    },
  })
}

/** An attacker-chosen header, shown in a message: quoted, and cut short. */
const quoted = (value: string) =>
  JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)

/**
 * The policy from the server's settings. The name given with `--host` is allowed too: a server
 * bound to `myname.local` answers requests addressed to it.
 *
 * @example guardPolicy({ host: 'myname.local', allowedHosts: [], anyHost: false, cors: [], inspectorPassword: null }).allowedHosts // ['myname.local']
 */
export function guardPolicy(config: {
  host: string
  allowedHosts: readonly string[]
  anyHost: boolean
  cors: readonly string[]
  inspectorPassword: string | null
  https?: boolean
}): GuardPolicy {
  const bound = hostName(
    config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host,
  )
  const named = bound !== null && !bound.startsWith('[') && !isIPv4(bound) ? [bound] : []
  return {
    allowedHosts: [...config.allowedHosts, ...named],
    anyHost: config.anyHost,
    cors: config.cors,
    inspectorPassword: config.inspectorPassword,
    tls: config.https === true,
  }
}

/** 403 host_not_allowed: a request addressed to a name sendbox does not answer (DNS rebinding). */
function hostNotAllowed(host: string | null) {
  const name = host === null ? '' : (hostName(host) ?? host)
  return apiError(
    403,
    'host_not_allowed',
    `sendbox does not answer requests addressed to ${quoted(name)}: only localhost, *.localhost, IP addresses and names given with --allowed-host (this stops DNS rebinding, where a website points its own name at your machine). To reach sendbox under this name, start it with --allowed-host ${name || '<name>'} (or SENDBOX_ALLOWED_HOSTS).`,
    { headers: NOSNIFF },
  )
}

/** 403 cross_origin_forbidden, with what to do: `--cors` for the API, the inbox itself else. */
function crossOriginForbidden(reason: string, origin: string | null, api: boolean, vary: boolean) {
  const from = origin && origin !== 'null' ? origin : null
  const hint = api
    ? ` To let a browser app on ${from ?? 'your origin'} call the emulated API, start sendbox with --cors ${from ?? '<origin>'}.`
    : ' The inspector and the inbox answer only their own page, curl and test suites; open the inbox itself instead.'
  return apiError(
    403,
    'cross_origin_forbidden',
    `This request came from another website (${reason.length > 200 ? `${reason.slice(0, 200)}…` : reason}), and sendbox does not let websites read or change the sandbox.${hint}`,
    { headers: { ...NOSNIFF, ...(api && vary ? { vary: 'Origin' } : {}) } },
  )
}

/** 401 unauthorized: the inspector wants the --inspector-password. */
const unauthorized = () =>
  apiError(
    401,
    'unauthorized',
    'The inspector is protected by --inspector-password: sign in with any user name and that password (curl -u :<password>).',
    {
      headers: { 'www-authenticate': 'Basic realm="sendbox", charset="UTF-8"', ...NOSNIFF },
    },
  )

/** The headers an answer to an allowed CORS origin carries. */
const corsHeaders = (origin: string) => ({
  'access-control-allow-origin': origin,
  'access-control-expose-headers': CORS_EXPOSE,
  vary: 'Origin',
  ...NOSNIFF,
})

/**
 * The guard as one h3 middleware. `check` returns a preflight answer, throws the 401/403s, and
 * otherwise puts the headers every answer carries on `event.res`; `headersFor` gives them again
 * for an error answer, which h3 builds without them.
 *
 * @example
 * const guard = createGuard(guardPolicy(config))
 * app.use((event) => guard.check(event))
 */
export function createGuard(policy: GuardPolicy): {
  check(event: H3Event): Response | undefined
  headersFor(event: H3Event): Record<string, string>
} {
  const extra = new WeakMap<H3Event, Record<string, string>>()
  return {
    check: (event) => checkRequest(policy, extra, event),
    headersFor: (event) => extra.get(event) ?? NOSNIFF,
  }
}

/**
 * The guard's checks, in order: the Host, then an allowed CORS origin (a preflight answered, its
 * headers kept in `extra` for an error answer), then a cross-site request, then the inspector's
 * password.
 */
function checkRequest(
  policy: GuardPolicy,
  extra: WeakMap<H3Event, Record<string, string>>,
  event: H3Event,
): Response | undefined {
  const headers = event.req.headers
  const host = headers.get('host')
  if (!isHostAllowed(host, policy)) {
    noteRequest(event, { refused: hostComparison(host, policy) })
    throw hostNotAllowed(host)
  }
  const pathname = event.url.pathname
  const method = event.req.method
  const origin = headers.get('origin')
  const api = isApiPath(pathname)
  const corsVary = policy.cors.length > 0
  const corsOrigin = api && origin !== null && policy.cors.includes(origin) ? origin : null
  if (corsOrigin) {
    if (method === 'OPTIONS' && headers.has('access-control-request-method'))
      return preflight(corsOrigin)
    const added = corsHeaders(corsOrigin)
    extra.set(event, added)
    for (const [name, value] of Object.entries(added)) event.res.headers.set(name, value)
    return undefined
  }
  const site = {
    host,
    origin,
    site: headers.get('sec-fetch-site'),
    mode: headers.get('sec-fetch-mode'),
  }
  const reason = crossSiteReason(site, method, pathname, policy.tls)
  if (reason) {
    noteRequest(event, { refused: originComparison(site, policy.tls) })
    throw crossOriginForbidden(reason, origin, api, corsVary)
  }
  if (
    policy.inspectorPassword !== null &&
    !api &&
    !basicAuthMatches(headers.get('authorization'), policy.inspectorPassword)
  )
    throw unauthorized()
  event.res.headers.set('x-content-type-options', 'nosniff')
  if (api && corsVary) event.res.headers.set('vary', 'Origin')
  return undefined
}
