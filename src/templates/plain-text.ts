/**
 * The text part of an HTML message (html-to-text), apart from the renderer: a server warms it
 * once it is ready without loading the renderer (and Liquid with it) before then.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { DomNode, FormatCallback, HtmlToTextOptions } from 'html-to-text'
import { requireWithCodeCache } from '../lib/code-cache.js'

const cellsOf = (row: DomNode) =>
  row.children.filter((c) => c.type === 'tag' && (c.name === 'td' || c.name === 'th'))

/** The rows of a table: `tr`s directly in it or in its `thead`/`tbody`/`tfoot`. */
function rowsOf(table: DomNode): DomNode[] {
  const rows: DomNode[] = []
  for (const child of table.children) {
    if (child.type !== 'tag') continue
    if (child.name === 'tr') rows.push(child)
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot')
      rows.push(...child.children.filter((c) => c.type === 'tag' && c.name === 'tr'))
  }
  return rows
}

function containsTable(node: DomNode): boolean {
  return node.children.some((c) => c.type === 'tag' && (c.name === 'table' || containsTable(c)))
}

/**
 * Whether an email table holds data (a receipt's items) rather than layout: no table inside it,
 * and at least two rows of two or more cells. Layout tables (the page, a button) are the rest.
 */
export function isDataTable(table: DomNode): boolean {
  if (containsTable(table)) return false
  return rowsOf(table).filter((row) => cellsOf(row).length >= 2).length >= 2
}

/**
 * Tables as what they are: data tables as aligned columns (html-to-text's `dataTable`), layout
 * tables as plain blocks, one row after another.
 */
const emailTable: FormatCallback = (elem, walk, builder, formatOptions) => {
  const formatters = builder.options.formatters as Record<string, FormatCallback>
  if (isDataTable(elem))
    formatters.dataTable!(elem, walk, builder, {
      ...formatOptions,
      uppercaseHeaderCells: false,
      maxColumnWidth: 40,
      colSpacing: 3,
    })
  else formatters.block!(elem, walk, builder, formatOptions)
}

/**
 * The converter's options: links kept as `text [url]`, images dropped, 78-column wrap; data
 * tables as aligned rows; nothing a reader of the HTML does not see either (a hidden preheader,
 * `display:none`, `hidden`, Outlook's `mso-hide:all`).
 */
export const PLAIN_TEXT_OPTIONS: HtmlToTextOptions = {
  wordwrap: 78,
  formatters: { emailTable },
  selectors: [
    { selector: 'a', options: { linkBrackets: ['[', ']'], hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'table', format: 'emailTable' },
    { selector: '[style*="display:none"i]', format: 'skip' },
    { selector: '[style*="display: none"i]', format: 'skip' },
    { selector: '[style*="mso-hide:all"i]', format: 'skip' },
    { selector: '[hidden]', format: 'skip' },
    { selector: '.preheader', format: 'skip' },
  ],
}

// html-to-text and its parser are a fifth of what a start loads, and no start needs them: they
// load (synchronously, as CommonJS) on the first text part, or in `warmPlainText` once the server
// is up.
const require = createRequire(import.meta.url)
let converter: ((html: string) => string) | undefined

/**
 * The file the build makes of html-to-text beside the bundles (scripts/bundle.js), loaded with
 * the code cache the build keeps beside it (../lib/code-cache.ts); the modules tsc wrote, which
 * the tests import, have no such file beside them and load the package as published.
 */
const TEXT_CONVERTER_FILE = fileURLToPath(new URL('./sendbox-html-to-text.cjs', import.meta.url))

function loadHtmlToText(): typeof import('html-to-text') {
  if (!existsSync(TEXT_CONVERTER_FILE)) return require('html-to-text')
  return requireWithCodeCache(TEXT_CONVERTER_FILE).exports as typeof import('html-to-text')
}

/**
 * The text part of an HTML message, with one converter compiled on first use.
 *
 * @example
 * toPlainText('<p>Hello <a href="https://acme.test">Ada</a></p>') // 'Hello Ada [https://acme.test]'
 */
export function toPlainText(html: string): string {
  converter ??= loadHtmlToText().compile(PLAIN_TEXT_OPTIONS)
  return converter(html)
}

/** Loads and compiles the converter now (a server calls it once it is ready, off the first send's path). */
export function warmPlainText(): void {
  toPlainText('')
}
