// The email checks on adversarial messages just under 1 MiB (the body limit), one per shape of
// test/checks/adversarial.ts (deep nesting, thousands of ids, aria-labelledby lists, long
// attribute lists, nested links and tables, stylesheets of thousands of rules…). Each message is
// checked in a process of its own, after a small email has loaded the checks and their data, so
// that no cache of an earlier round or shape helps it (a real message's stylesheet is new to the
// server too): the CPU time of the check (process.cpuUsage, not wall time: the machine is
// shared), median of the rounds, and the peak resident memory it added, the most of the rounds,
// also as a multiple of the message's size. Target: each under 1 s, which each line says, and
// the last how many were not, at which load average. The checks and the shapes are
// bundled from the sources (rolldown), as bench/check-email.js does.
//
//   node bench/check-adversarial.js [rounds] [shape…]
//   CHECKS=../before/src/checks node bench/check-adversarial.js …   another tree's checks, on
//                                                                   these shapes
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { median, ROOT } from './common.js'

const MIB = 1024 * 1024
const ONE = fileURLToPath(new URL('./check-adversarial-one.js', import.meta.url))

async function bundle(dir) {
  const { build } = await import('rolldown')
  const entry = join(dir, 'entry.js')
  const { writeFile } = await import('node:fs/promises')
  await writeFile(
    entry,
    `export { checkEmail } from ${JSON.stringify(resolve(process.env.CHECKS ?? join(ROOT, 'src/checks'), 'index.ts'))}\n` +
      `export { ADVERSARIAL, adversarialEmail } from ${JSON.stringify(join(ROOT, 'test/checks/adversarial.ts'))}\n`,
  )
  const file = join(dir, 'checks.js')
  await build({
    input: entry,
    platform: 'node',
    logLevel: 'silent',
    output: { file, format: 'esm', codeSplitting: false },
  })
  return file
}

/** The largest `n` whose email is under 1 MiB (each shape grows with `n`). */
function sizeFor(grow, email) {
  let lo = 1000
  let hi = 1000
  while (Buffer.byteLength(email(grow(hi))) < MIB) hi *= 2
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1
    if (Buffer.byteLength(email(grow(mid))) < MIB) lo = mid
    else hi = mid
  }
  return lo
}

/** Each shape just under 1 MiB, checked once in each of `rounds` processes. */
export async function adversarialTimes(rounds = 3, only = []) {
  // Beside the sources, so that the bundle finds the packages in node_modules.
  const dir = await mkdtemp(join(ROOT, '.bench-adversarial-'))
  try {
    const file = await bundle(dir)
    const { ADVERSARIAL, adversarialEmail } = await import(pathToFileURL(file).href)
    console.log(
      `\nemail checks on adversarial messages just under 1 MiB, each in a new process; CPU time (median of ${rounds}) and the peak memory it added (most of ${rounds})`,
    )
    const over = []
    for (const [shape, grow] of Object.entries(ADVERSARIAL)) {
      if (only.length && !only.includes(shape)) continue
      const n = sizeFor(grow, adversarialEmail)
      const runs = Array.from({ length: rounds }, () =>
        JSON.parse(
          execFileSync(process.execPath, [ONE, file, shape, String(n)], { encoding: 'utf8' }),
        ),
      )
      const ms = median(runs.map((r) => r.cpuMs))
      const peak = Math.max(...runs.map((r) => r.peakBytes))
      const { bytes, findings } = runs[0]
      console.log(
        `  ${shape.padEnd(34)} ${(bytes / 1024).toFixed(0).padStart(5)} KB  ${ms.toFixed(0).padStart(5)} ms  +${(peak / MIB).toFixed(0).padStart(3)} MB (${(peak / bytes).toFixed(0).padStart(3)}x)  ${String(findings).padStart(6)} findings  ${ms < 1000 ? 'under 1 s' : 'OVER the 1 s target'}`,
      )
      if (ms >= 1000) over.push(shape)
    }
    // CPU time still grows with the load of a shared machine (two cores, other work): say it.
    console.log(
      `  ${over.length ? `${over.length} shape(s) over 1 s: ${over.join(', ')}` : 'every shape run under 1 s'} (load average ${loadavg()[0].toFixed(1)})`,
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  await adversarialTimes(Number(process.argv[2] ?? 3), process.argv.slice(3))
