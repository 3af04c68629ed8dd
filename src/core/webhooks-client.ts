import type { Agent, Dispatcher } from 'undici'

/**
 * The HTTP client of outgoing webhooks: POSTs with a small body, many of them, to the same few
 * URLs, on undici (one Agent: a Pool of keep-alive connections per origin). It replaces a
 * hand-written HTTP/1.1 client that pipelined POSTs, which receivers that do not process
 * pipelined requests dropped (issue 20, defect 1): protocol code is where such bugs live.
 *
 * No pipelining (`pipelining: 1`): RFC 9112 §9.3.2 says a client should not pipeline
 * non-idempotent requests, and a receiver that answers one request per read loses the rest.
 * Concurrency comes from connections instead, `connections` per origin.
 *
 * undici is loaded on the first post: a sandbox without `--webhook` never loads it (it is
 * ~2 MB, and a server's start-up is mostly module loading).
 */

export interface PostResult {
  /** null when no response came (refused, reset, timed out). */
  status: number | null
  /** The start of the response body (at most `bodyLimit` characters). */
  body: string
  /** Why there was no complete response, or null. */
  error: string | null
  durationMs: number
}

export interface PostOptions {
  headers: Record<string, string>
  /** The whole attempt, connection to last byte, must fit in this. */
  timeoutMs: number
  /** How much of the response body to keep. */
  bodyLimit: number
}

export interface Poster {
  /** `done` never rejects: a failure is a result with `error`. `abort` ends it at once. */
  post(
    url: string,
    body: string,
    options: PostOptions,
  ): { done: Promise<PostResult>; abort(): void }
  /** Closes every connection; requests not yet answered end with an error. */
  close(): void
}

export interface PosterOptions {
  /** Keep-alive connections per origin (one request at a time on each). Default 16. */
  connections?: number
  /** Extra certificate authorities to trust for https (Node's own bundle otherwise; `NODE_EXTRA_CA_CERTS` works too). */
  ca?: string | Buffer
}

/** Bytes of the body read past the kept start before the connection is given up instead. */
const DISCARD_LIMIT = 64 * 1024
const CLOSING = 'aborted: sendbox is closing'

/**
 * @example
 * const client = createPoster()
 * const { done } = client.post('http://127.0.0.1:4000/hooks', '{"a":1}', { headers: { 'content-type': 'application/json' }, timeoutMs: 5000, bodyLimit: 1024 })
 * const result = await done // { status: 200, body: 'ok', error: null, durationMs: 0.8 }
 */
export function createPoster(options: PosterOptions = {}): Poster {
  let agent: Promise<Agent> | undefined
  let closed = false
  const inFlight = new Set<AbortController>()

  const agentFor = (timeoutMs: number) =>
    (agent ??= import('undici').then(
      ({ Agent }) =>
        new Agent({
          connections: options.connections ?? 16,
          pipelining: 1,
          // Our own deadline (below) bounds the whole attempt; these only back it up.
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          connect: { timeout: timeoutMs, ...(options.ca ? { ca: options.ca } : {}) },
        }),
    ))

  return {
    post(url, body, postOptions) {
      const started = performance.now()
      const target = parseTarget(url)
      if (closed || !target) {
        const error = closed ? CLOSING : `not an http(s) URL: ${url}`
        return { done: Promise.resolve(failure(error, started)), abort: () => {} }
      }
      const controller = new AbortController()
      inFlight.add(controller)
      const timer = setTimeout(
        () => controller.abort(`no response within ${postOptions.timeoutMs} ms (timed out)`),
        postOptions.timeoutMs,
      )
      const done = agentFor(postOptions.timeoutMs)
        .then((dispatcher) =>
          send(dispatcher, target, body, postOptions, controller.signal, started),
        )
        .catch((error: unknown) =>
          failure(
            controller.signal.aborted ? String(controller.signal.reason) : describe(error),
            started,
          ),
        )
        .finally(() => {
          clearTimeout(timer)
          inFlight.delete(controller)
        })
      return { done, abort: () => controller.abort(CLOSING) }
    },
    close() {
      if (closed) return
      closed = true
      for (const controller of inFlight) controller.abort(CLOSING)
      inFlight.clear()
      void agent?.then((a) => a.destroy()).catch(() => {})
    },
  }
}

interface Target {
  origin: string
  path: string
}

function parseTarget(url: string): Target | null {
  try {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null
    return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` }
  } catch {
    return null
  }
}

/**
 * One POST, sent once more at once when the receiver closed a kept-alive connection under it
 * before any answer (it had closed it as idle as we reused it; receivers drop the rare
 * duplicate by its webhook-id). Anything else is the attempt's result.
 */
async function send(
  dispatcher: Dispatcher,
  target: Target,
  body: string,
  options: PostOptions,
  signal: AbortSignal,
  started: number,
): Promise<PostResult> {
  const request = () =>
    dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers: options.headers,
      body,
      signal,
    })
  let response: Dispatcher.ResponseData
  try {
    response = await request()
  } catch (error) {
    if (signal.aborted || !closedUnder(error)) throw error
    response = await request()
  }
  const text = await bodyStart(response.body, options.bodyLimit)
  return {
    status: response.statusCode,
    body: text,
    error: null,
    durationMs: since(started),
  }
}

/** The receiver closed or reset the connection before it answered. */
const closedUnder = (error: unknown) => {
  const code = (error as { code?: string }).code
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE'
}

/**
 * The first `limit` characters of the body; the rest is read and dropped so that the
 * connection can carry the next request. Past DISCARD_LIMIT bytes more, the connection is
 * given up instead (leaving the loop destroys the body, and undici the socket).
 */
async function bodyStart(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  // A UTF-8 character is at most 4 bytes.
  const keep = limit * 4
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size < keep) chunks.push(chunk)
    size += chunk.length
    if (size > keep + DISCARD_LIMIT) break
  }
  return Buffer.concat(chunks).subarray(0, keep).toString('utf8').slice(0, limit)
}

const since = (started: number) => Math.round((performance.now() - started) * 10) / 10

const failure = (error: string, started: number): PostResult => ({
  status: null,
  body: '',
  error,
  durationMs: since(started),
})

/** An undici or socket error → a sentence a person can act on. */
export function describe(error: unknown): string {
  const {
    code,
    message = String(error),
    name,
  } = (error ?? {}) as {
    code?: string
    message?: string
    name?: string
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause
  if (code === 'ECONNREFUSED')
    return `connection refused (${message.replace(/^connect /, '')}): is the receiver running?`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${message})`
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET')
    return `the connection was closed or reset by the receiver before it answered (${message})`
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `could not connect in time (timed out): ${message}`
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return `no complete response in time (timed out): ${message}`
  if (code?.startsWith('HPE_') || name === 'HTTPParserError')
    return `not an HTTP/1.x response (${message})`
  if (
    code?.startsWith('ERR_TLS') ||
    code?.startsWith('ERR_SSL') ||
    /CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME/.test(code ?? '')
  )
    return `TLS: ${message}${code ? ` (${code})` : ''}`
  if (cause?.message) return `${message}: ${cause.message}`
  return message
}
