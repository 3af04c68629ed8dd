// Preloaded with --import into a `serve`: holds back every read of a template file (.liquid,
// .html) until the process has finished its first HTTP answer (node:http's
// `http.server.response.finish` channel), and then writes to stderr what that answer went out
// before: `answer-probe {"templatesRead":n}`, the template files read by then. A server whose
// first answer waits for its templates would wait for ever: the reads are let go after 5 s
// anyway (then n > 0), so such a server fails a test instead of hanging it.
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import fs from 'node:fs'

const isTemplate = (file) => /\.(liquid|html)$/.test(String(file))
let read = 0
let release
const released = new Promise((resolve) => {
  release = resolve
})
const failSafe = setTimeout(() => release(), 5000)
failSafe.unref()
const { readFile } = fs.promises
fs.promises.readFile = async function (file, ...rest) {
  if (isTemplate(file)) {
    await released
    read += 1
  }
  return readFile.call(this, file, ...rest)
}
const onAnswer = () => {
  unsubscribe('http.server.response.finish', onAnswer)
  fs.writeSync(2, `answer-probe ${JSON.stringify({ templatesRead: read })}\n`)
  clearTimeout(failSafe)
  release()
}
subscribe('http.server.response.finish', onAnswer)
