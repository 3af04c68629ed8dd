// The email checks on adversarial messages of about 1 MiB (the body limit), one per shape of
// test/checks/adversarial.ts (deep nesting, thousands of ids, aria-labelledby lists, long
// attribute lists, nested links and tables, stylesheets of thousands of rules): wall time and
// the heap they leave in use, median of rounds. Target: each under 1 s. The checks and the
// shapes are bundled from the sources (rolldown), as bench/check-email.js does.
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { median, ROOT } from './common.js'

const MIB = 1024 * 1024

async function bundled(input, dir, name) {
  const { build } = await import('rolldown')
  const file = join(dir, `${name}.js`)
  await build({
    input: join(ROOT, input),
    platform: 'node',
    logLevel: 'silent',
    output: { file, format: 'esm', codeSplitting: false },
  })
  return import(pathToFileURL(file).href)
}

/** Each shape grown to just under 1 MiB, checked `rounds` times: ms and MB, medians. */
export async function adversarialTimes(rounds = 3) {
  // Beside the sources, so that the bundles find the packages in node_modules.
  const dir = await mkdtemp(join(ROOT, '.bench-adversarial-'))
  try {
    const { checkEmail } = await bundled('src/checks/index.ts', dir, 'checks')
    const { ADVERSARIAL, adversarialEmail } = await bundled(
      'test/checks/adversarial.ts',
      dir,
      'shapes',
    )
    await checkEmail({ html: '<p>warm</p>', text: 'warm' })
    console.log(`\nemail checks on adversarial messages of about 1 MiB, median of ${rounds}`)
    for (const [shape, grow] of Object.entries(ADVERSARIAL)) {
      let n = 1000
      while (Buffer.byteLength(adversarialEmail(grow(n * 2))) < MIB) n *= 2
      const html = adversarialEmail(grow(n))
      const times = []
      const heaps = []
      for (let round = 0; round < rounds; round++) {
        const t0 = performance.now()
        await checkEmail({ html, text: 'An adversarial message, checked as any other.' })
        times.push(performance.now() - t0)
        heaps.push(process.memoryUsage().heapUsed / MIB)
      }
      const ms = median(times)
      console.log(
        `  ${shape.padEnd(34)} ${(Buffer.byteLength(html) / 1024).toFixed(0).padStart(5)} KB  ${ms.toFixed(0).padStart(5)} ms  heap ${median(heaps).toFixed(0)} MB${ms >= 1000 ? '  (over the 1 s target)' : ''}`,
      )
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
