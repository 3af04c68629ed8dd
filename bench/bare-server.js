// The baseline of bench/startup.js: the least a Node HTTP server is, `node:http` answering every
// request 200 with a small JSON body, on the port given as its first argument (0: any), with the
// same ready line as `sendbox serve`. Started and polled exactly as sendbox is, so that the ratio
// of the two first answers is what sendbox adds to Node's own start.
import { createServer } from 'node:http'

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'))
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`sendbox ready http://127.0.0.1:${server.address().port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
