// The two floors sendbox is measured against (issue: sends per second as a fraction of each).
//   node bench/floor.js http               a bare node:http server that only parses the JSON body
//   node bench/floor.js work DIR SLUG FILE the least code doing a send's real work: JSON.parse,
//                                          the same liquidjs render, the same text part from
//                                          html-to-text (with sendbox's options: data tables as
//                                          aligned columns; the bytes sendbox stores), one line
//                                          written to an open file handle
// Prints `floor ready <port>` once listening.
import { createServer } from 'node:http'
import { open } from 'node:fs/promises'
import { Liquid } from 'liquidjs'
import { htmlToTextAlone } from '../dist/templates/plain-text.js'

const [kind, dir, slug, file] = process.argv.slice(2)

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}

let handle
if (kind === 'http') {
  handle = async (req, res) => {
    const body = JSON.parse(await readBody(req))
    res.writeHead(201, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ok: true, template: body.template }))
  }
} else {
  const liquid = new Liquid({
    root: dir,
    partials: dir,
    layouts: dir,
    extname: '.liquid',
    outputEscape: 'escape',
    cache: true,
  })
  const { readFile } = await import('node:fs/promises')
  const source = (await readFile(`${dir}/${slug}.liquid`, 'utf8')).replace(
    /^---\n[\s\S]*?\n---\n/,
    '',
  )
  const parsed = liquid.parse(source)
  const out = await open(file, 'a')
  // html-to-text itself, as compiled for sendbox: sendbox reads the HTML with its own parser and
  // passes html-to-text's, which is what the floor measures it against.
  const toPlainText = htmlToTextAlone()
  handle = async (req, res) => {
    const body = JSON.parse(await readBody(req))
    const html = liquid.renderSync(parsed, body.templateVariables)
    const text = toPlainText(html)
    await out.write(`${JSON.stringify({ id: Date.now(), html, text, ...body })}\n`)
    res.writeHead(201, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ok: true }))
  }
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    res.writeHead(500)
    res.end(String(error))
  })
})
server.listen(0, '127.0.0.1', () => console.log(`floor ready ${server.address().port}`))
