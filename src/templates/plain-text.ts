/**
 * The text part of an HTML message (html-to-text), apart from the renderer: a server warms it
 * once it is ready without loading the renderer (and Liquid with it) before then.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { DomNode, FormatCallback, HtmlToTextOptions } from 'html-to-text'
import { requireWithCodeCache } from '../lib/code-cache.js'
import { type EntityDecoders, parseTextDom } from './text-dom.js'
import { engineOf, type TextEngine, treeConverter } from './text-walk.js'

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

/** What the converter loads: html-to-text's `compile`, and the entity decoders htmlparser2 uses. */
type TextLibraries = Pick<typeof import('html-to-text'), 'compile'> & EntityDecoders

/**
 * The file the build makes of html-to-text and entities' decoders beside the bundles
 * (scripts/bundle.js), loaded with the code cache the build keeps beside it (../lib/code-cache.ts);
 * the modules tsc wrote, which the tests import, have no such file beside them and load the
 * packages as published.
 */
const TEXT_CONVERTER_FILE = fileURLToPath(new URL('./sendbox-html-to-text.cjs', import.meta.url))

function loadTextLibraries(): TextLibraries {
  if (existsSync(TEXT_CONVERTER_FILE))
    return requireWithCodeCache(TEXT_CONVERTER_FILE).exports as TextLibraries
  const { decodeHTML, decodeHTMLAttribute } = require('entities') as EntityDecoders
  return {
    compile: (require('html-to-text') as TextLibraries).compile,
    decodeHTML,
    decodeHTMLAttribute,
  }
}

/**
 * The converter: html-to-text compiled with PLAIN_TEXT_OPTIONS, and before it the same
 * conversion over the tree `parseTextDom` reads, with html-to-text's own builder and formatters
 * (text-walk.ts), for every message that reader is sure of. A receipt's text part in half of
 * html-to-text's time (68.6 against 131-136 µs); the same bytes (test/templates/text-dom.test.ts).
 * The builder comes from the first table html-to-text formats: its class and options are what a
 * formatter is handed.
 */
function compileConverter(): (html: string) => string {
  const libraries = loadTextLibraries()
  let engine: TextEngine | undefined
  const emailTableFirst: FormatCallback = (elem, walk, builder, formatOptions) => {
    engine ??= engineOf(builder)
    emailTable(elem, walk, builder, formatOptions)
  }
  const slow = libraries.compile({
    ...PLAIN_TEXT_OPTIONS,
    formatters: { ...PLAIN_TEXT_OPTIONS.formatters, emailTable: emailTableFirst },
  })
  slow('<table></table>')
  const fast = engine && treeConverter(engine)
  if (!fast) return slow
  return (html) => {
    const dom = parseTextDom(html, libraries)
    return dom ? fast(dom) : slow(html)
  }
}

/**
 * The text part of an HTML message, with one converter compiled on first use.
 *
 * @example
 * toPlainText('<p>Hello <a href="https://acme.test">Ada</a></p>') // 'Hello Ada [https://acme.test]'
 */
export function toPlainText(html: string): string {
  converter ??= compileConverter()
  return converter(html)
}

/**
 * html-to-text's own conversion alone, as compiled once: what the tests hold the converter against,
 * and the work floor of `npm run bench` runs.
 *
 * @example
 * htmlToTextAlone()('<p>Hello</p>') // 'Hello'
 */
export function htmlToTextAlone(): (html: string) => string {
  return loadTextLibraries().compile(PLAIN_TEXT_OPTIONS)
}

/** Loads and compiles the converter now (a server calls it once it is ready, off the first send's path). */
export function warmPlainText(): void {
  toPlainText('')
}
