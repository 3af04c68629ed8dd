import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { parseHtml } from '../../src/checks/html.js'

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

/** sendbox's code for each axe-core rule both have. */
export const SENDBOX_CODE: Readonly<Record<string, string>> = {
  'image-alt': 'img_missing_alt',
  'link-name': 'link_missing_text',
  'html-has-lang': 'missing_lang',
  'document-title': 'missing_title',
  'heading-order': 'heading_order',
  'color-contrast': 'low_contrast',
}
export const RULES = Object.keys(SENDBOX_CODE)
/** Rules about the whole document: their element is the document, whichever element each names. */
const DOCUMENT_RULES: ReadonlySet<string> = new Set(['html-has-lang', 'document-title'])
/** The attribute that carries each element's offset in the HTML into the page. */
const MARK = 'data-sendbox-at'

/**
 * The HTML with each element's start tag marked with its offset (`<td data-sendbox-at="812"`),
 * so that an element axe names in the page is the one a sendbox finding names by line and
 * column; and the offset of each line:column sendbox can give.
 */
export function markElements(html: string): { marked: string; offsetAt: Map<string, number> } {
  const parsed = parseHtml(html)
  const offsetAt = new Map<string, number>()
  const tags: { at: number; end: number }[] = []
  for (const { startIndex: at, name } of parsed.elements) {
    const place = parsed.placeOf(at)
    if (at === null || !place) continue
    const end = at + 1 + name.length
    if (html.slice(at, end).toLowerCase() !== `<${name}`) continue
    offsetAt.set(`${place.line}:${place.column}`, at)
    tags.push({ at, end })
  }
  const parts: string[] = []
  let from = 0
  for (const { at, end } of tags.sort((a, b) => a.at - b.at)) {
    parts.push(html.slice(from, end), ` ${MARK}="${at}"`)
    from = end
  }
  parts.push(html.slice(from))
  return { marked: parts.join(''), offsetAt }
}

/** One rule's elements, as axe-core sees them in the page: violated, or undecided. */
export interface AxeElements {
  violations: Set<string>
  incomplete: Set<string>
}

/**
 * axe-core's verdicts on the rules both have, each element named by its offset in the HTML
 * (`document` for the document rules; a selector where the element carries no mark).
 */
export async function axeElements(page: Page, marked: string): Promise<Map<string, AxeElements>> {
  await page.setContent(marked)
  if (!(await page.evaluate(() => 'axe' in window)))
    await page.evaluate(await readFile(AXE, 'utf8'))
  const results = (await page.evaluate(
    async ({ rules, mark }) => {
      const axe = (window as unknown as { axe: { run(o: unknown): Promise<unknown> } }).axe
      const r = (await axe.run({
        runOnly: { type: 'rule', values: rules },
        resultTypes: ['violations', 'incomplete'],
      })) as Record<'violations' | 'incomplete', { id: string; nodes: { target: string[] }[] }[]>
      const name = (target: string[]) => {
        const selector = target.at(-1) ?? ''
        return document.querySelector(selector)?.getAttribute(mark) ?? selector
      }
      const of = (list: typeof r.violations) =>
        list.map((v) => ({ id: v.id, elements: v.nodes.map((n) => name(n.target)) }))
      return { violations: of(r.violations), incomplete: of(r.incomplete) }
    },
    { rules: RULES, mark: MARK },
  )) as Record<'violations' | 'incomplete', { id: string; elements: string[] }[]>
  const out = new Map(
    RULES.map((rule) => [rule, { violations: new Set<string>(), incomplete: new Set<string>() }]),
  )
  for (const kind of ['violations', 'incomplete'] as const)
    for (const { id, elements } of results[kind])
      for (const e of elements) out.get(id)![kind].add(DOCUMENT_RULES.has(id) ? 'document' : e)
  return out
}

/** How a finding on content only a phone-width screen shows ends (src/checks/accessibility.ts). */
const SHOWN_ON_PHONE = '(Shown only on a phone-width screen'

/**
 * sendbox's findings on the rules both have, each element named as axeElements names it: those
 * on the base design, and those on content only a phone-width screen shows.
 */
export function sendboxElements(
  findings: { code: string; line: number | null; column: number | null; message: string }[],
  offsetAt: Map<string, number>,
): Record<'base' | 'phone', Map<string, Set<string>>> {
  const out = {
    base: new Map(RULES.map((rule) => [rule, new Set<string>()])),
    phone: new Map(RULES.map((rule) => [rule, new Set<string>()])),
  }
  for (const rule of RULES)
    for (const f of findings.filter((f) => f.code === SENDBOX_CODE[rule]))
      out[f.message.includes(SHOWN_ON_PHONE) ? 'phone' : 'base']
        .get(rule)!
        .add(
          DOCUMENT_RULES.has(rule)
            ? 'document'
            : String(offsetAt.get(`${f.line}:${f.column}`) ?? `${f.line}:${f.column}`),
        )
  return out
}

/** One rule's agreement over the corpus, element by element. */
export interface Tally {
  /** Flagged by both. */
  agree: number
  /** Flagged by sendbox only (axe: passes, or not applicable). */
  sendboxOnly: string[]
  /** Flagged by axe only. */
  axeOnly: string[]
  /** Flagged by sendbox where axe could not tell ("incomplete"): left out of both figures. */
  undecided: string[]
}

export const emptyTally = (): Tally => ({ agree: 0, sendboxOnly: [], axeOnly: [], undecided: [] })

/** Adds one email's elements of one rule to the rule's tally; `where` names the email. */
export function tally(t: Tally, ours: Set<string>, axe: AxeElements, where: string): void {
  tallyFlagged(t, ours, axe, where)
  for (const e of axe.violations) if (!ours.has(e)) t.axeOnly.push(`${where} @${e}`)
}

/** Adds the elements sendbox flags, each as axe judges it: its precision only. */
export function tallyFlagged(t: Tally, ours: Set<string>, axe: AxeElements, where: string): void {
  for (const e of ours)
    if (axe.violations.has(e)) t.agree++
    else if (axe.incomplete.has(e)) t.undecided.push(`${where} @${e}`)
    else t.sendboxOnly.push(`${where} @${e}`)
}

/** Precision and recall of sendbox against axe; 1 where there is nothing to get wrong. */
export function figures(t: Tally): { precision: number; recall: number } {
  const flagged = t.agree + t.sendboxOnly.length
  const expected = t.agree + t.axeOnly.length
  return {
    precision: flagged ? t.agree / flagged : 1,
    recall: expected ? t.agree / expected : 1,
  }
}
