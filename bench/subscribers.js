// SSE subscribers for the bench, in a process of their own: `node bench/subscribers.js <url> <n> [query]`
// opens n streams on /_sandbox/api/events[query] (`?fields=summary`, as the inbox asks) and reads them as fast as they come. It prints
// `subscribers ready <port>` once every stream has its first bytes; GET /count on that port
// answers {"events":n,"bytes":n} (message frames seen by each subscriber, summed).
//
// Plain sockets, no HTTP client: on a 2-core machine the readers should take as little CPU as
// they can from the server being measured.
import { connect, createServer } from 'node:net'

const [base, count = '20', query = ''] = process.argv.slice(2)
const { hostname, port } = new URL(base)
let events = 0
let bytes = 0
const FRAME = /\nevent: message\n/g

await Promise.all(
  Array.from(
    { length: Number(count) },
    () =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(
            `GET /_sandbox/api/events${query} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`,
          )
        })
        socket.setEncoding('latin1')
        let tail = ''
        socket.on('data', (chunk) => {
          resolve()
          bytes += chunk.length
          // Frames can straddle chunks: keep the end of the previous one.
          const text = tail + chunk
          events += (text.match(FRAME) ?? []).length
          tail = text.slice(-16)
        })
        socket.on('error', reject)
      }),
  ),
)

const server = createServer((socket) => {
  socket.once('data', () => {
    const body = JSON.stringify({ events, bytes })
    socket.end(
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    )
  })
})
server.listen(0, '127.0.0.1', () => console.log(`subscribers ready ${server.address().port}`))
