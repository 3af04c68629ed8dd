// checkEmail alone, per message, on bench/check.js's 300 generated templates (rendered once with
// their fixtures): the email checks' own cost, without starting `sendbox check` around them.
//
//   node bench/check-email.js bundle CHECKS_DIR OUT.js   bundle a src/checks folder (this tree's,
//                                                        or an older commit's from `git archive`)
//   node bench/check-email.js corpus OUT.json            render the 300 messages (needs dist/)
//   node bench/check-email.js run BUNDLE.js CORPUS.json [ROUNDS=10]
//                                                        CPU ms per message, median of rounds
//   node bench/check-email.js ab A.js B.js CORPUS.json [ROUNDS=10]
//                                                        A and B in alternating rounds, B/A
//
// `run` with ROUNDS=0 only loads and warms (the caniemail data, the JIT): under
// `valgrind --tool=callgrind`, (instructions at R rounds - at 0) / (R x 300) is a figure per
// message that the machine's load does not move.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { median, ROOT } from './common.js'
import { generateTemplates } from './generate-templates.js'

const [command, ...args] = process.argv.slice(2)

async function bundle(checksDir, out) {
  const { build } = await import('rolldown')
  await build({
    input: join(resolve(checksDir), 'index.ts'),
    platform: 'node',
    logLevel: 'silent',
    output: { file: resolve(out), format: 'esm', codeSplitting: false },
  })
}

async function corpus(out) {
  const dir = await mkdtemp(join(tmpdir(), 'sendbox-bench-check-email-'))
  try {
    const { templates, fixtures } = await generateTemplates(dir, 300)
    const { createTemplateCatalog } = await import(join(ROOT, 'dist/templates/catalog.js'))
    const { renderMessage } = await import(join(ROOT, 'dist/templates/render.js'))
    const catalog = await createTemplateCatalog({
      templatesDir: templates,
      fixturesDir: fixtures,
      watch: false,
    })
    const messages = []
    for (const { slug } of catalog.list()) {
      const variables = JSON.parse(await readFile(join(fixtures, `${slug}.json`), 'utf8'))
      const outcome = renderMessage(catalog, slug, variables, { lenient: false })
      if (!outcome.ok) throw new Error(`${slug}: ${outcome.failure.code}`)
      messages.push({ html: outcome.rendered.html, text: outcome.rendered.text })
    }
    await catalog.close()
    await writeFile(out, JSON.stringify(messages))
    console.log(`${messages.length} messages → ${out}`)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const load = async (file) => (await import(pathToFileURL(resolve(file)).href)).checkEmail
const messages = async (file) => JSON.parse(await readFile(file, 'utf8'))

/**
 * One pass over the corpus; ms of CPU time (user and system) per message: on a machine loaded by
 * other work, wall time also counts the time the process waited for a core.
 */
async function pass(checkEmail, corpus) {
  const t0 = process.cpuUsage()
  for (const message of corpus) await checkEmail(message)
  const { user, system } = process.cpuUsage(t0)
  return (user + system) / 1000 / corpus.length
}

async function run(file, corpusFile, rounds = 10) {
  const checkEmail = await load(file)
  const corpus = await messages(corpusFile)
  await pass(checkEmail, corpus) // warm: the caniemail data, the caches, the JIT
  const times = []
  for (let round = 0; round < rounds; round++) times.push(await pass(checkEmail, corpus))
  if (rounds > 0)
    console.log(
      `checkEmail ${median(times).toFixed(3)} ms a message (${rounds} rounds of ${corpus.length})`,
    )
}

async function ab(a, b, corpusFile, rounds = 10) {
  const [checkA, checkB] = [await load(a), await load(b)]
  const corpus = await messages(corpusFile)
  await pass(checkA, corpus)
  await pass(checkB, corpus)
  const [timesA, timesB] = [[], []]
  for (let round = 0; round < rounds; round++) {
    timesA.push(await pass(checkA, corpus))
    timesB.push(await pass(checkB, corpus))
  }
  const ratios = timesB.map((t, i) => t / timesA[i])
  console.log(`A ${median(timesA).toFixed(3)} ms a message, B ${median(timesB).toFixed(3)} ms`)
  console.log(
    `B/A ${median(ratios).toFixed(2)} (per round ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
  )
}

if (command === 'bundle') await bundle(args[0], args[1])
else if (command === 'corpus') await corpus(args[0])
else if (command === 'run') await run(args[0], args[1], Number(args[2] ?? 10))
else if (command === 'ab') await ab(args[0], args[1], args[2], Number(args[3] ?? 10))
else {
  console.error('usage: node bench/check-email.js bundle|corpus|run|ab … (see the top of the file)')
  process.exitCode = 2
}
