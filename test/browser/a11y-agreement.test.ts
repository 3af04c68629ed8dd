import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEmail } from '../../src/checks/index.js'
import { AXE_RULE, CORPUS, corpusHtml } from '../checks/a11y-corpus.js'
import { hasChromium, launch } from './helpers.js'

/**
 * sendbox's accessibility findings against axe-core's, in Chromium, on the same HTML: for every
 * email of the corpus (each problem and its clean twin), the rules both have (image alt, link
 * name, lang, document title, colour contrast) must flag the same thing. A disagreement fails
 * and names the rule, the email and what each side said. axe's "incomplete" (it could not tell,
 * as for text over an image) counts as no violation, as sendbox says nothing there.
 */

const require = createRequire(import.meta.url)
const AXE = require.resolve('axe-core/axe.min.js')
const RULES = Object.values(AXE_RULE)

/** The rules axe finds violated, each with its elements' HTML. */
async function axeViolations(page: Page, html: string): Promise<Map<string, string[]>> {
  await page.setContent(html)
  await page.evaluate(await readFile(AXE, 'utf8'))
  const violations = (await page.evaluate(
    (rules) =>
      (
        globalThis as unknown as {
          axe: { run(o: unknown): Promise<{ violations: unknown[] }> }
        }
      ).axe
        .run({ runOnly: { type: 'rule', values: rules }, resultTypes: ['violations'] })
        .then((r) => r.violations),
    RULES,
  )) as { id: string; nodes: { html: string }[] }[]
  return new Map(violations.map((v) => [v.id, v.nodes.map((n) => n.html)]))
}

/** The same rules as sendbox sees them, each with its places. */
async function sendboxFindings(html: string): Promise<Map<string, string[]>> {
  const report = await checkEmail({ html, text: 'Order 1042 left our warehouse today.' })
  const found = new Map<string, string[]>()
  for (const f of report.findings) {
    const rule = AXE_RULE[f.code]
    if (!rule) continue
    found.set(rule, [...(found.get(rule) ?? []), `${f.line}:${f.column}`])
  }
  return found
}

describe.skipIf(!hasChromium)('accessibility findings agree with axe-core', () => {
  let browser: Browser
  let page: Page
  beforeAll(async () => {
    browser = await launch()
    const context = await browser.newContext({ viewport: { width: 600, height: 800 } })
    page = await context.newPage()
    // Offline, as the check is: the images never load (axe then sees no image behind text).
    await page.route('**/*', (route) => route.abort())
  })
  afterAll(() => browser?.close())

  it('on every email of the corpus, and on each clean twin', async () => {
    const disagreements: string[] = []
    for (const c of CORPUS) {
      const { problem, clean } = corpusHtml(c.name)
      for (const [which, html] of [
        [`${c.name}.html`, problem],
        [`${c.name}.clean.html`, clean],
      ] as const) {
        const axe = await axeViolations(page, html)
        const ours = await sendboxFindings(html)
        for (const rule of RULES)
          if (axe.has(rule) !== ours.has(rule))
            disagreements.push(
              `${rule} on ${which}: axe ${axe.has(rule) ? `flags ${axe.get(rule)!.join(', ')}` : 'finds nothing'}; sendbox ${ours.has(rule) ? `flags ${ours.get(rule)!.join(', ')}` : 'finds nothing'}`,
            )
      }
      // The corpus means something only if axe does flag the problems it shares.
      if (c.axe && !(await axeViolations(page, problem)).has(c.axe))
        disagreements.push(`${c.axe} on ${c.name}.html: axe does not flag the known problem`)
    }
    expect(disagreements).toEqual([])
  })
})
