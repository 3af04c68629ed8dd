// The corpus of real emails (docs/checks.md, "The corpus of real emails"): HTML emails from
// public template collections, rendered with sample values by build.mjs from the repositories
// and commits that sources.json names. The HTML is not in this repository: it lives in the
// shared folder beside the checkout (../shared/email-corpus, where CI has it too), or wherever
// SENDBOX_EMAIL_CORPUS points; without it the tests that read it skip, with one line. Plain
// JavaScript so that bench/ (plain Node) and the tests share it.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const CORPUS_DIR =
  process.env.SENDBOX_EMAIL_CORPUS ??
  join(import.meta.dirname, '..', '..', '..', 'shared', 'email-corpus')

/** What the corpus holds, as committed here (build.mjs copies it to the corpus's SOURCES.json). */
export const SOURCES = JSON.parse(readFileSync(join(import.meta.dirname, 'sources.json'), 'utf8'))

export const hasCorpus = existsSync(join(CORPUS_DIR, 'SOURCES.json'))
if (!hasCorpus)
  console.log(
    `Email corpus not found at ${CORPUS_DIR}: skipping the checks on real emails (build it with test/email-corpus/build.mjs, see docs/checks.md)`,
  )

/**
 * `collection/name.html`, the email's place in the corpus.
 *
 * @example
 * corpusFile({ collection: 'postmark', name: 'basic-receipt' }) // 'postmark/basic-receipt.html'
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
