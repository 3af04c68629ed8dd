// What validating a POST /messages body costs (step 4 of a send: SEND_REQUEST read by the
// schema kit, addresses parsed): µs per valid body and per invalid one (every problem listed,
// with a did-you-mean), on the built dist/. Alternating rounds; the minimum and the median of
// the rounds' means, since a shared machine only ever adds time.
//
// Usage: npm run build && node bench/validation.js   (BENCH_ROUNDS=15 by default)
import { SEND_REQUEST } from '../dist/api/schema.js'
import { parse } from '../dist/lib/schema.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const valid = {
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: ['Ada Lovelace <ada@example.com>', 'bob@example.com'],
  subject: 'Welcome to Acme',
  templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
}
const invalid = { ...valid, to: ['ada@example.com', 'not an address'], templateVars: {} }

if (!parse(SEND_REQUEST, valid).ok || parse(SEND_REQUEST, invalid).ok)
  throw new Error('the bodies are not what this bench measures')

/** Mean µs of `n` parses of `body`. */
function mean(body, n) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < n; i++) parse(SEND_REQUEST, body)
  return Number(process.hrtime.bigint() - start) / n / 1000
}

for (let i = 0; i < 30_000; i++) parse(SEND_REQUEST, i % 2 ? valid : invalid)
const rounds = { valid: [], invalid: [] }
for (let round = 0; round < ROUNDS; round++) {
  rounds.valid.push(mean(valid, 20_000))
  rounds.invalid.push(mean(invalid, 5_000))
}
const summary = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return `min ${sorted[0].toFixed(2)} µs, median ${sorted[sorted.length >> 1].toFixed(2)} µs`
}
console.log(`POST /messages body, valid:   ${summary(rounds.valid)}`)
console.log(`POST /messages body, invalid: ${summary(rounds.invalid)}`)
