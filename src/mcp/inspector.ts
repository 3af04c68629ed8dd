/**
 * The MCP server's only way to the sandbox: the public inspector API under /_sandbox/api, over
 * HTTP, like the inbox page. Every answer is either the inspector's JSON or one error in the
 * inspector's own shape (`{ code, message, details }`), so a tool can hand either to an agent.
 */

/** The inspector's error, or one of ours in the same shape when the sandbox did not answer. */
export interface InspectorError {
  code: string
  message: string
  details: unknown[]
}

/** Where the sandbox is, and the password of a sandbox started with --inspector-password. */
export interface SandboxTarget {
  /** Its base URL, as `sandboxUrl` gives it. */
  url: string
  password?: string
  /** The token of a sandbox with projects (SENDBOX_TOKEN): the inspector takes it. */
  token?: string
}

export type InspectorAnswer =
  | { ok: true; status: number; body: unknown }
  | { ok: false; error: InspectorError }

export interface InspectorRequest {
  method?: 'GET' | 'POST' | 'DELETE'
  /** Below /_sandbox/api, e.g. `/messages/wait`. */
  path: string
  query?: Record<string, string | number | undefined>
  body?: unknown
  /** How long the inspector itself may take on purpose (a wait's timeout), in ms. */
  holds?: number
  /** Stops the request: the MCP client cancelled the call, or the server is closing. */
  signal?: AbortSignal
}

/**
 * How long an answer may take beyond what the request asks the inspector to hold it: a sandbox
 * that accepted the connection and went silent (stopped in a debugger, say) becomes an error the
 * agent can read instead of a call that never returns. A healthy one answers in milliseconds.
 */
export const ANSWER_WITHIN_MS = 10_000

/** What every unreachable-sandbox error ends with: how to get one. */
export function startHint(url: string): string {
  return `Start one with \`npx sendbox\` (it listens on http://127.0.0.1:5025), or point sendbox mcp at yours with --url or SENDBOX_URL (now ${url}).`
}

/**
 * The sandbox's base URL from `--url`, SENDBOX_URL or the default: an http(s) URL, kept without
 * a trailing slash so paths join as `${base}/_sandbox/api/…`.
 *
 * @example sandboxUrl('http://127.0.0.1:5025/') // 'http://127.0.0.1:5025'
 */
export function sandboxUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new TypeError(`${JSON.stringify(raw)} is not a URL; expected e.g. http://127.0.0.1:5025`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`${JSON.stringify(raw)} is not an http(s) URL`)
  // fetch refuses them, and a password in a URL ends up in logs and process lists.
  if (url.username || url.password)
    throw new TypeError(
      'give the URL without credentials, and the password with SENDBOX_INSPECTOR_PASSWORD',
    )
  if (url.search || url.hash)
    throw new TypeError(`${JSON.stringify(raw)}: give the sandbox's base URL, without ? or #`)
  return url.href.replace(/\/+$/, '')
}

function queryString(query: InspectorRequest['query'] = {}): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) search.set(name, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

const failure = (code: string, message: string, details: unknown[] = []): InspectorAnswer => ({
  ok: false,
  error: { code, message, details },
})

/** Why fetch failed, as its cause says it: `connect ECONNREFUSED 127.0.0.1:5025`. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { message?: string; code?: string } }).cause
  return cause?.message || cause?.code || (error as Error).message || String(error)
}

/** Basic credentials for a guarded inspector: any user name, the password (docs/security.md). */
const basicAuth = (password: string) =>
  `Basic ${Buffer.from(`sendbox:${password}`).toString('base64')}`

/**
 * One request to the inspector of the sandbox at `sandbox.url`.
 *
 * @example
 * const answer = await inspect({ url: 'http://127.0.0.1:5025' }, { path: '/messages', query: { limit: 5 } })
 * if (answer.ok) console.log(answer.body)
 * else console.log(answer.error.code, answer.error.message)
 */
export async function inspect(
  sandbox: SandboxTarget,
  request: InspectorRequest,
): Promise<InspectorAnswer> {
  const base = sandbox.url
  const url = `${base}/_sandbox/api${request.path}${queryString(request.query)}`
  const waited = AbortSignal.timeout((request.holds ?? 0) + ANSWER_WITHIN_MS)
  const signal = request.signal ? AbortSignal.any([request.signal, waited]) : waited
  const headers: Record<string, string> = {}
  if (sandbox.password !== undefined) headers.authorization = basicAuth(sandbox.password)
  else if (sandbox.token !== undefined) headers.authorization = `token ${sandbox.token}`
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(url, {
      method: request.method ?? 'GET',
      signal,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    })
  } catch (error) {
    if (request.signal?.aborted) return failure('cancelled', 'The call was cancelled.')
    if (waited.aborted)
      return failure(
        'sandbox_unreachable',
        `The sandbox at ${base} did not answer within ${((request.holds ?? 0) + ANSWER_WITHIN_MS) / 1000} s. Is it stopped or busy? ${startHint(base)}`,
      )
    return failure(
      'sandbox_unreachable',
      `No sendbox answers at ${base} (${reasonOf(error)}). ${startHint(base)}`,
    )
  }
  const answer = await answerOf(base, response)
  if (!answer.ok) answer.error.message = forAgents(answer.error.message)
  // The inspector's own words say how to sign in with curl; an agent needs ours.
  if (!answer.ok && answer.error.code === 'unauthorized')
    answer.error.message += ` Give sendbox mcp the password with SENDBOX_INSPECTOR_PASSWORD or --inspector-password${sandbox.password === undefined ? '' : ' (the one it has was refused)'}.`
  return answer
}

/**
 * The inspector's advice names HTTP (a query parameter, a route to GET); an agent has tools and
 * their arguments. Each entry: the inspector's words, and the tool's. Advice with no tool (the
 * snapshot or suppression lists) is left as the inspector says it.
 */
const HTTP_ADVICE: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /wait longer with \?timeout= \(at most (\d+)\)/,
    'wait longer with the `timeout` argument (at most $1)',
  ],
  [/GET \/(?:_sandbox\/api\/)?templates lists/, 'list_templates lists'],
  [/GET \/_sandbox\/api\/messages lists/, 'list_messages lists'],
]

/**
 * An inspector error message in an agent's terms.
 *
 * @example forAgents('… Send one, or wait longer with ?timeout= (at most 60000).') // '… wait longer with the `timeout` argument (at most 60000).'
 */
export function forAgents(message: string): string {
  return HTTP_ADVICE.reduce((text, [http, tool]) => text.replace(http, tool), message)
}

async function answerOf(base: string, response: Response): Promise<InspectorAnswer> {
  if (response.status === 204) return { ok: true, status: 204, body: null }
  const type = response.headers.get('content-type') ?? ''
  const text = await response.text().catch(() => '')
  let body: unknown
  try {
    body = type.includes('json') ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (response.ok && body !== undefined) return { ok: true, status: response.status, body }
  const error = (body as { error?: Partial<InspectorError> } | undefined)?.error
  if (typeof error?.code === 'string' && typeof error.message === 'string')
    return failure(error.code, error.message, Array.isArray(error.details) ? error.details : [])
  // Something else listens there (another dev server, a proxy's error page).
  return failure(
    'not_a_sandbox',
    `${base} answered ${response.status} ${type || 'without a content type'}, not as a sendbox inspector does. Is a sendbox running there? ${startHint(base)}`,
  )
}
