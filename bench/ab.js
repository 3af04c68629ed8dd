// npm run bench:ab -- --against DIR [--after DIR]: this checkout (or the one --after names, for two
// older commits that have no copy of this script) against another built one (a worktree of an
// older commit, after `npm ci` there), side by side, for the "before and after" figures an issue
// asks for. In alternating rounds (A B A B …, so whatever else the machine does falls on both
// alike), medians:
//
//   - sends/s under 32 connections (autocannon), without and with one `--webhook` URL (a receiver
//     in a process of its own, bench/receiver.js), and their ratio per checkout;
//   - sequential p50 (one send at a time), in memory (`--memory`) and on a log file, each on a
//     fresh process after 100 sends of warm-up;
//   - start-up: `--version`, and `serve --memory` until it answers.
//
// Every server is the checkout's own `bin/sendbox.js`, on this checkout's templates and fixtures.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { median, ROOT as root, readyLine, receiptSend, sendsPerSecond } from './common.js'

const { values: options } = parseArgs({
  options: {
    against: { type: 'string' },
    after: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '6' },
  },
})
if (!options.against) {
  console.error('usage: node bench/ab.js --against DIR [--after DIR] [--rounds N] [--seconds S]')
  process.exit(2)
}
const checkouts = { after: resolve(options.after ?? root), before: resolve(options.against) }
const ROUNDS = Number(options.rounds)
const DURATION = Number(options.seconds)
const TOKEN = 'sandbox_bench_ab_0123456789'
const env = { ...process.env, CI: 'true' }
const { body, headers } = receiptSend(TOKEN)

/** Every process started, so that a run that fails leaves none behind (a receiver did). */
const started = []

/** Starts a process and resolves once its stdout matches `ready` (group 1: a URL or a port). */
function start(args, ready, cwd = root) {
  const t0 = performance.now()
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] })
  started.push(child)
  return readyLine(child, ready, args.join(' ')).then(({ match: m }) => ({
    child,
    url: m[1].startsWith('http') ? m[1] : `http://127.0.0.1:${m[1]}`,
    ms: performance.now() - t0,
  }))
}

const stop = (child) =>
  new Promise((resolve) => {
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })

function serve(checkout, dir, ...more) {
  const args = [join(checkout, 'bin/sendbox.js'), '--port', '0', '--no-open']
  args.push('--templates', join(root, 'templates'), '--fixtures', join(root, 'fixtures'))
  return start([...args, '--max-messages', '5000', ...more], /sendbox ready (\S+)/)
}

const load = (url, connections = 32, duration = DURATION) =>
  sendsPerSecond(url, { headers, body }, connections, duration)

async function sequentialP50(url, n = 300) {
  const times = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const res = await fetch(`${url}/messages`, { method: 'POST', headers, body })
    await res.arrayBuffer()
    if (res.status !== 201) throw new Error(`status ${res.status}`)
    times.push(performance.now() - t0)
  }
  return median(times)
}

/** The sequential p50 of a fresh server, after 100 sends of warm-up and a clear. */
async function warmSequentialP50(url) {
  await sequentialP50(url, 100)
  await fetch(`${url}/_sandbox/api/messages`, { method: 'DELETE' })
  return sequentialP50(url)
}

const dir = await mkdtemp(join(tmpdir(), 'sendbox-bench-ab-'))
const figures = {}
for (const name of Object.keys(checkouts))
  figures[name] = {
    plain: [],
    webhook: [],
    ratio: [],
    p50: [],
    logP50: [],
    version: [],
    ready: [],
  }
try {
  const receiver = await start(['bench/receiver.js'], /receiver ready (\d+)/)
  const servers = {}
  for (const [name, checkout] of Object.entries(checkouts)) {
    servers[name] = {
      plain: await serve(checkout, dir, '--db', join(dir, `${name}.jsonl`)),
      webhook: await serve(
        checkout,
        dir,
        '--db',
        join(dir, `${name}-webhook.jsonl`),
        '--webhook',
        `${receiver.url}/hooks`,
      ),
    }
    for (const { url } of Object.values(servers[name])) await load(url, 32, 2) // warm-up
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(checkouts)) {
      const f = figures[name]
      const plain = await load(servers[name].plain.url)
      const webhook = await load(servers[name].webhook.url)
      f.plain.push(plain)
      f.webhook.push(webhook)
      f.ratio.push(webhook / plain)
    }
  }
  for (const name of Object.keys(checkouts))
    for (const server of Object.values(servers[name])) await stop(server.child)
  await stop(receiver.child)

  // One send at a time, and start-up, on fresh processes, alternating.
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const [name, checkout] of Object.entries(checkouts)) {
      const t0 = performance.now()
      execFileSync(process.execPath, [join(checkout, 'bin/sendbox.js'), '--version'], {
        env,
        stdio: 'ignore',
      })
      const version = performance.now() - t0
      const fresh = await serve(checkout, dir, '--memory')
      const p50 = await warmSequentialP50(fresh.url)
      await stop(fresh.child)
      const onLog = await serve(
        checkout,
        dir,
        '--db',
        join(dir, `${name}-sequential-${round}.jsonl`),
      )
      const logP50 = await warmSequentialP50(onLog.url)
      await stop(onLog.child)
      if (round === 0) continue // warm-up: file cache, compile cache
      figures[name].version.push(version)
      figures[name].ready.push(fresh.ms)
      figures[name].p50.push(p50)
      figures[name].logP50.push(logP50)
    }
  }

  const show = (xs, digits = 0) =>
    `${median(xs).toFixed(digits).padStart(8)}   (${xs.map((x) => x.toFixed(digits)).join(' ')})`
  console.log(`\nsendbox A/B, ${ROUNDS} alternating rounds (${DURATION} s under load); medians`)
  for (const [name, checkout] of Object.entries(checkouts)) {
    const f = figures[name]
    console.log(`\n${name}: ${checkout}`)
    console.log(`  sends/s:                   ${show(f.plain)}`)
    console.log(`  sends/s, one webhook URL:  ${show(f.webhook)}`)
    console.log(`  webhook / none:            ${show(f.ratio, 2)}   target >= 0.85`)
    console.log(`  sequential p50, ms:        ${show(f.p50, 2)}`)
    console.log(`  the same on a log, ms:     ${show(f.logP50, 2)}`)
    console.log(`  --version, ms:             ${show(f.version)}   target <= 120`)
    console.log(`  serve --memory ready, ms:  ${show(f.ready)}   target <= 250`)
  }
  const ratio = (key) =>
    median(figures.after[key].map((x, i) => x / figures.before[key][i])).toFixed(2)
  console.log('\nafter / before, per round then the median:')
  console.log(`  sends/s ${ratio('plain')}, with a webhook ${ratio('webhook')}`)
  console.log(
    `  sequential p50 ${ratio('p50')}, on a log ${ratio('logP50')}, --version ${ratio('version')}, ready ${ratio('ready')}`,
  )
} finally {
  for (const child of started) if (child.exitCode === null) child.kill('SIGTERM')
  await rm(dir, { recursive: true, force: true })
}
