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
    let page: Page
    const tallies = new Map<string, Tally>(RULES.map((rule) => [rule, emptyTally()]))

    beforeAll(async () => {
      browser = await launch()
      // A desktop window: the design every client shows. At 600 px wide, the phone rules of
      // emails' @media (max-width: 600px / 650px) apply in the page, and axe then checks the
      // phone layout (cells hidden and shown, colours changed) where sendbox reads the base one.
      const context = await browser.newContext({ viewport: { width: 1024, height: 800 } })
      page = await context.newPage()
      // Offline, as the check is: the images never load.
      await page.route('**/*', (route) => route.abort())
      for (const email of SOURCES.emails) {
        const html = corpusHtml(email)
        const { marked, offsetAt } = markElements(html)
        const report = await checkEmail({ html, text: CORPUS_TEXT })
        const ours = sendboxElements(report.findings, offsetAt)
        const axe = await axeElements(page, marked)
        for (const rule of RULES)
          tally(tallies.get(rule)!, ours.get(rule)!, axe.get(rule)!, corpusFile(email))
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
