import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  bindError,
  type Handler,
  type Listener,
  type ListenOptions,
  StartError,
  trackConnections,
} from './connections.js'

export { StartError, type Listener, type ListenOptions }

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

/**
 * Listens. The default, a loopback address over plain HTTP, is `node:http` itself: listhen did
 * until #15, with every one of its features turned off, and loading it (with node-forge) took
 * ~60 ms of a ~330 ms start. With TLS or a network address, listhen is loaded (then only) and
 * does what it is good at: HTTPS, and the network URLs with a QR code. A fixed port is that
 * port or a `StartError`.
 *
 * @example
 * const listener = await listen(toNodeHandler(app), { port: 0, host: '127.0.0.1', warn: console.warn })
 * await listener.close()
 */
export async function listen(handler: Handler, options: ListenOptions): Promise<Listener> {
  const { port, host, warn } = options
  if (BAD_PORTS.has(port)) {
    throw new StartError(
      'listen_failed',
      `Could not listen on port ${port} on ${host}: browsers and fetch refuse that port (it belongs to another protocol); choose another with --port.`,
    )
  }
  const connections = trackConnections(handler)
  if (options.tls || options.network) {
    const { listenWithListhen } = await import('./listhen.js')
    return listenWithListhen(connections, options)
  }
  const server = createServer(connections.handler)
  const close = connections.attach(server)
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(bindError(error, port, host))
    server.once('error', failed)
    server.listen(port, host, () => {
      server.off('error', failed)
      server.on('error', (error: Error) => warn(`The server: ${error.message}`))
      resolve({ port: (server.address() as AddressInfo).port, close })
    })
  })
}
