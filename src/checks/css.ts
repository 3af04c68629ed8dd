import css, { type CssStylesheetAST } from '@adobe/css-tools'

/**
 * A `<style>` block's top-level rules and at-rules, each parsed on its own. @adobe/css-tools
 * looks for the next `"`, `'`, `(` and `\` from where it is on every token, to the end of the
 * text when there is none: a stylesheet cost the square of its length (a 180 KB one, 3.2 s).
 * Cut at its top-level blocks first (strings and comments skipped), each is parsed in time
 * proportional to its own square; a block past `MAX_BLOCK` is left out (`skipped`), the check
 * then treating what the sheet sets as unknown. Real emails' blocks are under a few KB.
 */
const MAX_BLOCK = 16 * 1024

/**
 * How many rules (`{…}` blocks, an at-rule's own and those inside it) an email's `<style>`
 * blocks may hold in all for the checks to read them. @adobe/css-tools takes about 40 µs a rule
 * (a 1 MiB email of 22,780 rules, 1.4 s of CPU to parse, 2.3 s to check); the real emails of
 * the corpus hold 264 at most (sendwithus' "meow" design), 34 at the median. Past it, no rule of
 * the email is read (`ParsedHtml.stylesRead`): applying only the first ones would guess at a
 * cascade that later rules change.
 */
export const MAX_RULES = 2000

/** The parsed sheet, and whether a block was too long to read. */
export interface ParsedCss {
  sheet: CssStylesheetAST
  skipped: boolean
}

/**
 * @example
 * parseCss('a { color: red } @media (max-width: 600px) { p { color: blue } }').sheet.stylesheet.rules.length // 2
 */
export function parseCss(text: string): ParsedCss {
  const rules: CssStylesheetAST['stylesheet']['rules'] = []
  let skipped = false
  for (const block of topLevelBlocks(text).blocks) {
    if (block.length > MAX_BLOCK) {
      skipped = true
      continue
    }
    rules.push(...css.parse(block, { silent: true }).stylesheet.rules)
  }
  return {
    sheet: { type: 'stylesheet', stylesheet: { rules, parsingErrors: [] } } as CssStylesheetAST,
    skipped,
  }
}

/**
 * How many rules a stylesheet holds: its `{…}` blocks at any depth, outside comments and strings.
 *
 * @example
 * countRules('a { color: red } @media (max-width: 600px) { p { color: blue } }') // 3
 */
export const countRules = (text: string): number => topLevelBlocks(text).rules

/**
 * The text cut after each `}` that closes a top-level block, and each top-level `;`; and how
 * many `{` open a block in it.
 */
function topLevelBlocks(text: string): { blocks: string[]; rules: number } {
  const blocks: string[] = []
  let rules = 0
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? text.length : end + 1
    } else if (c === '"' || c === "'") {
      i = stringEnd(text, i)
    } else if (c === '{') {
      depth++
      rules++
    } else if (c === '}' || (c === ';' && depth === 0)) {
      if (c === '}') depth = Math.max(0, depth - 1)
      if (depth === 0) {
        blocks.push(text.slice(start, i + 1))
        start = i + 1
      }
    }
  }
  if (text.slice(start).trim()) blocks.push(text.slice(start))
  return { blocks, rules }
}

/** Where a quoted string that starts at `i` ends (its closing quote, or the line's end). */
function stringEnd(text: string, i: number): number {
  const quote = text[i]
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++
    else if (text[j] === quote || text[j] === '\n') return j
  }
  return text.length
}
