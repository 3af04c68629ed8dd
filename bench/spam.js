// The spam score's cost (docs/checks.md#spam-score-spamassassin): one score over HTTP (median,
// p99), what of it is spamd's own (the same .eml sent straight to spamd), a kept score, and
// `sendbox check` over the repository's templates with and without --spamassassin. Starts a
// throwaway spamd (Debian's spamassassin package). Run after `npm run build`: node bench/spam.js
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { startSendbox } from '../dist/sendbox.js'
import { startSpamd } from '../test/helpers/spamd-server.js'

const RUNS = Number(process.env.RUNS ?? 40)
const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}
const figures = (values) =>
  `median ${quantile(values, 0.5).toFixed(1)} ms, p99 ${quantile(values, 0.99).toFixed(1)} ms`

/** Milliseconds of `fn`, run `runs` times one after the other. */
async function timed(runs, fn) {
  const times = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await fn(i)
    times.push(performance.now() - started)
  }
  return times
}

const spamd = await startSpamd()
try {
  await spamd.ready
  const address = `${spamd.host}:${spamd.port}`
  const sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: 'templates',
    fixtures: 'fixtures',
    snapshots: 'bench/.snapshots-unused',
    spamassassin: address,
  })
  const receipt = JSON.parse(readFileSync('fixtures/order-receipt/default.json', 'utf8'))
  const ids = []
  for (let i = 0; i < RUNS; i++) {
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'token sandbox_bench' },
      body: JSON.stringify({
        template: 'order-receipt',
        from: 'Acme <orders@acme.test>',
        to: 'Ada <ada@example.com>',
        subject: `Your receipt for order ${1000 + i}`,
        templateVariables: receipt,
      }),
    })
    if (response.status !== 201)
      throw new Error(`send: ${response.status} ${await response.text()}`)
    ids.push((await response.json()).id)
  }
  const get = async (id) => {
    const response = await fetch(`${sandbox.url}/_sandbox/api/messages/${id}/spam`)
    if (response.status !== 200)
      throw new Error(`score: ${response.status} ${await response.text()}`)
    return response.json()
  }
  await get(ids[0]) // warm: spamd's child, the client's lazy import
  const first = await timed(RUNS - 1, (i) => get(ids[i + 1]))
  const kept = await timed(RUNS - 1, (i) => get(ids[i + 1]))
  // spamd alone: the same bytes, straight over TCP with the same client.
  const { scoreWithSpamd } = await import('../dist/checks/spamd.js')
  const emls = await Promise.all(
    ids.map((id) =>
      fetch(`${sandbox.url}/_sandbox/api/messages/${id}/eml`).then((r) => r.arrayBuffer()),
    ),
  )
  const direct = await timed(RUNS - 1, (i) => scoreWithSpamd(spamd, new Uint8Array(emls[i + 1])))
  await sandbox.close()
  console.log(`one score over HTTP, first time: ${figures(first)}`)
  console.log(`the same .eml straight to spamd: ${figures(direct)}`)
  console.log(`a kept score over HTTP: ${figures(kept)}`)
  const check = (args) =>
    timed(3, () =>
      execFileSync(
        process.execPath,
        ['bin/sendbox.js', 'check', '--templates', 'templates', '--fixtures', 'fixtures', ...args],
        { stdio: 'ignore' },
      ),
    )
  console.log(`sendbox check: ${figures(await check([]))}`)
  console.log(`sendbox check --spamassassin: ${figures(await check(['--spamassassin', address]))}`)
} finally {
  await spamd.stop()
}
