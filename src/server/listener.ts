import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { errorBody, JSON_CONTENT_TYPE } from '../http/errors.js'

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

/**
 * Ports the Fetch standard blocks: browsers will not open the inbox there, nor will Node's
 * `fetch` reach the API (https://fetch.spec.whatwg.org/#port-blocking).
 */
const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
  995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080,
])

/** How long `close()` lets answers in progress run (an upload that stalls, say) before cutting them. */
const CLOSE_GRACE_MS = 3000

/** A listening `node:http` server. */
export interface Listener {
  port: number
  /**
   * Stops taking connections and resolves once every one is closed: at once for those with no
   * answer in progress (idle keep-alive ones, and those that sent nothing or half a request), as
   * soon as its answer is sent for the others, so no client (an `EventSource` reconnecting, say)
   * keeps the server open by asking again; after a few seconds, whatever is left is cut.
   */
  close(): Promise<void>
}

export interface ListenOptions {
  port: number
  host: string
  /** For server errors after the start (a failed accept, say). */
  warn: (message: string) => void
}

/**
 * Listens with `node:http` itself. (listhen did until #15: every one of its features was turned
 * off here, its fixed-port fallback had to be defeated, and loading it, with node-forge for
 * HTTPS, took ~60 ms of a ~330 ms start.) A fixed port is that port or a `StartError`.
 *
 * @example
 * const listener = await listen(toNodeHandler(app), { port: 0, host: '127.0.0.1', warn: console.warn })
 * await listener.close()
 */
export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  options: ListenOptions,
): Promise<Listener> {
  const { port, host, warn } = options
  const where = `port ${port} on ${host}`
  if (BAD_PORTS.has(port)) {
    return Promise.reject(
      new StartError(
        'listen_failed',
        `Could not listen on ${where}: browsers and fetch refuse that port (it belongs to another protocol); choose another with --port.`,
      ),
    )
  }
  let closing = false
  const sockets = new Set<Socket>()
  /** Answers in progress, per connection. */
  const answering = new Map<Socket, number>()

  const server = createServer((req, res) => {
    const socket = req.socket
    answering.set(socket, (answering.get(socket) ?? 0) + 1)
    if (closing) res.shouldKeepAlive = false
    res.once('close', () => {
      const left = answering.get(socket)! - 1
      if (left > 0) return void answering.set(socket, left)
      answering.delete(socket)
      // Headers already sent said keep-alive (an event stream's do): end the connection here.
      if (closing) socket.end()
    })
    handler(req, res)
  })
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  // Requests Node itself cannot parse never reach h3; answer them in the same JSON shape.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') return socket.destroy()
    const body = JSON.stringify(
      errorBody('bad_request', 'The request could not be parsed as HTTP/1.1.'),
    )
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: ${JSON_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
  })

  let closed: Promise<void> | undefined
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      closing = true
      const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS)
      cut.unref()
      server.close(() => {
        clearTimeout(cut)
        resolve()
      })
      for (const socket of sockets) if (!answering.has(socket)) socket.destroy()
    }))

  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(
          new StartError(
            'port_in_use',
            `Port ${port} is already in use (${where}). Stop whatever holds it, or choose another with --port (0 picks a free one).`,
          ),
        )
      } else {
        reject(new StartError('listen_failed', `Could not listen on ${where}: ${error.message}`))
      }
    }
    server.once('error', failed)
    server.listen(port, host, () => {
      server.off('error', failed)
      server.on('error', (error: Error) => warn(`The server: ${error.message}`))
      resolve({ port: (server.address() as AddressInfo).port, close })
    })
  })
}
