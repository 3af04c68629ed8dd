// Start-up, as a user feels it: `sendbox --version`, `serve --memory` until it answers, and
// `serve` on a 5000-message log until it answers (with its RSS then). Alternating rounds,
// medians. Targets: --version <= 120 ms, serve --memory <= 250 ms, 5000-message log <= 450 ms
// and RSS <= 180 MB. Then `serve --https` (#25): a first start in a fresh folder (the CA and the
// server certificate are made) and a later one (they are reused), no target.
//
// `serve --memory` is also measured in figures a loaded machine moves less: the CPU time the
// process spent until ready, and the modules it loaded by then (bench/startup-probe.mjs). With
// `--against DIR` (a built checkout, e.g. main's), `serve --memory` of both, in alternating
// rounds: until ready, until its first send is answered, the CPU time, and the ratios.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { median, ROOT as root, receiptSend } from './common.js'

const BIN = join(root, 'bin/sendbox.js')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const env = { ...process.env, CI: 'true' }
const PROBE = join(root, 'bench/startup-probe.mjs')
const { values: flags } = parseArgs({ options: { against: { type: 'string' } } })

/**
 * Spawns `serve`, resolves when it prints its ready line, with the elapsed ms and the child;
 * `probe` preloads bench/startup-probe.mjs (then `cpuMs` and `modules` too), `bin` another
 * checkout's `bin/sendbox.js`.
 */
function serve(args, { probe = false, bin = BIN, countModules = false } = {}) {
  const t0 = performance.now()
  const child = spawn(
    process.execPath,
    [
      ...(probe ? ['--import', PROBE] : []),
      bin,
      '--port',
      '0',
      '--no-open',
      '--templates',
      join(root, 'templates'),
      '--fixtures',
      join(root, 'fixtures'),
      ...args,
    ],
    {
      env: countModules ? { ...env, STARTUP_PROBE_MODULES: '1' } : env,
      stdio: ['ignore', 'pipe', probe ? 'pipe' : 'inherit'],
    },
  )
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    let ready
    const settle = () => {
      const probed = /startup-probe (\{.*\})/.exec(err)
      if (ready && (!probe || probed))
        resolve({ ...ready, ...(probed ? JSON.parse(probed[1]) : {}) })
    }
    child.stdout.on('data', (d) => {
      out += d
      const m = /sendbox ready (\S+)/.exec(out)
      if (m && !ready) ready = { ms: performance.now() - t0, t0, child, url: m[1] }
      settle()
    })
    child.stderr?.on('data', (d) => {
      err += d
      settle()
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}${err}`)))
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
  const memoryCpu = []
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
    const m = await serve(['--memory'], { probe: true })
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
    memoryCpu.push(m.cpuMs)
    full.push(f.ms)
    rss.push(r)
    httpsFirst.push(first.ms)
    httpsLater.push(later.ms)
  }
  const ms = (xs) => `${median(xs).toFixed(0)} ms   (${xs.map((x) => x.toFixed(0)).join(' ')})`
  console.log(`\nsendbox start-up, ${ROUNDS} alternating rounds; medians`)
  console.log(`  --version:                    ${ms(version)}   target <= 120`)
  console.log(`  serve --memory, ready:        ${ms(memory)}   target <= 250`)
  console.log(`    CPU time until ready:       ${ms(memoryCpu)}`)
  const counted = await serve(['--memory'], { probe: true, countModules: true })
  await stop(counted.child)
  console.log(`    modules loaded until ready: ${counted.modules}`)
  console.log(`  serve, 5000-message log:      ${ms(full)}   target <= 450`)
  console.log(
    `  RSS then:                     ${(median(rss) / 1024 / 1024).toFixed(0)} MB   target <= 180`,
  )
  console.log(`  serve --https, first (new CA): ${ms(httpsFirst)}`)
  console.log(`  serve --https, later (reused): ${ms(httpsLater)}`)
  if (flags.against) await against(resolve(flags.against))
} finally {
  await rm(dir, { recursive: true, force: true })
}

/**
 * `serve --memory` of this checkout and of `other` in alternating rounds (A B B A …, so that
 * what else the machine does falls on both alike): until ready, until the first send is
 * answered, CPU time until ready, and modules loaded until ready; medians and ratios.
 */
async function against(other) {
  const sides = { this: BIN, [other]: join(other, 'bin/sendbox.js') }
  const figures = Object.fromEntries(
    Object.keys(sides).map((side) => [side, { ready: [], answered: [], cpu: [] }]),
  )
  const { body, headers } = receiptSend('sandbox_bench')
  for (let round = 0; round < ROUNDS + 1; round++) {
    const order = round % 2 ? Object.keys(sides).reverse() : Object.keys(sides)
    for (const side of order) {
      const s = await serve(['--memory'], { probe: true, bin: sides[side] })
      const sent = await fetch(`${s.url}/messages`, { method: 'POST', headers, body })
      await sent.arrayBuffer()
      const answered = performance.now() - s.t0
      await stop(s.child)
      if (sent.status !== 201) throw new Error(`${side}: the first send answered ${sent.status}`)
      if (round === 0) continue // warm-up
      figures[side].ready.push(s.ms)
      figures[side].answered.push(answered)
      figures[side].cpu.push(s.cpuMs)
    }
  }
  const modules = {}
  for (const side of Object.keys(sides)) {
    const s = await serve(['--memory'], { probe: true, bin: sides[side], countModules: true })
    await stop(s.child)
    modules[side] = s.modules
  }
  const [a, b] = Object.keys(sides)
  const row = (label, key) => {
    const [x, y] = [median(figures[a][key]), median(figures[b][key])]
    return `  ${label.padEnd(30)} ${x.toFixed(0).padStart(5)}  ${y.toFixed(0).padStart(5)}   ${(x / y).toFixed(2)}`
  }
  console.log(`\nserve --memory, this checkout against ${b}, ${ROUNDS} alternating rounds; medians`)
  console.log(`  ${''.padEnd(30)}  this  other   ratio`)
  console.log(row('ready (ms)', 'ready'))
  console.log(row('first send answered (ms)', 'answered'))
  console.log(row('CPU time until ready (ms)', 'cpu'))
  console.log(
    `  ${'modules loaded until ready'.padEnd(30)} ${String(modules[a]).padStart(5)}  ${String(modules[b]).padStart(5)}   ${(modules[a] / modules[b]).toFixed(2)}`,
  )
}
