import { type AddressInfo, createServer } from 'node:net'
import { listen } from 'listhen'
import { bindError, type Connections, type Listener, type ListenOptions } from './connections.js'

/**
 * The listener for HTTPS and network addresses: listhen, loaded by `listen` only when one of
 * them is asked for (importing it and node-forge costs the default start ~60 ms otherwise).
 * It serves TLS from the certificate and key we give it (its own would be a fresh CA nobody
 * trusts, valid one day), and lists the network URLs with a QR code. Its printing, opening,
 * clipboard and signal handling stay off: sendbox has its own.
 */

/**
 * A fixed port is that port or an error: listhen (get-port-please) would otherwise quietly
 * move to a port in 3000-3100 (`isProd: false`) or a random one (`random`). Port 0 is any free
 * port.
 */
const portSpec = (port: number) => ({ port, random: port === 0 })

/** Why binding `port` on `host` fails now (EADDRINUSE, EACCES, …), or null when it does not. */
function bindFailure(port: number, host: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error))
    probe.listen(port, host, () => probe.close(() => resolve(null)))
  })
}

/**
 * Listens with listhen; `connections` keeps the answers in progress and closes as
 * `Listener.close` says (listhen's own close cuts answers in progress).
 *
 * @example
 * const listener = await listenWithListhen(trackConnections(handler), { port: 0, host: '0.0.0.0', warn, tls })
 */
export async function listenWithListhen(
  connections: Connections,
  options: ListenOptions,
): Promise<Listener> {
  const { port, host, warn, tls } = options
  const wildcard = host === '0.0.0.0' || host === '::'
  let listener: Awaited<ReturnType<typeof listen>>
  try {
    listener = await listen(connections.handler, {
      port: portSpec(port),
      hostname: host,
      // listhen lists every interface's address only for a wildcard; a named address is its own URL.
      public: wildcard,
      https: tls ? { cert: tls.cert, key: tls.key } : false,
      showURL: false,
      open: false,
      clipboard: false,
      qr: true,
      autoClose: false,
      // Quiet (get-port-please's messages), and no extra URLs from the environment.
      isTest: true,
      // What makes a busy fixed port an error rather than a move to 3000-3100 (see portSpec).
      isProd: true,
      extraURLs: [],
    })
  } catch (error) {
    // get-port-please says only "Unable to find an available port": ask the port itself why.
    const cause = (error as Error).name === 'GetPortError' ? await bindFailure(port, host) : null
    throw bindError(cause ?? (error as NodeJS.ErrnoException), port, host)
  }
  const server = listener.server
  server.on('error', (error: Error) => warn(`The server: ${error.message}`))
  const close = connections.attach(server, Boolean(tls))
  return {
    port: (listener.address as AddressInfo).port,
    close,
    showNetworkUrls: (path) => listener.showURL({ baseURL: path, qr: true }),
  }
}
