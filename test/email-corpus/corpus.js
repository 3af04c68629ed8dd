// The corpus of real emails (docs/checks.md, "The corpus of real emails"), in one of two forms:
// - by default, the emails of npm packages (npm-sources.json, each package an exact-version
//   devDependency), built by build-npm.mjs into node_modules/.cache/sendbox-email-corpus/ before
//   the tests run (setup.ts, a global setup of both test configurations), so `npm test` and CI
//   run it wherever `npm ci` ran;
// - where SENDBOX_EMAIL_CORPUS names a folder, the corpus build.mjs made there from the public
//   repositories and commits that sources.json names.
// Without the corpus, the tests that read it skip, with one line. Plain JavaScript so that bench/
// (plain Node) and the tests share it.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { NPM_CORPUS_DIR } from './build-npm.mjs'

/** True where the corpus is the one fetched from repositories (SENDBOX_EMAIL_CORPUS). */
export const FETCHED = Boolean(process.env.SENDBOX_EMAIL_CORPUS)

export const CORPUS_DIR = process.env.SENDBOX_EMAIL_CORPUS || NPM_CORPUS_DIR

/** What the corpus holds, as committed here (the builders copy it to the corpus's SOURCES.json). */
export const SOURCES = JSON.parse(
  readFileSync(join(import.meta.dirname, FETCHED ? 'sources.json' : 'npm-sources.json'), 'utf8'),
)

export const hasCorpus = existsSync(join(CORPUS_DIR, 'SOURCES.json'))
if (!hasCorpus)
  console.log(
    `Email corpus not found at ${CORPUS_DIR}: skipping the checks on real emails (${FETCHED ? 'build it with test/email-corpus/build.mjs' : 'run the tests through vitest, whose global setup builds it'}, see docs/checks.md)`,
  )

/**
 * `collection/name.html`, the email's place in the corpus.
 *
 * @example
 * corpusFile({ collection: 'mailgen', name: 'salted-receipt' }) // 'mailgen/salted-receipt.html'
 */
export const corpusFile = (e) => `${e.collection}/${e.name}.html`

/**
 * One email's HTML.
 *
 * @example
 * const html = corpusHtml(SOURCES.emails[0])
 */
export const corpusHtml = (e) => readFileSync(join(CORPUS_DIR, corpusFile(e)), 'utf8')

/** The plain-text part the checks are given beside each email's HTML. */
export const CORPUS_TEXT =
  'Hello Ada, this is the plain-text part of the email, as a sender would write it.'
