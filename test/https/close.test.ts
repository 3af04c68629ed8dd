import { connect as tcpConnect } from 'node:net'
import { connect, type TLSSocket } from 'node:tls'
import { expect, it } from 'vitest'
import { startSendbox } from '../../src/index.js'

/** close() over TLS ends connections as over HTTP (src/server/connections.ts). */

const start = () => startSendbox({ port: 0, memory: true, https: true, templates: 'templates' })

/** Resolves once `part` has been received on `socket` (now or later). */
function seen(socket: TLSSocket, received: () => string, part: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => received().includes(part) && (socket.off('data', check), resolve())
    socket.on('data', check)
    check()
  })
}

it('does not wait on a client that asks again on its kept-alive TLS connection (an EventSource reconnecting)', async () => {
  const sandbox = await start()
  const socket = connect({ port: sandbox.port, host: '127.0.0.1', ca: sandbox.ca! })
  let received = ''
  socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk))
  const ended = new Promise((resolve) => socket.once('close', resolve))
  const request = `GET /_sandbox/api/events HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\n\r\n`
  socket.write(request)
  await seen(socket, () => received, '200 OK')
  const closed = sandbox.close()
  // The stream ends (the last chunk of a chunked body); the client asks again at once.
  await seen(socket, () => received, '\r\n0\r\n\r\n')
  socket.write(request)
  const asked = Date.now()
  await closed
  await ended
  // Not the keep-alive timeout (5 s), nor the grace for answers in progress (3 s).
  expect(Date.now() - asked).toBeLessThan(2500)
})

it('does not wait on connections that never finished a handshake, or sent nothing after one', async () => {
  const sandbox = await start()
  const bare = tcpConnect(sandbox.port, '127.0.0.1')
  const secured = connect({ port: sandbox.port, host: '127.0.0.1', ca: sandbox.ca! })
  for (const socket of [bare, secured]) socket.on('error', () => {})
  await Promise.all([
    new Promise((resolve) => bare.once('connect', resolve)),
    new Promise((resolve) => secured.once('secureConnect', resolve)),
  ])
  const gone = Promise.all(
    [bare, secured].map((socket) => new Promise((resolve) => socket.once('close', resolve))),
  )
  const started = Date.now()
  await sandbox.close()
  await gone
  // Not after the grace given to answers in progress (3 s): these had none.
  expect(Date.now() - started).toBeLessThan(2000)
})
