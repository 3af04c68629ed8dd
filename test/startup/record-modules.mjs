// Preloaded with --import: records every module URL the process loads, and on exit writes the
// list to the file named by SENDBOX_MODULE_LOG. Lets a test say what a command never loads.
import { register } from 'node:module'
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
process.on('exit', () => writeFileSync(process.env.SENDBOX_MODULE_LOG, loaded.join('\n')))
