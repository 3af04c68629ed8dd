// The text part of adversarial messages just under 1 MiB (the body limit): sendbox's reader of
// the HTML with html-to-text's builder (src/templates/text-dom.ts, text-walk.ts) against
// html-to-text alone, CPU time (process.cpuUsage: the machine is shared), median of the rounds.
// Target: each under 1 s, as every shape's line says. What a shape throws (html-to-text's own
// recursion overflows the stack on deep nesting, in both) is said too: it ends the send's render,
// not the process.
//   node bench/text-adversarial.js [rounds]   (after npm run build)
import { median } from './common.js'
import { htmlToTextAlone, toPlainText } from '../dist/templates/plain-text.js'

const MIB = 1024 * 1024
const fill = (unit, tail = '') => unit.repeat(Math.floor((MIB - tail.length) / unit.length)) + tail

const SHAPES = {
  // Half the body open elements, half closing tags that close none of them: a look down the open
  // elements at each took 1.6 s for 20,000 of each.
  'stray closing tags': `${'<div>'.repeat(100_000)}${'</span>'.repeat(70_000)}x`,
  'deep nesting': fill('<div>', 'x'),
  'flat paragraphs': fill('<p>Hello, Ada: your receipt.</p>'),
  'many attributes': `<p ${fill('a=b ', '>x</p>')}`,
  entities: fill('&amp;&nbsp;&#x41;&copy '),
  'one long word': fill('x'),
  'table cells': `<table>${fill('<tr><td>a</td><td>b</td></tr>', '</table>')}`,
  'style elements': fill('<style>p{color:red}</style>'),
  'stray less-thans': fill('a < b '),
}

function cpuOf(run) {
  const before = process.cpuUsage()
  let outcome = 'ok'
  try {
    run()
  } catch (error) {
    outcome = `throws ${error.constructor.name}`
  }
  const { user, system } = process.cpuUsage(before)
  return { ms: (user + system) / 1000, outcome }
}

const rounds = Number(process.argv[2] ?? 3)
const alone = htmlToTextAlone()
toPlainText('<p>warm</p>')
alone('<p>warm</p>')
let over = 0
console.log(`text part of adversarial messages of 1 MiB, ${rounds} rounds, CPU ms (median)`)
for (const [name, html] of Object.entries(SHAPES)) {
  const ours = []
  const theirs = []
  let outcome = ''
  for (let i = 0; i < rounds; i++) {
    const a = cpuOf(() => toPlainText(html))
    ours.push(a.ms)
    outcome = a.outcome
    theirs.push(cpuOf(() => alone(html)).ms)
  }
  const ms = median(ours)
  if (ms > 1000) over++
  console.log(
    `  ${name.padEnd(20)} ${ms.toFixed(0).padStart(6)} ms   html-to-text alone ${median(theirs).toFixed(0).padStart(6)} ms   ${outcome}   target < 1000 ms ${ms > 1000 ? '✘' : '✔'}`,
  )
}
console.log(`${over} of ${Object.keys(SHAPES).length} over the target`)
