// The run whose compiled code the build keeps (scripts/bundle.js, `keepCodeCaches`): the CLI
// through the loader bin/sendbox.js uses (src/lib/code-cache.ts), `serve --memory` on the
// example templates and fixtures, its first health answer, a send of each example template
// (its first fixture) and a read of it; then SIGTERM, and the cache of each file it loaded is
// written beside it. What a run never calls stays out of the caches and is compiled lazily, as
// without them.
//
// Usage: node scripts/code-cache-run.js <dist folder>
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = resolve(process.argv[2] ?? 'dist')
const root = fileURLToPath(new URL('../', import.meta.url))
const { createCodeCacheLoader } = createRequire(import.meta.url)(
  join(dist, 'sendbox-code-cache.cjs'),
)
const loader = createCodeCacheLoader()
const { main } = loader.require(join(dist, 'sendbox-cli.cjs'))

/** A port free now, from the system. */
const freePort = () =>
  new Promise((done, fail) => {
    const server = createServer().once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => done(port))
    })
  })

/** The first fixture of each example template: its variables. */
function examples() {
  const fixtures = join(root, 'fixtures')
  return readdirSync(fixtures).map((name) => {
    const path = join(fixtures, name)
    const file = statSync(path).isDirectory() ? join(path, readdirSync(path).sort()[0]) : path
    return {
      template: name.replace(/\.json$/, ''),
      variables: JSON.parse(readFileSync(file, 'utf8')),
    }
  })
}

const port = await freePort()
const base = `http://127.0.0.1:${port}`
const serving = main(
  [
    'serve',
    '--memory',
    '--no-open',
    '--port',
    String(port),
    '--templates',
    join(root, 'templates'),
    '--fixtures',
    join(root, 'fixtures'),
  ],
  { ...process.env, CI: 'true' },
)
for (let tries = 0; ; tries++) {
  const answer = await fetch(`${base}/_sandbox/api/health`).catch(() => null)
  if (answer?.ok) break
  if (tries > 400) throw new Error('serve never answered its health')
  await new Promise((done) => setTimeout(done, 10))
}
for (const { template, variables } of examples()) {
  const to = `${template}@example.com`
  const sent = await fetch(`${base}/messages`, {
    method: 'POST',
    headers: { authorization: 'token sandbox_code_cache', 'content-type': 'application/json' },
    body: JSON.stringify({
      template,
      from: 'app@example.com',
      to,
      subject: template,
      templateVariables: variables,
    }),
  })
  if (sent.status !== 201)
    throw new Error(`The send of ${template} was answered ${sent.status}: ${await sent.text()}`)
  await (await fetch(`${base}/_sandbox/api/messages?to=${encodeURIComponent(to)}`)).text()
}
// What the signal does (Windows has no signal to send oneself: there it would end the process).
process.emit('SIGTERM', 'SIGTERM')
await serving
loader.writeCaches()
process.exit(0)
