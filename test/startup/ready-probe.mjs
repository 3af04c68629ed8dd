// Preloaded with --import into a `serve`: when the ready line is printed, writes to stderr what
// the process had done by then, as `ready-probe {"templates":[…],"intl":[…]}`: the template
// files (.liquid, .html) it had read, and the Intl objects it had made (the first one loads
// ICU's data); and as it exits, the same as `exit-probe {…}`.
import fs from 'node:fs'

const templates = new Set()
const intl = new Set()
const isTemplate = (file) => /\.(liquid|html)$/.test(String(file))
const { readFile } = fs.promises
fs.promises.readFile = function (file, ...rest) {
  if (isTemplate(file)) templates.add(String(file))
  return readFile.call(this, file, ...rest)
}
const { readFileSync } = fs
fs.readFileSync = function (file, ...rest) {
  if (isTemplate(file)) templates.add(String(file))
  return readFileSync.call(this, file, ...rest)
}
for (const name of ['Segmenter', 'DateTimeFormat', 'NumberFormat', 'Collator']) {
  const Original = Intl[name]
  Intl[name] = new Proxy(Original, {
    construct(target, args, newTarget) {
      intl.add(name)
      return Reflect.construct(target, args, newTarget)
    },
    apply(target, self, args) {
      intl.add(name)
      return Reflect.apply(target, self, args)
    },
  })
}
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = (chunk, ...rest) => {
  if (String(chunk).includes('sendbox ready')) {
    const seen = { templates: [...templates], intl: [...intl] }
    fs.writeSync(2, `ready-probe ${JSON.stringify(seen)}\n`)
  }
  return write(chunk, ...rest)
}
process.on('exit', () => {
  fs.writeSync(2, `exit-probe ${JSON.stringify({ templates: [...templates], intl: [...intl] })}\n`)
})
