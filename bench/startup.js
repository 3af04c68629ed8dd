// Start-up, as a user feels it: `sendbox --version`, `serve --memory` until it answers, and
// `serve` on a 5000-message log until it answers (with its RSS then). Alternating rounds,
// medians. Targets: --version <= 120 ms, serve --memory <= 250 ms, 5000-message log <= 450 ms
// and RSS <= 180 MB. Then `serve --https` (#25): a first start in a fresh folder (the CA and the
// server certificate are made) and a later one (they are reused), no target.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { median, ROOT as root, receiptSend } from './common.js'

const BIN = join(root, 'bin/sendbox.js')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const env = { ...process.env, CI: 'true' }

/** Spawns `serve`, resolves when it prints its ready line, with the elapsed ms and the child. */
function serve(args) {
  const t0 = performance.now()
  const child = spawn(
    process.execPath,
    [
      BIN,
      '--port',
      '0',
      '--no-open',
      '--templates',
      join(root, 'templates'),
      '--fixtures',
      join(root, 'fixtures'),
      ...args,
    ],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
      const m = /sendbox ready (\S+)/.exec(out)
      if (m) resolve({ ms: performance.now() - t0, child, url: m[1] })
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
}
const stop = (child) =>
  new Promise((resolve) => {
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })
const rssOf = async (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024

const dir = await mkdtemp(join(tmpdir(), 'sendbox-bench-start-'))
try {
  // A 5000-message log of ordinary receipts, written through the API.
  const db = join(dir, 'messages.jsonl')
  const filler = await serve(['--db', db])
  const { body, headers } = receiptSend('sandbox_bench')
  for (let sent = 0; sent < 5000; sent += 50) {
    await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${filler.url}/messages`, {
          method: 'POST',
          headers,
          body,
        }).then((r) => r.arrayBuffer()),
      ),
    )
  }
  await stop(filler.child)

  const version = []
  const memory = []
  const full = []
  const rss = []
  const httpsFirst = []
  const httpsLater = []
  // The folder the later starts reuse: its CA is made here, once.
  const reused = join(dir, 'https-reused', 'messages.jsonl')
  await stop((await serve(['--https', '--db', reused])).child)
  for (let round = 0; round < ROUNDS + 1; round++) {
    const t0 = performance.now()
    execFileSync(process.execPath, [BIN, '--version'], { env, stdio: 'ignore' })
    const v = performance.now() - t0
    const m = await serve(['--memory'])
    await stop(m.child)
    const f = await serve(['--db', db])
    const r = await rssOf(f.child.pid)
    await stop(f.child)
    const first = await serve(['--https', '--db', join(dir, `https-${round}`, 'messages.jsonl')])
    await stop(first.child)
    const later = await serve(['--https', '--db', reused])
    await stop(later.child)
    if (round === 0) continue // warm-up: file cache, compile cache
    version.push(v)
    memory.push(m.ms)
    full.push(f.ms)
    rss.push(r)
    httpsFirst.push(first.ms)
    httpsLater.push(later.ms)
  }
  const ms = (xs) => `${median(xs).toFixed(0)} ms   (${xs.map((x) => x.toFixed(0)).join(' ')})`
  console.log(`\nsendbox start-up, ${ROUNDS} alternating rounds; medians`)
  console.log(`  --version:                    ${ms(version)}   target <= 120`)
  console.log(`  serve --memory, ready:        ${ms(memory)}   target <= 250`)
  console.log(`  serve, 5000-message log:      ${ms(full)}   target <= 450`)
  console.log(
    `  RSS then:                     ${(median(rss) / 1024 / 1024).toFixed(0)} MB   target <= 180`,
  )
  console.log(`  serve --https, first (new CA): ${ms(httpsFirst)}`)
  console.log(`  serve --https, later (reused): ${ms(httpsLater)}`)
} finally {
  await rm(dir, { recursive: true, force: true })
}
