// Where a send's CPU goes: `serve` under the bench's load (32 connections of the receipt send),
// profiled by V8 for the load's duration only, self time summed per package (node_modules) and
// per sendbox module folder (dist/templates, dist/store, …), divided by the sends answered.
//   node bench/cpu-profile.js [--against DIR] [--seconds N]
// With --against (a built checkout, e.g. /work/before), both, in alternating rounds, side by side.
// bench/run.js prints the same table after its rounds. Figures are µs of CPU per send in the
// profiled process (user + system, from /proc; the profiler itself adds a few per cent), shared
// out by the profile's self time.
import { fork } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  cpuOf,
  mainThreadCpuOf,
  ROOT,
  readyLine,
  receiptSend,
  SLUG,
  sendsPerSecond,
  stop,
} from './common.js'

const TOKEN = 'sandbox_bench_0123456789'

/** The row a profile node's self time goes to: a package, a sendbox folder, or what V8 names. */
export function categoryOf(callFrame, root) {
  const { url, functionName } = callFrame
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC'
    if (functionName === '(program)' || functionName === '(idle)') return functionName
    return 'native (V8 builtins, writes, JSON)'
  }
  if (url.startsWith('node:')) return 'node (its own JS)'
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pkg) return pkg[1]
  const dist = join(root, 'dist').replaceAll('\\', '/')
  const at = url.indexOf(dist)
  if (at !== -1) {
    const rest = url.slice(at + dist.length + 1)
    const folder = rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : '(bundle)'
    return `sendbox ${folder}`
  }
  return 'other'
}

/** Self µs per row of a V8 `.cpuprofile`, idle left out. */
export function selfTimeByCategory(profile, root) {
  const rowOf = new Map(profile.nodes.map((node) => [node.id, categoryOf(node.callFrame, root)]))
  const totals = new Map()
  for (let i = 0; i < profile.samples.length; i++) {
    const row = rowOf.get(profile.samples[i])
    if (row === '(idle)') continue
    totals.set(row, (totals.get(row) ?? 0) + (profile.timeDeltas[i + 1] ?? 0))
  }
  return totals
}

const ask = (child, message, answer) =>
  new Promise((resolve) => {
    const listen = (m) => {
      if (m !== answer) return
      child.off('message', listen)
      resolve()
    }
    child.on('message', listen)
    child.send(message)
  })

/**
 * Starts `serve` of the checkout at `root` under the profiler's control; resolves with the child
 * and its URL once it is ready.
 */
export function startProfiled(root, dir) {
  const child = fork(
    join(ROOT, 'bench/profile-server.js'),
    [
      root,
      '--port',
      '0',
      '--db',
      join(dir, 'profiled.jsonl'),
      '--templates',
      join(ROOT, 'templates'),
      '--fixtures',
      join(ROOT, 'fixtures'),
      '--no-open',
      '--max-messages',
      '5000',
    ],
    { cwd: ROOT, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  )
  return readyLine(child, /sendbox ready (\S+)/, 'profiled serve').then(({ match }) => ({
    child,
    url: match[1],
  }))
}

/**
 * One profiled load of `seconds` on a started server: µs per send, per row, and in all.
 *
 * @example
 * const { perSend, total } = await profileLoad(server, ROOT, dir, 6)
 */
export async function profileLoad(server, root, dir, seconds) {
  const file = join(dir, `profile-${server.child.pid}-${Date.now()}.cpuprofile`)
  await ask(server.child, 'start', 'started')
  const { pid } = server.child
  const [cpuBefore, mainBefore] = [await cpuOf(pid), await mainThreadCpuOf(pid)]
  const rps = await sendsPerSecond(server.url, receiptSend(TOKEN), 32, seconds)
  const cpuMs = (await cpuOf(pid)) - cpuBefore
  const mainMs = (await mainThreadCpuOf(pid)) - mainBefore
  await ask(server.child, { stop: file }, 'written')
  const totals = selfTimeByCategory(JSON.parse(await readFile(file, 'utf8')), root)
  await rm(file)
  // V8 samples on the wall clock: on a busy machine a sample's time includes what the process
  // waited for a core. The profile gives the shares; the kernel's count of CPU time the scale.
  // It profiles the main thread: the process's other threads (the text parts' worker, libuv's
  // pool, V8's own helpers) are one row of their own.
  const sampled = [...totals.values()].reduce((a, b) => a + b, 0)
  const sends = rps * seconds
  const main = (mainMs * 1000) / sends
  const perSend = new Map([...totals].map(([row, us]) => [row, (us / sampled) * main]))
  perSend.set('other threads (worker, libuv, V8)', ((cpuMs - mainMs) * 1000) / sends)
  return { perSend, total: (cpuMs * 1000) / sends, main, rps }
}

/** Rows summed over rounds, then divided by their count: the mean per send. */
export function meanOf(runs) {
  const sum = new Map()
  for (const run of runs)
    for (const [row, us] of run.perSend) sum.set(row, (sum.get(row) ?? 0) + us)
  return new Map([...sum].map(([row, us]) => [row, us / runs.length]))
}

/**
 * The table: one row per package or folder, largest first (the first column's), µs per send and
 * its share, one column pair per server; rows under 1 µs in every column summed as "the rest".
 */
export function printCpuTable(columns) {
  const names = Object.keys(columns)
  const rows = [...new Set(names.flatMap((name) => [...columns[name].keys()]))]
  const totals = names.map((name) => [...columns[name].values()].reduce((a, b) => a + b, 0))
  rows.sort((a, b) => (columns[names[0]].get(b) ?? 0) - (columns[names[0]].get(a) ?? 0))
  const cell = (name, row, i) => {
    const us = columns[name].get(row) ?? 0
    return `${us.toFixed(1).padStart(8)} ${`${((100 * us) / totals[i]).toFixed(1)}%`.padStart(6)}`
  }
  console.log(
    `${'CPU µs per send, self time'.padEnd(36)}${names.map((n) => n.padStart(15)).join('')}`,
  )
  const rest = names.map(() => 0)
  for (const row of rows) {
    if (names.every((name) => (columns[name].get(row) ?? 0) < 1)) {
      names.forEach((name, i) => {
        rest[i] += columns[name].get(row) ?? 0
      })
      continue
    }
    console.log(`  ${row.padEnd(34)}${names.map((name, i) => cell(name, row, i)).join('')}`)
  }
  console.log(
    `  ${'the rest (each < 1 µs)'.padEnd(34)}${rest.map((us) => `${us.toFixed(1).padStart(8)}       `).join('')}`,
  )
  console.log(
    `  ${'all threads'.padEnd(34)}${totals.map((us) => `${us.toFixed(1).padStart(8)}       `).join('')}`,
  )
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' },
      seconds: { type: 'string' },
      rounds: { type: 'string' },
    },
  })
  const seconds = Number(values.seconds ?? 6)
  const rounds = Number(values.rounds ?? 3)
  const roots = { this: ROOT, ...(values.against ? { before: resolve(values.against) } : {}) }
  const dir = await mkdtemp(join(tmpdir(), 'sendbox-profile-'))
  try {
    const servers = {}
    for (const [name, root] of Object.entries(roots)) {
      servers[name] = await startProfiled(root, await mkdtemp(join(dir, `${name}-`)))
      await sendsPerSecond(servers[name].url, receiptSend(TOKEN), 32, 2) // warm-up
    }
    const runs = Object.fromEntries(Object.keys(roots).map((name) => [name, []]))
    for (let round = 0; round < rounds; round++)
      for (const [name, root] of Object.entries(roots))
        runs[name].push(await profileLoad(servers[name], root, dir, seconds))
    for (const server of Object.values(servers)) await stop(server.child)
    console.log(
      `\nPOST /messages "${SLUG}", 32 connections, ${rounds} alternating rounds of ${seconds} s, profiled; mean per send\n`,
    )
    printCpuTable(Object.fromEntries(Object.entries(runs).map(([n, r]) => [n, meanOf(r)])))
    for (const [name, r] of Object.entries(runs))
      console.log(`${name}: sends/s per round ${r.map((x) => Math.round(x.rps)).join(' ')}`)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
