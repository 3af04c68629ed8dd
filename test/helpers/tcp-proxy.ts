import { type AddressInfo, connect, createServer, type Socket } from 'node:net'

/** A TCP proxy on 127.0.0.1 to a port there, which can cut every connection through it at once. */
export interface TcpProxy {
  port: number
  /** Destroys both ends of every connection open now: each peer sees its socket close. */
  cut(): void
  close(): Promise<void>
}

/**
 * Starts a proxy to `target` (for a database connection lost at a moment the test picks).
 *
 * @example
 * const proxy = await startTcpProxy(5432)
 * proxy.cut() // every client of the proxy loses its connection
 */
export async function startTcpProxy(target: number): Promise<TcpProxy> {
  const open = new Set<Socket>()
  const track = (socket: Socket) => {
    open.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => open.delete(socket))
  }
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1')
    track(client)
    track(upstream)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const cut = () => {
    for (const socket of open) socket.destroy()
  }
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    close() {
      cut()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
