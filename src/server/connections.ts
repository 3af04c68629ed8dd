import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Server as HttpsServer } from 'node:https'
import type { Socket } from 'node:net'
import { errorBody, JSON_CONTENT_TYPE } from '../http/error-body.js'

/**
 * What every listener shares, whoever creates the server (`node:http` in ./listener.ts,
 * listhen in ./listhen.ts): the start errors, the connection keeping and the close.
 */

/** Why the server could not start; the CLI prints the message and exits 1. */
export class StartError extends Error {
  override name = 'StartError'
  constructor(
    readonly code: 'port_in_use' | 'listen_failed',
    message: string,
  ) {
    super(message)
  }
}

/** How long `close()` lets answers in progress run (an upload that stalls, say) before cutting them. */
const CLOSE_GRACE_MS = 3000

export type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** A listening `node:http` (or, with TLS, `node:https`) server. */
export interface Listener {
  port: number
  /**
   * Stops taking connections and resolves once every one is closed: at once for those with no
   * answer in progress (idle keep-alive ones, and those that sent nothing or half a request), as
   * soon as its answer is sent for the others, so no client (an `EventSource` reconnecting, say)
   * keeps the server open by asking again; after a few seconds, whatever is left is cut.
   */
  close(): Promise<void>
  /** Prints the URLs of `path` on the network, and a QR code of the first (listhen's own). */
  showNetworkUrls?(path: string): Promise<void>
}

export interface ListenOptions {
  port: number
  host: string
  /** For server errors after the start (a failed accept, say). */
  warn: (message: string) => void
  /** Serve HTTPS with this certificate (PEM; the chain may follow it) and key. */
  tls?: { cert: string; key: string } | null
  /** Bound to an address other machines reach: listhen lists the URLs there. */
  network?: boolean
}

/** What any server needs from its handler side: the answers in progress, per connection. */
export interface Connections {
  /** The handler, counting answers in progress per connection. */
  handler: Handler
  /** Takes over a server once it is created: its connections, parse errors and close. */
  attach(server: Server | HttpsServer, tls?: boolean): () => Promise<void>
}

/**
 * Connection keeping for a server that is about to be created (by us or by listhen): see
 * `Listener.close`. With TLS, the connections counted are the TLS sockets (what `req.socket`
 * is); a TCP connection with no TLS socket yet (a handshake under way, or never started) has
 * no answer in progress and is closed at once, like an idle one.
 *
 * @example
 * const connections = trackConnections(handler)
 * const server = createServer(connections.handler)
 * const close = connections.attach(server)
 */
export function trackConnections(handler: Handler): Connections {
  const state: Tracked = {
    closing: false,
    sockets: new Set(),
    raw: new Set(),
    answering: new Map(),
  }
  const { answering } = state
  const counted: Handler = (req, res) => {
    const socket = req.socket
    answering.set(socket, (answering.get(socket) ?? 0) + 1)
    if (state.closing) res.shouldKeepAlive = false
    res.once('close', () => {
      const left = answering.get(socket)! - 1
      if (left > 0) return void answering.set(socket, left)
      answering.delete(socket)
      // Headers already sent said keep-alive (an event stream's do): end the connection here.
      if (state.closing) socket.end()
    })
    handler(req, res)
  }
  const attach = (server: Server | HttpsServer, tls = false) => {
    const track = (set: Set<Socket>) => (socket: Socket) => {
      set.add(socket)
      socket.once('close', () => set.delete(socket))
    }
    server.on(tls ? 'secureConnection' : 'connection', track(state.sockets))
    if (tls) server.on('connection', track(state.raw))
    answerUnparsable(server, tls, state.raw)
    let closed: Promise<void> | undefined
    return () => (closed ??= closeTracked(server, state))
  }
  return { handler: counted, attach }
}

/** The connections of a server, and whether it is closing. */
interface Tracked {
  closing: boolean
  /** The connections answers come on: TCP sockets, or with TLS the TLS sockets. */
  sockets: Set<Socket>
  /** With TLS, the TCP connections under them. */
  raw: Set<Socket>
  /** Answers in progress, per connection. */
  answering: Map<Socket, number>
}

/** Requests Node itself cannot parse never reach h3: they are answered in the same JSON shape. */
function answerUnparsable(server: Server | HttpsServer, tls: boolean, raw: Set<Socket>): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') return socket.destroy()
    badRequest(socket, 'The request could not be parsed as HTTP/1.1.')
  })
  // Plain HTTP to the HTTPS port: OpenSSL knows an HTTP request when it sees one, and the TCP
  // connection under the failed handshake is still open, so the answer says so in plain HTTP
  // (without it, curl says "Empty reply from server" and Node's fetch "other side closed").
  if (tls)
    server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      if (error.code !== 'ERR_SSL_HTTP_REQUEST') return
      const tcp = [...raw].find((s) => peer(s) === peer(socket))
      if (tcp?.writable)
        badRequest(
          tcp,
          'This sandbox serves HTTPS, and the request came as plain HTTP: use https:// with the same host and port (and trust its CA: docs/https.md in the sendbox package).',
        )
    })
}

/**
 * Stops listening: idle connections close now, answers in progress may finish for
 * `CLOSE_GRACE_MS`, then the rest are cut.
 */
function closeTracked(server: Server | HttpsServer, state: Tracked): Promise<void> {
  return new Promise<void>((resolve) => {
    state.closing = true
    const cut = setTimeout(() => {
      server.closeAllConnections()
      for (const socket of state.raw) socket.destroy()
    }, CLOSE_GRACE_MS)
    cut.unref()
    server.close(() => {
      clearTimeout(cut)
      resolve()
    })
    // TCP connections whose TLS handshake has not finished have no answer in progress.
    const secured = new Set([...state.sockets].map(peer))
    for (const socket of state.raw) if (!secured.has(peer(socket))) socket.destroy()
    for (const socket of state.sockets) if (!state.answering.has(socket)) socket.destroy()
  })
}

/** A `400 bad_request` in the one error model, written by hand on a socket no handler has. */
function badRequest(socket: Socket, message: string): void {
  const body = JSON.stringify(errorBody('bad_request', message))
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: ${JSON_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
}

/** A connection's far end: the same for a TLS socket and the TCP socket under it. */
const peer = (socket: Socket) => `${socket.remoteAddress}:${socket.remotePort}`

/** The start error of a failed bind. */
export function bindError(error: NodeJS.ErrnoException, port: number, host: string): StartError {
  const where = `port ${port} on ${host}`
  if (error.code === 'EADDRINUSE' || error.name === 'GetPortError') {
    return new StartError(
      'port_in_use',
      `Port ${port} is already in use (${where}). Stop whatever holds it, or choose another with --port (0 picks a free one).`,
    )
  }
  return new StartError('listen_failed', `Could not listen on ${where}: ${error.message}`)
}
