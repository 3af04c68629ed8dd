// `sendbox check` on 300 generated templates (layout, 3 partials, a fixture each), with the
// email checks and without, in alternating rounds; medians. Target: with <= 1.3 x without.
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateTemplates } from './generate-templates.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const dir = await mkdtemp(join(tmpdir(), 'sendbox-bench-check-'))
try {
  const { templates, fixtures } = await generateTemplates(dir, 300)
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
      { stdio: 'ignore' },
    )
    return performance.now() - t0
  }
  run([]) // warm the file cache
  const withChecks = []
  const without = []
  for (let round = 0; round < ROUNDS; round++) {
    withChecks.push(run([]))
    without.push(run(['--no-email-checks']))
  }
  const ratios = withChecks.map((t, i) => t / without[i])
  console.log(`\nsendbox check, 300 templates, ${ROUNDS} alternating rounds; medians`)
  console.log(
    `  with email checks:    ${median(withChecks).toFixed(0)} ms   (${withChecks.map((t) => t.toFixed(0)).join(' ')})`,
  )
  console.log(
    `  --no-email-checks:    ${median(without).toFixed(0)} ms   (${without.map((t) => t.toFixed(0)).join(' ')})`,
  )
  console.log(
    `  ratio:                ${median(ratios).toFixed(2)}   (target <= 1.3; per round ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}
