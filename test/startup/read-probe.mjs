// Preloaded with --import into a `serve`: when the ready line is printed, writes to stderr the
// template files (.liquid, .html) the process had read by then, as
// `templates-read-at-ready ["…", …]`.
import fs from 'node:fs'

const read = new Set()
const isTemplate = (file) => /\.(liquid|html)$/.test(String(file))
const { readFile } = fs.promises
fs.promises.readFile = function (file, ...rest) {
  if (isTemplate(file)) read.add(String(file))
  return readFile.call(this, file, ...rest)
}
const { readFileSync } = fs
fs.readFileSync = function (file, ...rest) {
  if (isTemplate(file)) read.add(String(file))
  return readFileSync.call(this, file, ...rest)
}
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('sendbox ready'))
    fs.writeSync(2, `templates-read-at-ready ${JSON.stringify([...read])}\n`)
  return write(chunk, ...rest)
}
