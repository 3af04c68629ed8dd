import { createServer } from 'node:net'

/**
 * A port nobody listens on now (the kernel's pick, released at once): for the servers the tests
 * start that take a port rather than reporting the one they bound (PostgreSQL, spamd, nginx).
 * Plain JavaScript, as pg-cluster.js is: the benches load it without a build.
 *
 * @example
 * const port = await freePort()
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}
