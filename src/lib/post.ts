import { connect as netConnect, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'

/**
 * The HTTP/1.1 client of outgoing webhooks: POSTs with a small body, many of them, to the same
 * few URLs. It keeps a few keep-alive connections per origin and pipelines requests on them,
 * writing every request queued in one turn of the event loop with a single system call, and
 * reading the responses in order. On this project's bench that costs about 5 µs of CPU per
 * POST, against about 20 for undici and 80 for node:http, one write(2) for many requests being
 * the larger part of it: it is what keeps a send with a webhook close to one without.
 *
 * What it must survive, as receivers differ: chunked and close-delimited bodies, interim 1xx
 * answers, `Connection: close` and HTTP/1.0 (then one request per connection, no pipelining),
 * a keep-alive connection the server closes while a request is on its way (sent again once,
 * on a new connection), and a request that never gets an answer (its deadline ends it; the
 * requests queued behind it on that connection are sent again on a new one).
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
  /** Connections per origin. Default 4. */
  connections?: number
  /** Requests in flight on one connection. Default 16. */
  pipelining?: number
  /** Extra certificate authorities to trust for https (Node's own bundle otherwise; `NODE_EXTRA_CA_CERTS` works too). */
  ca?: string | Buffer
}

interface Request {
  /** Request line and headers, CRLF-terminated, in latin1. */
  head: string
  body: Buffer
  bodyLimit: number
  started: number
  timer: NodeJS.Timeout
  /** Sent again already (after its connection closed under it): a second time is a failure. */
  retried: boolean
  done: boolean
  resolve(result: PostResult): void
}

interface Origin {
  key: string
  host: string
  port: number
  tls: boolean
  servername: string | undefined
  connections: Connection[]
  /** Waiting for room on a connection. */
  queue: Request[]
  /**
   * Whether requests may queue behind each other on a connection: not until a first answer said
   * the server keeps connections open (so a server that closes after each answer never sees a
   * pipelined burst), and never again once one said it closes them.
   */
  pipelining: boolean | null
}

type BodyMode = 'none' | 'length' | 'chunked' | 'close'

interface Connection {
  socket: Socket
  /** Written, waiting for their responses, oldest first. */
  inFlight: Request[]
  /** To be written at the next flush. */
  outbox: Request[]
  flushing: boolean
  /** Responses read on it: a connection that answered before may have been closed as idle. */
  answered: number
  closed: boolean
  /** Response parser state. */
  buffer: string
  phase: 'head' | 'body'
  status: number
  mode: BodyMode
  remaining: number
  kept: string
  keepAlive: boolean
  /** Inside a chunked body: reading a size line (-1), data (n left), or the trailer (-2). */
  chunk: number
}

const HEAD_LIMIT = 64 * 1024
/** Requests on the least busy connection before another one is opened. */
const SPREAD_AT = 4

/**
 * @example
 * const client = createPoster()
 * const { done } = client.post('http://127.0.0.1:4000/hooks', '{"a":1}', { headers: { 'content-type': 'application/json' }, timeoutMs: 5000, bodyLimit: 1024 })
 * const result = await done // { status: 200, body: 'ok', error: null, durationMs: 0.8 }
 */
export function createPoster(options: PosterOptions = {}): Poster {
  const maxConnections = options.connections ?? 4
  const depth = options.pipelining ?? 16
  const origins = new Map<string, Origin>()
  /** Webhook URLs are a handful, posted to over and over: each is parsed once. */
  const targets = new Map<string, { origin: Origin; requestLine: string } | null>()
  let closed = false

  function targetOf(url: string): { origin: Origin; requestLine: string } | null {
    let target = targets.get(url)
    if (target === undefined) {
      let parsed: URL | null = null
      try {
        parsed = new URL(url)
      } catch {
        // not a URL
      }
      target =
        parsed && (parsed.protocol === 'http:' || parsed.protocol === 'https:')
          ? {
              origin: originFor(parsed),
              requestLine: `POST ${parsed.pathname}${parsed.search} HTTP/1.1\r\nhost: ${parsed.host}\r\n`,
            }
          : null
      if (targets.size < 256) targets.set(url, target)
    }
    return target
  }

  function finish(request: Request, result: Omit<PostResult, 'durationMs'>): void {
    if (request.done) return
    request.done = true
    clearTimeout(request.timer)
    request.resolve({
      ...result,
      durationMs: Math.round((performance.now() - request.started) * 10) / 10,
    })
  }

  const fail = (request: Request, error: string) =>
    finish(request, { status: null, body: '', error })

  function originFor(url: URL): Origin {
    let origin = origins.get(url.origin)
    if (!origin) {
      const tls = url.protocol === 'https:'
      const host = url.hostname.replace(/^\[|\]$/g, '')
      origin = {
        key: url.origin,
        host,
        port: Number(url.port) || (tls ? 443 : 80),
        tls,
        servername: tls && !/^[\d.]+$|:/.test(host) ? host : undefined,
        connections: [],
        queue: [],
        pipelining: null,
      }
      origins.set(url.origin, origin)
    }
    return origin
  }

  /** Puts queued requests on connections with room, opening connections up to the limit. */
  function dispatch(origin: Origin): void {
    const room = origin.pipelining === true ? depth : 1
    while (origin.queue.length > 0) {
      const head = origin.queue[0]!
      if (head.done) {
        origin.queue.shift()
        continue
      }
      let best: Connection | undefined
      for (const c of origin.connections)
        if (!c.closed && c.keepAlive && load(c) < room && (!best || load(c) < load(best))) best = c
      // Another connection only once the others are a few requests deep: one connection takes a
      // whole turn's requests in one write, and a slow answer still stalls only a few behind it.
      if ((!best || load(best) >= SPREAD_AT) && origin.connections.length < maxConnections)
        best = open(origin)
      if (!best) return
      origin.queue.shift()
      best.outbox.push(head)
      scheduleFlush(best)
    }
  }

  const load = (c: Connection) => c.inFlight.length + c.outbox.length

  function open(origin: Origin): Connection {
    const socket = origin.tls
      ? tlsConnect({
          host: origin.host,
          port: origin.port,
          servername: origin.servername,
          ALPNProtocols: ['http/1.1'],
          ...(options.ca ? { ca: options.ca } : {}),
        })
      : netConnect({ host: origin.host, port: origin.port })
    socket.setNoDelay(true)
    socket.setEncoding('latin1')
    const connection: Connection = {
      socket,
      inFlight: [],
      outbox: [],
      flushing: false,
      answered: 0,
      closed: false,
      buffer: '',
      phase: 'head',
      status: 0,
      mode: 'none',
      remaining: 0,
      kept: '',
      keepAlive: true,
      chunk: -1,
    }
    origin.connections.push(connection)
    socket.on('data', (chunk: string) => onData(origin, connection, chunk))
    socket.on('end', () => {
      // A close-delimited body ends here.
      if (connection.phase === 'body' && connection.mode === 'close') complete(origin, connection)
    })
    socket.on('error', (error) => drop(origin, connection, describe(error), 'if-reused'))
    socket.on('close', () =>
      drop(
        origin,
        connection,
        'the receiver closed the connection before it answered',
        'if-reused',
      ),
    )
    return connection
  }

  function scheduleFlush(connection: Connection): void {
    if (connection.flushing) return
    connection.flushing = true
    setImmediate(() => {
      connection.flushing = false
      if (connection.closed || connection.outbox.length === 0) return
      // Every request of this turn in one write: the system call is most of a request's cost.
      connection.socket.cork()
      for (const request of connection.outbox) {
        if (request.done) continue
        connection.socket.write(request.head, 'latin1')
        connection.socket.write(request.body)
        connection.inFlight.push(request)
      }
      connection.outbox = []
      connection.socket.uncork()
    })
  }

  function onData(origin: Origin, c: Connection, chunk: string): void {
    c.buffer += chunk
    while (!c.closed) {
      if (c.phase === 'head') {
        const end = c.buffer.indexOf('\r\n\r\n')
        if (end === -1) {
          if (c.buffer.length > HEAD_LIMIT)
            return drop(origin, c, 'the response headers are too large', 'never')
          return
        }
        const head = c.buffer.slice(0, end)
        c.buffer = c.buffer.slice(end + 4)
        if (!parseHead(c, head))
          return drop(
            origin,
            c,
            `not an HTTP/1.x response (${JSON.stringify(head.slice(0, 40))})`,
            'never',
          )
        continue
      }
      if (!readBody(c)) return
      complete(origin, c)
    }
  }

  /** Status line and headers; false when it is not HTTP. */
  function parseHead(c: Connection, head: string): boolean {
    const status = /^HTTP\/1\.([01]) (\d{3})/.exec(head)
    if (!status) return false
    c.status = Number(status[2])
    // Interim answers (100 Continue, 103 Early Hints): the real one follows.
    if (c.status >= 100 && c.status < 200) return true
    const header = (name: string) =>
      new RegExp(`\\r\\n${name}:[ \\t]*([^\\r]*)`, 'i').exec(head)?.[1]?.trim()
    const connection = header('connection')?.toLowerCase() ?? ''
    c.keepAlive =
      status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive')
    const encoding = header('transfer-encoding')?.toLowerCase()
    const length = header('content-length')
    c.mode =
      c.status === 204 || c.status === 304
        ? 'none'
        : encoding?.includes('chunked')
          ? 'chunked'
          : length !== undefined
            ? 'length'
            : 'close'
    c.remaining = c.mode === 'length' ? Number(length) || 0 : 0
    c.kept = ''
    c.chunk = -1
    c.phase = 'body'
    if (c.mode === 'close') c.keepAlive = false
    return true
  }

  function keep(c: Connection, text: string): void {
    const limit = c.inFlight[0]?.bodyLimit ?? 0
    if (c.kept.length < limit * 4) c.kept += text.slice(0, limit * 4 - c.kept.length)
  }

  /** Consumes what the buffer holds of the body; true once it is complete. */
  function readBody(c: Connection): boolean {
    switch (c.mode) {
      case 'none':
        return true
      case 'close':
        keep(c, c.buffer)
        c.buffer = ''
        return false
      case 'length': {
        const take = Math.min(c.remaining, c.buffer.length)
        keep(c, c.buffer.slice(0, take))
        c.buffer = c.buffer.slice(take)
        c.remaining -= take
        return c.remaining === 0
      }
      case 'chunked':
        for (;;) {
          if (c.chunk === -1) {
            const line = c.buffer.indexOf('\r\n')
            if (line === -1) return false
            const size = parseInt(c.buffer.slice(0, line), 16)
            c.buffer = c.buffer.slice(line + 2)
            c.chunk = Number.isNaN(size) || size === 0 ? -2 : size
          } else if (c.chunk === -2) {
            // Trailers, if any, end with an empty line.
            const end = c.buffer.indexOf('\r\n')
            if (end === -1) return false
            c.buffer = c.buffer.slice(end + 2)
            if (end === 0) return true
          } else {
            const take = Math.min(c.chunk, c.buffer.length)
            keep(c, c.buffer.slice(0, take))
            c.buffer = c.buffer.slice(take)
            c.chunk -= take
            if (c.chunk > 0) return false
            if (c.buffer.length < 2) {
              c.chunk = 0
              return false
            }
            c.buffer = c.buffer.slice(2)
            c.chunk = -1
          }
          if (c.chunk === 0) {
            if (c.buffer.length < 2) return false
            c.buffer = c.buffer.slice(2)
            c.chunk = -1
          }
        }
    }
  }

  function complete(origin: Origin, c: Connection): void {
    c.phase = 'head'
    if (c.status >= 100 && c.status < 200) return
    const request = c.inFlight.shift()
    c.answered++
    if (request) {
      const limit = request.bodyLimit
      finish(request, {
        status: c.status,
        body: Buffer.from(c.kept, 'latin1').toString('utf8').slice(0, limit),
        error: null,
      })
    }
    if (!c.keepAlive) {
      // This server closes connections: no pipelining to it, and what was sent behind this request goes again.
      origin.pipelining = false
      return drop(origin, c, 'the receiver closed the connection', 'always')
    }
    origin.pipelining ??= true
    dispatch(origin)
  }

  /**
   * Ends a connection. What it had not answered is sent once more on another connection when
   * it cannot have had its chance: `always` (the server closes after each answer, or an earlier
   * request stalled the connection), `if-reused` (a connection that answered before and then
   * closed: a keep-alive connection the server dropped as idle), else it fails. Receivers drop
   * the rare duplicate by its webhook-id.
   */
  function drop(
    origin: Origin,
    c: Connection,
    reason: string,
    again: 'always' | 'if-reused' | 'never',
  ): void {
    if (c.closed) return
    c.closed = true
    origin.connections = origin.connections.filter((x) => x !== c)
    c.socket.destroy()
    const unanswered = [...c.inFlight, ...c.outbox]
    c.inFlight = []
    c.outbox = []
    const resend = !closed && (again === 'always' || (again === 'if-reused' && c.answered > 0))
    const requeued: Request[] = []
    for (const request of unanswered) {
      if (request.done) continue
      if (resend && !request.retried) {
        request.retried = true
        requeued.push(request)
      } else fail(request, reason)
    }
    origin.queue.unshift(...requeued)
    if (!closed) dispatch(origin)
  }

  return {
    post(url, body, options) {
      let request!: Request
      const done = new Promise<PostResult>((resolve) => {
        request = {
          head: '',
          body: Buffer.from(body, 'utf8'),
          bodyLimit: options.bodyLimit,
          started: performance.now(),
          timer: undefined as unknown as NodeJS.Timeout,
          retried: false,
          done: false,
          resolve,
        }
      })
      if (closed) {
        fail(request, 'aborted: sendbox is closing')
        return { done, abort: () => {} }
      }
      const target = targetOf(url)
      if (!target) {
        fail(request, `not an http(s) URL: ${url}`)
        return { done, abort: () => {} }
      }
      const { origin } = target
      let head = `${target.requestLine}content-length: ${request.body.length}\r\n`
      for (const [name, value] of Object.entries(options.headers)) head += `${name}: ${value}\r\n`
      request.head = `${head}\r\n`
      request.timer = setTimeout(() => {
        fail(request, `no response within ${options.timeoutMs} ms (timed out)`)
        // Its connection's answers are now out of step: close it; the requests behind go again.
        const connection = origin.connections.find((c) => c.inFlight.includes(request))
        if (connection)
          drop(origin, connection, 'an earlier request on the connection timed out', 'always')
      }, options.timeoutMs)
      origin.queue.push(request)
      dispatch(origin)
      return {
        done,
        abort() {
          fail(request, 'aborted: sendbox is closing')
        },
      }
    },
    close() {
      closed = true
      targets.clear()
      for (const origin of origins.values()) {
        for (const request of origin.queue) fail(request, 'aborted: sendbox is closing')
        origin.queue = []
        for (const connection of [...origin.connections])
          drop(origin, connection, 'aborted: sendbox is closing', 'never')
      }
      origins.clear()
    },
  }
}

/** `connect ECONNREFUSED 127.0.0.1:9` → a sentence a person can act on. */
function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ECONNREFUSED')
    return `connection refused (${error.message.replace(/^connect /, '')}): is the receiver running?`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${error.message})`
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was reset by the receiver'
  return error.message || String(error)
}
