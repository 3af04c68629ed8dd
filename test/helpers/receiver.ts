import { EventEmitter } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'

/** One request a webhook receiver got. */
export interface Received {
  headers: IncomingHttpHeaders
  /** The raw body, exactly as signed. */
  raw: string
  body: { type: string; timestamp: string; data: Record<string, any> }
  /** performance.now() when it arrived. */
  at: number
}

export interface Receiver {
  url: string
  received: Received[]
  /**
   * How to answer the nth request (0-based): a status, or 'hang' to never answer. Default 200.
   */
  respond: (request: Received, n: number) => number | 'hang'
  /** Resolves with the requests once `predicate` holds for them (checked on every arrival); no polling. */
  until(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>
  /** Events of one message, in arrival order. */
  typesFor(messageId: string): string[]
  close(): Promise<void>
}

/** A webhook endpoint on a free port, recording every request. */
export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const arrivals = new EventEmitter()
  const hanging = new Set<import('node:http').ServerResponse>()
  const receiver: Receiver = {
    url: '',
    received: [],
    respond: () => 200,
    until(predicate, timeoutMs = 10_000) {
      if (predicate(receiver.received)) return Promise.resolve(receiver.received)
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(receiver.received)) return
          cleanup()
          resolve(receiver.received)
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(
            new Error(
              `the receiver did not get what was expected within ${timeoutMs} ms; it got ${JSON.stringify(receiver.received.map((r) => r.body.type))}`,
            ),
          )
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          arrivals.off('request', check)
        }
        arrivals.on('request', check)
      })
    },
    typesFor: (id) =>
      receiver.received.filter((r) => r.body.data.id === id).map((r) => r.body.type),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (raw += chunk))
    req.on('end', () => {
      const request: Received = {
        headers: req.headers,
        raw,
        body: JSON.parse(raw),
        at: performance.now(),
      }
      const n = receiver.received.length
      receiver.received.push(request)
      const answer = receiver.respond(request, n)
      if (answer === 'hang') hanging.add(res)
      else {
        res.writeHead(answer, { 'content-type': 'text/plain' })
        res.end(answer >= 200 && answer < 300 ? 'ok' : `failing on purpose (${answer})`)
      }
      arrivals.emit('request')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`
  return receiver
}

/** A port nothing listens on: bound, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A receiver that answers one request per read: see startOnePerReadReceiver. */
export interface OnePerReadReceiver {
  url: string
  /** The `webhook-id` of every request it answered, in order. */
  answered: string[]
  /** Requests it read and dropped without answering (they came in the same read as another). */
  dropped: number
  /** Resolves once `predicate` holds for `answered` (checked as each request is answered). */
  until(predicate: (answered: string[]) => boolean, timeoutMs?: number): Promise<string[]>
  close(): Promise<void>
}

/**
 * A keep-alive server that does not process pipelined requests, as some receivers are: on each
 * read it answers the first complete request it holds with a 200 (keep-alive) and drops
 * whatever else that read brought. A client that pipelines loses the requests behind the first.
 */
export async function startOnePerReadReceiver(): Promise<OnePerReadReceiver> {
  const arrivals = new EventEmitter()
  const sockets = new Set<Socket>()
  const receiver: OnePerReadReceiver = {
    url: '',
    answered: [],
    dropped: 0,
    until(predicate, timeoutMs = 10_000) {
      if (predicate(receiver.answered)) return Promise.resolve(receiver.answered)
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(receiver.answered)) return
          cleanup()
          resolve(receiver.answered)
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(
            new Error(
              `the receiver answered ${receiver.answered.length} requests (dropped ${receiver.dropped}) within ${timeoutMs} ms`,
            ),
          )
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          arrivals.off('request', check)
        }
        arrivals.on('request', check)
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
  const server: NetServer = createNetServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    socket.setEncoding('latin1')
    let buffer = ''
    socket.on('data', (chunk: string) => {
      buffer += chunk
      const end = buffer.indexOf('\r\n\r\n')
      if (end === -1) return
      const head = buffer.slice(0, end)
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0)
      if (buffer.length < end + 4 + length) return
      // Everything after the first request in this read is dropped, unanswered.
      const rest = buffer.slice(end + 4 + length)
      receiver.dropped += rest.split('POST /').length - 1
      buffer = ''
      receiver.answered.push(/\r\nwebhook-id:\s*(\S+)/i.exec(head)?.[1] ?? '')
      socket.write('HTTP/1.1 200 OK\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\nok')
      arrivals.emit('request')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`
  return receiver
}
