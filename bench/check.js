// `sendbox check` on 300 generated templates (layout, 3 partials, a fixture each), in alternating
// rounds; medians. Two comparisons: with the email checks and without (target: <= 1.3 x), and,
// both without the email checks, against committed snapshots (every case compared with its HTML
// and text snapshot, all the same) and without a snapshot folder (target: <= 1.3 x: comparing
// should cost little next to rendering). Then checkEmail on each email of the corpus of real
// emails, median and p99 per email (bench/check-corpus.js), and the checks on adversarial
// messages of 1 MiB (bench/check-adversarial.js).
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchCorpus } from './check-corpus.js'
import { generateTemplates } from './generate-templates.js'
import { median, ROOT as root } from './common.js'
import { adversarialTimes } from './check-adversarial.js'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

const dir = await mkdtemp(join(tmpdir(), 'sendbox-bench-check-'))
try {
  const { templates, fixtures } = await generateTemplates(dir, 300)
  const snapshots = join(dir, 'snapshots')
  const run = (extra) => {
    const t0 = performance.now()
    execFileSync(
      process.execPath,
      [
        join(root, 'bin/sendbox.js'),
        'check',
        '--templates',
        templates,
        '--fixtures',
        fixtures,
        ...extra,
      ],
      // In the temporary folder: no ./snapshots there, so only --snapshots compares.
      { stdio: 'ignore', cwd: dir, env: { ...process.env, CI: 'true' } },
    )
    return performance.now() - t0
  }
  run([]) // warm the file cache
  run(['--no-email-checks', '--snapshots', snapshots, '-u']) // write the snapshots once
  const withChecks = []
  const without = []
  const withSnapshots = []
  for (let round = 0; round < ROUNDS; round++) {
    withChecks.push(run([]))
    without.push(run(['--no-email-checks']))
    withSnapshots.push(run(['--no-email-checks', '--snapshots', snapshots]))
  }
  const ratios = withChecks.map((t, i) => t / without[i])
  const snapshotRatios = withSnapshots.map((t, i) => t / without[i])
  const times = (xs) => xs.map((t) => t.toFixed(0)).join(' ')
  console.log(`\nsendbox check, 300 templates, ${ROUNDS} alternating rounds; medians`)
  console.log(
    `  with email checks:               ${median(withChecks).toFixed(0)} ms   (${times(withChecks)})`,
  )
  console.log(
    `  --no-email-checks:               ${median(without).toFixed(0)} ms   (${times(without)})`,
  )
  console.log(
    `  ratio:                           ${median(ratios).toFixed(2)}   (target <= 1.3; per round ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
  )
  console.log(
    `  --no-email-checks, 300 snapshots: ${median(withSnapshots).toFixed(0)} ms   (${times(withSnapshots)})`,
  )
  console.log(
    `  snapshots ratio:                 ${median(snapshotRatios).toFixed(2)}   (target <= 1.3; per round ${snapshotRatios.map((r) => r.toFixed(2)).join(' ')})`,
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}
await benchCorpus(ROUNDS)
await adversarialTimes()
