import { EventEmitter } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'

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
