// Preloaded (`node --import`) into a `serve` (or bench/bare-server.js) by bench/startup.js: writes
// to stderr the CPU time the process had spent when it printed its ready line
// (`startup-probe {"cpuMs":…,"modules":…}`) and when it finished each of its first two answers
// (`startup-probe-answer {"n":1,"cpuMs":…}`, from node:http's `http.server.response.finish`
// diagnostics channel, which costs nothing until subscribed). CPU time moves less with the
// machine's load than the wall time; the number of modules loaded by the ready line (plain
// files, and the modules each of sendbox's bundles holds, which the bundler marks with a
// `// <path>` line) does not move at all. Counting needs a module hook, which slows the start: it
// runs only with STARTUP_PROBE_MODULES=1, in runs that are not timed.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { readFileSync, writeSync } from 'node:fs'
import { createRequire, register } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { MessageChannel } from 'node:worker_threads'

const loaded = []
if (process.env.STARTUP_PROBE_MODULES === '1') {
  const { port1, port2 } = new MessageChannel()
  port1.on('message', (url) => loaded.push(url))
  port1.unref()
  // The hook test/startup/lazy-loading.test.ts records with: it posts each URL loaded.
  register('../test/startup/module-hook.mjs', {
    parentURL: import.meta.url,
    data: { port: port2 },
    transferList: [port2],
  })
}

/** Modules in the files loaded: a bundle counts the modules it was built from. */
const modulesIn = (urls) =>
  urls
    .filter((url) => url.startsWith('file:'))
    .reduce((sum, url) => {
      const marks = readFileSync(fileURLToPath(url), 'utf8').match(/^\/\/ \S+\.[cm]?js$/gm)
      return sum + (marks?.length ?? 1)
    }, 0)

const cpuMs = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

const write = process.stdout.write.bind(process.stdout)
let seen = false
process.stdout.write = (chunk, ...rest) => {
  if (!seen && String(chunk).includes('sendbox ready')) {
    seen = true
    // With what require.cache holds then: `serve` loads its CommonJS bundles itself (src/lib/code-cache.ts).
    const required = Object.keys(createRequire(import.meta.url).cache).map(
      (f) => pathToFileURL(f).href,
    )
    const modules = loaded.length ? modulesIn([...new Set([...loaded, ...required])]) : null
    writeSync(2, `startup-probe ${JSON.stringify({ cpuMs: cpuMs(), modules })}\n`)
  }
  return write(chunk, ...rest)
}

let answers = 0
const onAnswer = () => {
  answers += 1
  writeSync(2, `startup-probe-answer ${JSON.stringify({ n: answers, cpuMs: cpuMs() })}\n`)
  if (answers === 2) unsubscribe('http.server.response.finish', onAnswer)
}
subscribe('http.server.response.finish', onAnswer)
