// The guard sendbox adds to the PostgreSQL client, as a plugin for rolldown (the bundles) and
// Vite (the tests): both call `transform(code, id)` on each module.

/**
 * postgres.js (3.4.9, the newest) writes a small message on a `setImmediate` and does not check
 * that the socket is still there when it runs: a connection that closes in between (the database
 * going away, under load) throws from the immediate, where nothing can catch it, and the process
 * dies (porsager/postgres#1154 and #1208; the fixes, #1168 and #1209, are not released). Seen
 * here in test/pg/outage.test.ts, once in every two full runs with the work runner polling.
 * The client is bundled (scripts/bundle.js: in its own chunk, loaded with --store alone; +30 KB
 * to the tarball) with the guard those pull requests add, and the tests run it the same way
 * (vitest.config.ts): a write without a socket settles its queries with
 * CONNECTION_CLOSED (sendbox answers 503 and retries reads), and a close forgets the buffered
 * write and its timer, which otherwise stay set and keep the connection from ever writing again.
 * The build fails if the code it patches is no longer there, so an upgrade is looked at.
 */
export const guardPostgresWrites = {
  name: 'guard-postgres-writes',
  transform(code, id) {
    if (!/\/postgres\/(?:cjs\/)?src\/connection\.js$/.test(id)) return null
    const write = '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)'
    const clear = /\n(\s+)clearImmediate\(nextWriteTimer\)\n/g
    if (!code.includes(write) || (code.match(clear) ?? []).length !== 2)
      throw new Error(`postgres.js changed: the nextWrite guard no longer applies to ${id}`)
    return {
      code: code
        .replace(
          write,
          "  function nextWrite(fn) {\n    if (!socket) {\n      chunk = nextWriteTimer = null\n      error(Errors.connection('CONNECTION_CLOSED', options))\n      return false\n    }\n    const x = socket.write(chunk, fn)",
        )
        .replace(clear, '\n$1clearImmediate(nextWriteTimer)\n$1chunk = nextWriteTimer = null\n'),
      map: null,
    }
  },
}
