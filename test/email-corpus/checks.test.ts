import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkEmail } from '../../src/checks/index.js'
import {
  CORPUS_DIR,
  CORPUS_TEXT,
  corpusFile,
  corpusHtml,
  FETCHED,
  hasCorpus,
  SOURCES,
} from './corpus.js'

/**
 * Every check (what `GET …/messages/:id/checks` and `sendbox check` run) on every email of the
 * corpus of real emails: none throws, none reports that a check failed.
 */

/** What a template language leaves when its placeholders were not rendered. */
const PLACEHOLDER = /\{\{|\{%|\*\|[A-Z_:]+\|\*/
/**
 * Each corpus's size, at least: the one fetched from repositories (SENDBOX_EMAIL_CORPUS), and
 * the one of npm packages, which is what the npm registry has (docs/checks.md).
 */
const MINIMUM = FETCHED ? { emails: 150, collections: 8 } : { emails: 89, collections: 10 }

describe.skipIf(!hasCorpus)('the corpus of real emails', () => {
  it(`holds at least ${MINIMUM.emails} emails from at least ${MINIMUM.collections} collections, each with its licence`, () => {
    expect(SOURCES.emails.length).toBeGreaterThanOrEqual(MINIMUM.emails)
    expect(SOURCES.collections.length).toBeGreaterThanOrEqual(MINIMUM.collections)
    // Built from these sources, not an older list.
    expect(JSON.parse(readFileSync(join(CORPUS_DIR, 'SOURCES.json'), 'utf8'))).toEqual(SOURCES)
    const missing = [
      ...SOURCES.emails.map(corpusFile),
      ...SOURCES.collections.flatMap((c) =>
        c.licenceFiles.map((f) => join('licences', c.repo.replace('/', '+'), f)),
      ),
    ].filter((file) => !existsSync(join(CORPUS_DIR, file)))
    expect(missing).toEqual([])
  })

  it('is rendered as sent: no template placeholder is left', () => {
    const left = SOURCES.emails.filter((e) => PLACEHOLDER.test(corpusHtml(e))).map(corpusFile)
    expect(left).toEqual([])
  })

  describe.each(SOURCES.collections.map((c) => c.collection))('%s', (collection) => {
    const emails = SOURCES.emails.filter((e) => e.collection === collection)
    it.each(emails.map((e) => [e.name, e] as const))(
      'every check runs on %s, and reads it whole',
      async (_, e) => {
        const report = await checkEmail({ html: corpusHtml(e), text: CORPUS_TEXT })
        // Nor is a real email past what the checks read: its stylesheet (264 rules at most, of
        // 2,000), its nodes (1,934 at most, of 40,000) and its depth (36 at most, of 512).
        const unread = new Set(['check_failed', 'styles_not_read', 'html_not_read'])
        expect(report.findings.filter((f) => unread.has(f.code))).toEqual([])
      },
    )
  })
})
