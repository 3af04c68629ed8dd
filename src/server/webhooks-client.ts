import type { Agent, Dispatcher } from 'undici'
import type { PostOptions, Poster, PostResult } from '../core/webhook-poster.js'

export type { Poster, PostOptions, PostResult } from '../core/webhook-poster.js'

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
 * undici is loaded on the first post (or at once, `eager`): a sandbox without `--webhook` never
 * loads it (it is ~2 MB, and a server's start-up is mostly module loading).
 */

export interface PosterOptions {
  /** Keep-alive connections per origin (one request at a time on each). Default 16. */
  connections?: number
  /** Per-request deadline undici's own timeouts back up (each post's `timeoutMs` rules). Default 5000. */
  timeoutMs?: number
  /**
   * Load undici now rather than at the first post, so that the first webhook does not wait for
   * it (the dispatcher asks for this when it has a URL to post to).
   */
  eager?: boolean
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
// Long because post, close and the lazy load of undici share the agent and the requests in
// flight; 4 lines over the bound, each split would pass both around.
export function createPoster(options: PosterOptions = {}): Poster {
  let agent: Promise<Agent> | undefined
  let closed = false
  /** The abort of every request not yet settled. */
  const inFlight = new Set<(reason: string) => void>()
  /** Webhook URLs are a handful, posted to over and over: each is parsed once. */
  const targets = new Map<string, Target | null>()
  const targetOf = (url: string) => {
    let target = targets.get(url)
    if (target === undefined) {
      target = parseTarget(url)
      if (targets.size < 256) targets.set(url, target)
    }
    return target
  }

  const timeoutMs = options.timeoutMs ?? 5000
  const load = () =>
    (agent ??= import('undici').then(
      ({ Agent }) =>
        new Agent({
          connections: options.connections ?? 16,
          pipelining: 1,
          // Our own deadline (in `post`) bounds the whole attempt; these only back it up.
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          connect: { timeout: timeoutMs, ...(options.ca ? { ca: options.ca } : {}) },
        }),
    ))
  if (options.eager) load().catch(() => {})

  return {
    post(url, body, postOptions) {
      const started = performance.now()
      const target = targetOf(url)
      if (closed || !target) {
        const error = closed ? CLOSING : `not an http(s) URL: ${url}`
        return { done: Promise.resolve(failure(error, started)), abort: () => {} }
      }
      let resolve!: (result: PostResult) => void
      const done = new Promise<PostResult>((r) => (resolve = r))
      const exchange = createExchange(target, body, postOptions, started, (result) => {
        clearTimeout(timer)
        inFlight.delete(exchange.abort)
        resolve(result)
      })
      const timer = setTimeout(
        () => exchange.abort(`no response within ${postOptions.timeoutMs} ms (timed out)`),
        postOptions.timeoutMs,
      )
      inFlight.add(exchange.abort)
      load().then(exchange.start, (error: unknown) =>
        exchange.abort(`could not load the HTTP client: ${describe(error)}`),
      )
      return { done, abort: () => exchange.abort(CLOSING) }
    },
    close() {
      if (closed) return
      closed = true
      for (const abort of [...inFlight]) abort(CLOSING)
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
 * One POST through undici's handler API (`dispatch`), which costs about half what `request()`
 * does (13.5 against 24 µs of CPU per POST on this project's 2-core machine): no stream per
 * response. It keeps the first `bodyLimit` characters of the answer and drops the rest as it
 * comes, so the connection can carry the next request; past DISCARD_LIMIT bytes more, the
 * answer is settled and the connection given up. A POST whose connection the receiver closed
 * or reset before any answer (a kept-alive connection it had closed as idle as we reused it)
 * is sent once more at once; receivers drop the rare duplicate by its webhook-id.
 */
// Long because undici's handler callbacks (start, data, end, error) all read and write one
// request's state (its chunks, whether it was answered, resent or aborted): split, that state
// would travel as an object through every part.
function createExchange(
  target: Target,
  body: string,
  options: PostOptions,
  started: number,
  settle: (result: PostResult) => void,
) {
  const keep = options.bodyLimit * 4 // a UTF-8 character is at most 4 bytes
  let dispatcher: Dispatcher | null = null
  let controller: Dispatcher.DispatchController | null = null
  let over: string | null = null
  let settled = false
  let resent = false
  let answered = false
  let status = 0
  let chunks: Buffer[] = []
  let size = 0

  const finish = (result: PostResult) => {
    if (settled) return
    settled = true
    settle(result)
  }
  const answer = () =>
    finish({
      status,
      body: Buffer.concat(chunks).subarray(0, keep).toString('utf8').slice(0, options.bodyLimit),
      error: null,
      durationMs: since(started),
    })

  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      controller = c
      if (over !== null) c.abort(new Error(over))
    },
    onResponseStart(_c, statusCode) {
      answered = true
      status = statusCode
      chunks = []
      size = 0
    },
    onResponseData(c, chunk) {
      if (size < keep) chunks.push(chunk)
      size += chunk.length
      if (size > keep + DISCARD_LIMIT) {
        answer()
        c.abort(new Error('response body too long; the connection is given up'))
      }
    },
    onResponseEnd: answer,
    onResponseError(_c, error) {
      if (settled) return
      if (over === null && !answered && !resent && closedUnder(error)) {
        resent = true
        controller = null
        return dispatch()
      }
      finish(failure(over ?? describe(error), started))
    },
  }

  function dispatch(): void {
    try {
      dispatcher!.dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: 'POST',
          headers: options.headers,
          body,
        },
        handler,
      )
    } catch (error) {
      finish(failure(describe(error), started))
    }
  }

  return {
    start(agent: Dispatcher): void {
      if (over !== null) return
      dispatcher = agent
      dispatch()
    },
    /** Ends it now with `reason` as its error (a request still queued is dropped when it starts). */
    abort(reason: string): void {
      if (settled) return
      over = reason
      finish(failure(reason, started))
      controller?.abort(new Error(reason))
    },
  }
}

/** The receiver closed or reset the connection before it answered. */
const closedUnder = (error: unknown) => {
  const code = (error as { code?: string }).code
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE'
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
