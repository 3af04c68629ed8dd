// checkEmail on each email of the corpus of real emails (test/email-corpus/, docs/checks.md),
// in this process, from dist/: the time per email, median and p99 over the corpus, each email's
// time the median of its rounds. Run by bench/check.js after its own figures. The corpus is the
// npm packages' (built here first, as the tests' global setup does), or the one fetched from
// repositories where SENDBOX_EMAIL_CORPUS names it; skipped, with one line, where it is not there.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { median, ROOT } from './common.js'

/** The figure at fraction `q` of the sorted values (0.99 for p99). */
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1]

/**
 * Times checkEmail on every corpus email, `rounds` times each, and prints the figures.
 *
 * @example
 * await benchCorpus(5)
 */
export async function benchCorpus(rounds) {
  if (!process.env.SENDBOX_EMAIL_CORPUS)
    execFileSync(process.execPath, [join(ROOT, 'test/email-corpus/build-npm.mjs')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
  // Imported once the corpus is built: it looks for it as it loads.
  const { CORPUS_TEXT, corpusHtml, hasCorpus, SOURCES } = await import(
    '../test/email-corpus/corpus.js'
  )
  if (!hasCorpus) return
  const { checkEmail } = await import(join(ROOT, 'dist/checks/index.js'))
  const emails = SOURCES.emails.map((e) => ({ e, html: corpusHtml(e), times: [] }))
  let threw = 0
  const once = async (email) => {
    const t0 = performance.now()
    await checkEmail({ html: email.html, text: CORPUS_TEXT }).catch(() => threw++)
    return performance.now() - t0
  }
  for (const email of emails) await once(email) // load the caniemail data, warm the JIT
  threw = 0
  for (let round = 0; round < rounds; round++)
    for (const email of emails) email.times.push(await once(email))
  const each = emails.map((email) => median(email.times))
  const slowest = emails[each.indexOf(Math.max(...each))].e
  console.log(
    `\ncheckEmail on the corpus of real emails (${process.env.SENDBOX_EMAIL_CORPUS ? 'fetched' : 'npm packages'}), ${emails.length} emails, ${rounds} rounds; per email`,
  )
  console.log(`  median:  ${median(each).toFixed(1)} ms`)
  console.log(`  p99:     ${quantile(each, 0.99).toFixed(1)} ms`)
  console.log(
    `  slowest: ${Math.max(...each).toFixed(1)} ms (${slowest.collection}/${slowest.name}.html)`,
  )
  if (threw) console.log(`  threw:   ${threw / rounds} of ${emails.length} emails`)
}
