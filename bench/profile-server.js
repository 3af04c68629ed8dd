// `serve` of a built checkout, profiled on demand, for bench/cpu-profile.js:
//   node bench/profile-server.js ROOT serve-args…
// It runs ROOT's unbundled dist/cli/index.js (tsc's output, one file per module) rather than the
// bundle, so that a profile's function names its module folder (dist/templates/…, dist/store/…).
// Over IPC: 'start' starts V8's sampling profiler, `{ stop: FILE }` stops it and writes the
// profile to FILE, then answers 'written'. The server's own ready line passes through.
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { writeFile } from 'node:fs/promises'

const [root, ...args] = process.argv.slice(2)
const session = new Session()
session.connect()
await session.post('Profiler.enable')
// 250 µs: a send takes about 1 ms of CPU, so the default 1 ms would see each at most once.
await session.post('Profiler.setSamplingInterval', { interval: 250 })

process.on('message', async (message) => {
  if (message === 'start') {
    await session.post('Profiler.start')
    process.send('started')
  } else if (message?.stop) {
    const { profile } = await session.post('Profiler.stop')
    await writeFile(message.stop, JSON.stringify(profile))
    process.send('written')
  }
})
// The IPC channel would keep the process up after `serve` has stopped.
process.channel?.unref()

const { main } = await import(pathToFileURL(join(root, 'dist/cli/index.js')).href)
process.exitCode = await main(args)
process.disconnect?.()
