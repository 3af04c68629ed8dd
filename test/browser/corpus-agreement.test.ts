import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEmail } from '../../src/checks/index.js'
import { CORPUS_TEXT, corpusFile, corpusHtml, hasCorpus, SOURCES } from '../email-corpus/corpus.js'
import {
  axeElements,
  emptyTally,
  figures,
  markElements,
  RULES,
  sendboxElements,
  type Tally,
  tally,
  tallyFlagged,
} from './agreement.js'
import { hasChromium, launch } from './helpers.js'

/**
 * sendbox's accessibility findings against axe-core's in Chromium, on every email of the corpus of
 * real emails, element by element, for the rules both have: precision and recall of sendbox's
 * findings, taking axe's as the truth, at least 0.95 each. Elements axe could not decide
 * ("incomplete": text over an image, say) count for neither. The table is printed; where the two
 * differ and sendbox is right, docs/checks.md says why.
 */

const MIN = 0.95

describe.skipIf(!hasChromium || !hasCorpus)(
  'accessibility findings agree with axe-core on real emails',
  () => {
    let browser: Browser
    const pages: Record<'desktop' | 'phone', Page> = {} as Record<'desktop' | 'phone', Page>
    const tallies = new Map<string, Tally>(RULES.map((rule) => [rule, emptyTally()]))

    beforeAll(async () => {
      browser = await launch()
      // A desktop window: the base design every client shows, which sendbox reads. Its findings
      // on content only a phone shows (under a phone-width @media rule) are judged by axe in a
      // 375 px window, where that content shows; what axe alone flags there is not counted, as
      // the phone layout also changes what sendbox does not read (widths, colours).
      for (const [name, width] of [
        ['desktop', 1024],
        ['phone', 375],
      ] as const) {
        pages[name] = await (
          await browser.newContext({ viewport: { width, height: 800 } })
        ).newPage()
        // Offline, as the check is: the images never load.
        await pages[name].route('**/*', (route) => route.abort())
      }
      for (const email of SOURCES.emails) {
        const html = corpusHtml(email)
        const { marked, offsetAt } = markElements(html)
        const report = await checkEmail({ html, text: CORPUS_TEXT })
        const { base, phone } = sendboxElements(report.findings, offsetAt)
        const axe = await axeElements(pages.desktop, marked)
        const onPhone = [...phone.values()].some((s) => s.size > 0)
        const axePhone = onPhone ? await axeElements(pages.phone, marked) : null
        for (const rule of RULES) {
          const t = tallies.get(rule)!
          tally(t, base.get(rule)!, axe.get(rule)!, corpusFile(email))
          if (axePhone) tallyFlagged(t, phone.get(rule)!, axePhone.get(rule)!, corpusFile(email))
        }
      }
      console.log(table(tallies))
    }, 900_000)
    afterAll(() => browser?.close())

    it.each(RULES)(`%s: precision and recall at least ${MIN}`, (rule) => {
      const t = tallies.get(rule)!
      const { precision, recall } = figures(t)
      expect({ precision: precision >= MIN, recall: recall >= MIN, ...t }).toMatchObject({
        precision: true,
        recall: true,
      })
    })
  },
)

function table(tallies: Map<string, Tally>): string {
  const rows = [...tallies].map(([rule, t]) => {
    const { precision, recall } = figures(t)
    return `${rule.padEnd(15)} ${String(t.agree).padStart(6)} ${String(t.sendboxOnly.length).padStart(8)} ${String(t.axeOnly.length).padStart(8)} ${String(t.undecided.length).padStart(9)} ${precision.toFixed(3).padStart(9)} ${recall.toFixed(3).padStart(7)}`
  })
  // Each disagreement by email and offset of the element's start tag, to look at by hand.
  const differences = [...tallies].flatMap(([rule, t]) => [
    ...t.sendboxOnly.map((e) => `  ${rule}, sendbox only: ${e}`),
    ...t.axeOnly.map((e) => `  ${rule}, axe only: ${e}`),
    ...t.undecided.map((e) => `  ${rule}, sendbox, axe undecided: ${e}`),
  ])
  return [
    `sendbox against axe-core on ${SOURCES.emails.length} real emails, element by element`,
    'rule             agree  sendbox      axe undecided precision  recall',
    ...rows,
    ...(differences.length ? ['where they differ:', ...differences] : []),
  ].join('\n')
}
