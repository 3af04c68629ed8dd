import { createServer, connect, type Server, type Socket } from 'node:net'
import { describe, inject } from 'vitest'
import { pingPort } from './spamd-server.js'

/**
 * The spam score's side of the tests: the run's throwaway spamd (test/spamd-setup.ts starts it).
 * Without spamd on the machine, `describeSpamd` skips (the setup printed the one line that says so).
 */
export const provided = inject('spamd')

/** `describe` when the run has a spamd, `describe.skip` otherwise. */
export const describeSpamd = provided.port ? describe : describe.skip

/** `host:port` of the run's spamd, once it answers PING (its first start compiles rules: seconds). */
export async function spamdReady(): Promise<string> {
  const { host, port } = provided
  if (!host || !port) throw new Error(provided.skipped ?? 'no spamd')
  const deadline = Date.now() + 60_000
  while (!(await pingPort(port, host))) {
    if (Date.now() > deadline)
      throw new Error(`spamd at ${host}:${port} did not answer PING in a minute`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return `${host}:${port}`
}

/** A TCP server on 127.0.0.1 and a free port; `close()` also ends its open connections. */
export async function tcpServer(
  onConnection: (socket: Socket) => void,
): Promise<{ port: number; address: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  let count = 0
  // Half-open as spamd is: a client that has sent its request still reads the answer.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    count += 1
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    onConnection(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    port,
    address: `127.0.0.1:${port}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/**
 * A forwarder to the run's spamd that keeps what each connection sent: stopping it is a spamd
 * gone, as sendbox sees it (nothing answers at that port).
 */
export async function spamdForwarder(target: string) {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ]
  const requests: Buffer[] = []
  const server = await tcpServer((socket) => {
    const chunks: Buffer[] = []
    const upstream = connect({ host, port, allowHalfOpen: true })
    upstream.on('error', () => socket.destroy())
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('end', () => requests.push(Buffer.concat(chunks)))
    socket.pipe(upstream).pipe(socket)
  })
  return { ...server, requests }
}

/** A canned spamd answer to REPORT: what Debian's spamd 4.0.1 says of a bare message. */
export const CANNED_REPORT = (() => {
  const body =
    'Content analysis details:   (0.6 points, 5.0 required)\n\n' +
    ' pts rule name              description\n' +
    '---- ---------------------- --------------------------------------------------\n' +
    ' 0.6 MISSING_MID            Missing Message-Id: header\n' +
    '-0.0 NO_RELAYS              Informational: message was not relayed via SMTP\n\n'
  return `SPAMD/1.1 0 EX_OK\r\nContent-length: ${Buffer.byteLength(body)}\r\nSpam: False ; 0.6 / 5.0\r\n\r\n${body}`
})()

/**
 * A stand-in spamd that answers every request, once it is sent whole, with `CANNED_REPORT`:
 * for tests about sendbox's answers (the document's conformance), not about SpamAssassin.
 */
export function cannedSpamd() {
  return tcpServer((socket) => {
    socket.resume()
    socket.on('end', () => socket.end(CANNED_REPORT))
  })
}
