// A webhook receiver for the bench, in its own process: answers every POST 204 and counts
// them; GET answers {"count":n}. Prints `receiver ready <port>` once listening.
//
// It reads HTTP/1.1 straight off the socket (request line, Content-Length, body skipped) so
// that on a 2-core machine it takes as little CPU as it can from the server being measured:
// the bench is about what webhooks cost sendbox, not what they cost a receiver.
import { createServer } from 'node:net'

let count = 0
const NO_CONTENT = 'HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n'

const server = createServer((socket) => {
  let buffer = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk) => {
    buffer += chunk
    let out = ''
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n')
      if (end === -1) break
      const head = buffer.slice(0, end)
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0)
      if (buffer.length < end + 4 + length) break
      buffer = buffer.slice(end + 4 + length)
      if (head.startsWith('GET')) {
        const body = JSON.stringify({ count })
        out += `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
      } else {
        count++
        out += NO_CONTENT
      }
    }
    if (out) socket.write(out)
  })
  socket.on('error', () => {})
})
server.listen(0, '127.0.0.1', () => console.log(`receiver ready ${server.address().port}`))
