import { type AddressInfo, createServer } from 'node:net'
import { listen } from 'listhen'
import { bindError, type Connections, type Listener, type ListenOptions } from './connections.js'

/**
 * The listener for HTTPS and network addresses: listhen, loaded by `listen` only when one of
 * them is asked for. What it does for sendbox: it serves TLS from the certificate and key we give
 * it, and lists the network URLs with a QR code (`showNetworkUrls`), which is what it does well.
 * The rest of what it does is switched off below, each for a reason measured or seen:
 *
 * - `port` (get-port-please): a busy fixed port would move to one in 3000-3100, or a random one;
 *   a test suite pointed at 5025 would then reach nothing, or another program. Fixed is fixed.
 * - `autoClose: false`: its SIGINT/SIGTERM handlers call `process.exit(0)`, which skips
 *   sendbox's own stop (answers in progress finish, event streams end, the log is closed).
 * - its `close` (http-shutdown): `connections.attach` closes instead, as `Listener.close` says.
 * - its error: get-port-please says only "Unable to find an available port"; `bindFailure`
 *   asks the port itself (EADDRINUSE, EACCES) for the `StartError`.
 * - `https: { cert, key }`: its own certificate is signed by a fresh CA nobody trusts, valid a
 *   day; sendbox's local CA (./local-ca.ts) is trusted once and kept.
 * - `showURL`, `open`, `clipboard`, `isTest`, `extraURLs: []`: sendbox prints its own banner,
 *   opens the inbox itself (`--no-open`), never writes the clipboard, and lists no URLs taken
 *   from the environment.
 *
 * What it costs, measured (Node 20, a machine at load ~16, medians of 7):
 * - install: 26 packages, 4.6 MB, come with listhen alone (`npm ls --all`; `du`): jiti 1.8 MB,
 *   a second h3 (v1, 0.54 MB, with crossws 0.42 MB), @parcel/watcher-wasm 0.26 MB, … They serve
 *   its CLI and dev server (`listhen ./app.ts --watch`), loaded with `import()` there: `listen`
 *   never loads jiti, the second h3 or the watcher.
 * - start: `import('listhen')` takes 81.5 ms of CPU against 7.4 ms for `node:https`; 38.9 ms of
 *   it is node-forge, which the local CA loads anyway. So an `--https` or network start pays
 *   ~35 ms for listhen itself, and a default start nothing (it is not loaded there:
 *   test/startup/lazy-loading.test.ts).
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
