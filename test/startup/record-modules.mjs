// Preloaded with --import: records every module URL the process loads, and on exit writes the
// list to the file named by SENDBOX_MODULE_LOG. Lets a test say what a command never loads.
import { createRequire, register } from 'node:module'
import { pathToFileURL } from 'node:url'
import { MessageChannel } from 'node:worker_threads'
import { writeFileSync } from 'node:fs'

const { port1, port2 } = new MessageChannel()
const loaded = []
port1.on('message', (url) => loaded.push(url))
port1.unref()
register('./module-hook.mjs', {
  parentURL: import.meta.url,
  data: { port: port2 },
  transferList: [port2],
})
// And what `require.cache` holds then: `serve` loads the CommonJS bundles itself (src/lib/code-cache.ts), which puts them there.
const required = () =>
  Object.keys(createRequire(import.meta.url).cache).map((file) => pathToFileURL(file).href)
process.on('exit', () =>
  writeFileSync(
    process.env.SENDBOX_MODULE_LOG,
    [...new Set([...loaded, ...required()])].join('\n'),
  ),
)
