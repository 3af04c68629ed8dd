// Start-up, as a user feels it: spawn → the first answered `GET /_sandbox/api/health` of
// `serve --memory` (what a CI step's wait-on and the test kit wait for) and spawn → its first send
// answered (`POST /messages` of the receipt, right after), each beside a bare `node:http` server
// (bench/bare-server.js) started and polled the same way in the same rounds (bench/first-answer.js:
// a request every few ms until one is answered 200), with the ratios of each round. Targets: the
// first answer <= 2.0x the bare server's, the first send <= 2.5x. CPU time until each (the probe,
// bench/startup-probe.mjs) moves less with the machine's load than the wall time. With
// `--against DIR` (a built checkout, e.g. main's), that checkout's `serve --memory` in the same
// rounds too.
//
// Then: `sendbox --version`, the ready line of `serve --memory` (which comes before the app can
// answer) with the modules loaded by then, `serve` on a 5000-message log until it answers (with
// its RSS then), and `serve --https` (#25): a first start in a fresh folder (the CA and the
// server certificate are made) and a later one (they are reused), no target. Targets:
// --version <= 120 ms, 5000-message log <= 450 ms and RSS <= 180 MB. And the first answers of
// `serve --memory` on 300 generated templates and fixtures (bench/generate-templates.js; this
// checkout and `--against`'s, alternating), no target: a start reads and compiles them all.
// `--first-only`: the first answers alone.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { median, ROOT as root, receiptSend, stop } from './common.js'
import { freePort } from '../test/helpers/free-port.js'
import { ask, pollUntil200, probed, spawnProbed } from './first-answer.js'
import { generateTemplates } from './generate-templates.js'

const BIN = join(root, 'bin/sendbox.js')
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const env = { ...process.env, CI: 'true' }
const PROBE = join(root, 'bench/startup-probe.mjs')
const BARE = join(root, 'bench/bare-server.js')
/** The example templates and fixtures, and the send of the receipt. */
const EXAMPLES = {
  templates: join(root, 'templates'),
  fixtures: join(root, 'fixtures'),
  send: receiptSend('sandbox_bench'),
}
const { values: flags } = parseArgs({
  options: { against: { type: 'string' }, 'first-only': { type: 'boolean' } },
})

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
const rssOf = async (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024

await firstAnswers(flags.against ? resolve(flags.against) : null)
if (flags['first-only']) process.exit(0)
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
    const f = await firstAnswer(BIN, ['--db', db])
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
  console.log(`\nsendbox start-up, ${ROUNDS} rounds; medians`)
  console.log(`  --version:                     ${ms(version)}   target <= 120`)
  console.log(`  serve --memory, ready line:    ${ms(memory)}`)
  console.log(`    CPU time until ready line:   ${ms(memoryCpu)}`)
  for (const [side, bin] of [
    ['this', BIN],
    ...(flags.against ? [[flags.against, join(resolve(flags.against), 'bin/sendbox.js')]] : []),
  ]) {
    const counted = await serve(['--memory'], { probe: true, countModules: true, bin })
    await stop(counted.child)
    console.log(`    modules loaded until ready line (${side}): ${counted.modules}`)
  }
  console.log(`  serve, 5000-message log, first answer: ${ms(full)}   target <= 450`)
  console.log(
    `  RSS then:                      ${(median(rss) / 1024 / 1024).toFixed(0)} MB   target <= 180`,
  )
  console.log(`  serve --https, first (new CA), ready line: ${ms(httpsFirst)}`)
  console.log(`  serve --https, later (reused), ready line: ${ms(httpsLater)}`)
  await manyTemplates(dir, flags.against ? resolve(flags.against) : null)
} finally {
  await rm(dir, { recursive: true, force: true })
}

/**
 * Spawns `bin` (`serve`, on a free port, with the example templates, and `args`) and polls its
 * health until it answers 200: `{ ms, child }`, the time from spawn.
 */
async function firstAnswer(bin, args) {
  const port = await freePort()
  const run = spawnProbed([bin, ...serveArgs(port), ...args], { probe: PROBE, env })
  const answered = await pollUntil200(port, '/_sandbox/api/health', run.child)
  return { ms: answered - run.t0, child: run.child }
}

/** `serve`'s arguments on `port`, with the example templates (or `folders`). */
function serveArgs(port, folders = EXAMPLES) {
  return [
    '--port',
    String(port),
    '--no-open',
    '--templates',
    folders.templates,
    '--fixtures',
    folders.fixtures,
  ]
}

/**
 * One start of a side, polled as a CI step would: spawn → the first answered health, then at
 * once the receipt's send, its answer; the ready line; the CPU time at the ready line and at each
 * answer. The bare server answers the same requests.
 */
async function startOnce(side, folders = EXAMPLES) {
  const port = await freePort()
  const args = side.bin ? [side.bin, ...serveArgs(port, folders), '--memory'] : [BARE, String(port)]
  const run = spawnProbed(args, { probe: PROBE, env })
  try {
    const answered = await pollUntil200(port, '/_sandbox/api/health', run.child)
    const { body, headers } = folders.send
    const sent = await ask(port, { method: 'POST', path: '/messages', headers, body })
    const sentAt = performance.now()
    if (side.bin && sent?.status !== 201)
      throw new Error(`${side.name}: the first send answered ${sent?.status}: ${sent?.body}`)
    const [ready, first, second] = await Promise.all(
      ['ready', 'answer1', 'answer2'].map((key) => probed(run, key)),
    )
    return {
      health: answered - run.t0,
      send: sentAt - run.t0,
      ready: run.readyMs,
      cpuReady: ready.cpuMs,
      cpuHealth: first.cpuMs,
      cpuSend: second.cpuMs,
    }
  } finally {
    await stop(run.child)
  }
}

/**
 * The bare server, this checkout and (with `--against`) another one, in rounds whose order turns
 * (so that what else the machine does falls on all alike): medians of each figure, and the
 * medians (and ranges) of the per-round ratios to the bare server's first answer.
 */
async function firstAnswers(other) {
  const sides = [{ name: 'bare node:http' }, ...checkouts(other)]
  printFirstAnswers(sides, await startsInRounds(sides, EXAMPLES))
}

/** This checkout, and `other` when given, as sides of the rounds. */
function checkouts(other) {
  return [
    { name: 'this', bin: BIN },
    ...(other ? [{ name: other, bin: join(other, 'bin/sendbox.js') }] : []),
  ]
}

/**
 * `startOnce` of each side on `folders`, in ROUNDS rounds whose order turns, after one round of
 * warm-up (the file cache): each side's results, by round.
 */
async function startsInRounds(sides, folders) {
  const figures = sides.map(() => [])
  for (let round = 0; round < ROUNDS + 1; round++) {
    const order = sides.map((_, i) => (i + round) % sides.length)
    const results = []
    for (const i of round % 2 ? order.reverse() : order)
      results[i] = await startOnce(sides[i], folders)
    if (round === 0) continue
    results.forEach((result, i) => {
      figures[i].push(result)
    })
  }
  return figures
}

/**
 * The first health and first send of `serve --memory` on 300 generated templates and fixtures,
 * this checkout and `other` in rounds of turning order: a start lists, reads and compiles them all.
 */
async function manyTemplates(dir, other) {
  const { templates, fixtures } = await generateTemplates(join(dir, 'many'), 300)
  const template = 'message-000'
  const variables = JSON.parse(await readFile(join(fixtures, `${template}.json`), 'utf8'))
  const body = JSON.stringify({
    template,
    from: 'Acme <hello@acme.test>',
    to: 'ada@example.com',
    subject: 'Hello',
    templateVariables: variables,
  })
  const headers = { 'content-type': 'application/json', authorization: 'token sandbox_bench' }
  const sides = checkouts(other)
  const figures = await startsInRounds(sides, { templates, fixtures, send: { body, headers } })
  console.log(
    `\nserve --memory on 300 templates and fixtures, ${ROUNDS} rounds in turning order; medians`,
  )
  sides.forEach((side, i) => {
    const of = (key) => figures[i].map((f) => f[key])
    const ms = (key) =>
      `${median(of(key)).toFixed(0)} ms (${of(key)
        .map((x) => x.toFixed(0))
        .join(' ')})`
    console.log(`  ${side.name}: first health ${ms('health')}; first send ${ms('send')}`)
  })
}

function printFirstAnswers(sides, figures) {
  const bare = figures[0]
  const cell = (text) => String(text).padStart(18)
  const row = (label, cells) => console.log(`  ${label.padEnd(36)}${cells.map(cell).join('')}`)
  const of = (i, key) => figures[i].map((f) => f[key])
  const ratios = (i, key) => figures[i].map((f, round) => f[key] / bare[round].health)
  const ratioCell = (xs) =>
    `${median(xs).toFixed(2)}x (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`
  console.log(
    `\nspawn → first answer, serve --memory, ${ROUNDS} rounds in turning order; medians (each round's ratio to the bare server's first answer: median, range)`,
  )
  row(
    '',
    sides.map((s) => (s.name.length > 18 ? `…${s.name.slice(-17)}` : s.name)),
  )
  row(
    'first answered health (ms)',
    sides.map((_, i) => median(of(i, 'health')).toFixed(0)),
  )
  row(
    '  ÷ bare first answer (goal <= 2.0)',
    sides.map((_, i) => ratioCell(ratios(i, 'health'))),
  )
  row(
    'first send answered (ms)',
    sides.map((_, i) => median(of(i, 'send')).toFixed(0)),
  )
  row(
    '  ÷ bare first answer (goal <= 2.5)',
    sides.map((_, i) => ratioCell(ratios(i, 'send'))),
  )
  row(
    'ready line (ms)',
    sides.map((_, i) => median(of(i, 'ready')).toFixed(0)),
  )
  row(
    'CPU until ready line (ms)',
    sides.map((_, i) => median(of(i, 'cpuReady')).toFixed(0)),
  )
  row(
    'CPU until first answer (ms)',
    sides.map((_, i) => median(of(i, 'cpuHealth')).toFixed(0)),
  )
  row(
    'CPU until first send answered (ms)',
    sides.map((_, i) => median(of(i, 'cpuSend')).toFixed(0)),
  )
  // A loaded machine moves CPU time less than wall time: this checkout's against the other's,
  // round by round (the same rounds, in turning order).
  for (const [key, label] of [
    ['cpuHealth', 'CPU until first answer'],
    ['cpuSend', 'CPU until first send answered'],
  ])
    for (let i = 2; i < sides.length; i++) {
      const xs = figures[1].map((f, round) => f[key] / figures[i][round][key])
      console.log(`  ${label}, this ÷ ${sides[i].name}: ${ratioCell(xs)}`)
    }
  for (const key of ['health', 'send'])
    sides.forEach((side, i) => {
      const rounds = of(i, key).map((x) => x.toFixed(0))
      console.log(`  rounds, ${key} (ms), ${side.name}: ${rounds.join(' ')}`)
    })
}
