import { createRequire } from 'node:module'
import type { DomNode, FormatCallback, HtmlToTextOptions } from 'html-to-text'
import type { Warning } from '../lib/problems.js'
import type {
  RenderClock,
  SourcePosition,
  Template,
  TemplateCatalog,
  TemplateLookup,
} from './types.js'
import { missingVariables, unusedVariables } from './analyze.js'

/**
 * Steps 5–7 of a send (template → variables → render) as a plain operation of the template
 * layer. Failures come back typed, `{ ok: false, failure }`, never thrown: the API maps them to
 * HTTP errors in one place (src/http/template-errors.ts), the CLI prints them, previews show them.
 */

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
const PLAIN_TEXT_OPTIONS: HtmlToTextOptions = {
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
 * The text part of an HTML message, with one converter compiled on first use.
 *
 * @example
 * toPlainText('<p>Hello <a href="https://acme.test">Ada</a></p>') // 'Hello Ada [https://acme.test]'
 */
export function toPlainText(html: string): string {
  converter ??= (require('html-to-text') as typeof import('html-to-text')).compile(
    PLAIN_TEXT_OPTIONS,
  )
  return converter(html)
}

/** Loads and compiles the converter now (a server calls it once it is ready, off the first send's path). */
export function warmPlainText(): void {
  toPlainText('')
}

/** A soft problem with a send or a preview; it never stops one. */
export type RenderWarning = Warning

export interface RenderedMessage {
  html: string
  text: string
  warnings: RenderWarning[]
}

/** Why a template could not be used, with what an error answer needs. */
export type TemplateFailure =
  | { code: 'template_not_found'; slug: string; suggestions: string[] }
  | { code: 'template_invalid'; slug: string; error: SourcePosition & { message: string } }
  | { code: 'missing_variables'; slug: string; missing: string[] }
  | { code: 'render_failed'; slug: string; error: SourcePosition & { message: string } }

export type RenderOutcome =
  | { ok: true; template: Template; rendered: RenderedMessage }
  | { ok: false; failure: TemplateFailure }

/** A lookup's failure as a `TemplateFailure`. */
export function lookupFailure(
  slug: string,
  lookup: Exclude<TemplateLookup, { ok: true }>,
): TemplateFailure {
  return lookup.reason === 'not_found'
    ? { code: 'template_not_found', slug, suggestions: lookup.suggestions }
    : { code: 'template_invalid', slug, error: lookup.error }
}

/**
 * Renders a template by slug the way POST /messages does: the slug is looked up once, then
 * variables are checked (missing ones fail unless `lenient`, where they render empty and become
 * warnings; supplied-but-unused ones are warnings), then it renders, bounded.
 *
 * @example
 * const outcome = renderMessage(catalog, 'welcome', { name: 'Ada', dashboardUrl: 'https://…' })
 * if (outcome.ok) console.log(outcome.rendered.html)
 * else console.error(outcome.failure.code) // 'missing_variables', …
 */
export function renderMessage(
  catalog: TemplateCatalog,
  slug: string,
  variables: Record<string, unknown>,
  options: { lenient: boolean; clock?: RenderClock | undefined },
): RenderOutcome {
  const lookup = catalog.lookup(slug)
  if (!lookup.ok) return { ok: false, failure: lookupFailure(slug, lookup) }
  const { template } = lookup
  const warnings: RenderWarning[] = []
  const missing = missingVariables(template, variables)
  if (missing.length > 0) {
    if (!options.lenient)
      return { ok: false, failure: { code: 'missing_variables', slug, missing } }
    for (const variable of missing)
      warnings.push({
        code: 'missing_variable',
        variable,
        message: `templateVariables.${variable} is missing; it rendered empty.`,
      })
  }
  for (const variable of unusedVariables(template, variables)) {
    warnings.push({
      code: 'unused_variable',
      variable,
      message: `templateVariables.${variable} was supplied but the template "${slug}" never uses it.`,
    })
  }
  const result = lookup.render(variables, options.clock ? { clock: options.clock } : {})
  if (!result.ok)
    return { ok: false, failure: { code: 'render_failed', slug, error: result.error } }
  // A hand-written text version wins over the text derived from the HTML.
  return {
    ok: true,
    template,
    rendered: { html: result.html, text: result.text ?? toPlainText(result.html), warnings },
  }
}

/**
 * Variables from a template's front matter: each declared variable's `example`. What a preview,
 * `sendbox render` and `sendbox check` use when a template has no fixture case.
 *
 * @example
 * // ---
 * // variables: { name: { example: Ada } }
 * // ---
 * exampleVariables(template) // { name: 'Ada' }
 */
export function exampleVariables(template: Template): Record<string, unknown> {
  const examples: Record<string, unknown> = {}
  for (const [name, declared] of Object.entries(template.declared))
    if (declared.example !== undefined) examples[name] = declared.example
  return examples
}

/** A failure in words, for a console or an error answer. */
export function describeFailure(failure: TemplateFailure): string {
  switch (failure.code) {
    case 'template_not_found': {
      const hint = failure.suggestions.length
        ? ` Did you mean ${failure.suggestions.map((s) => `"${s}"`).join(' or ')}?`
        : ' GET /templates lists the ones there are.'
      return `There is no template "${failure.slug}".${hint}`
    }
    case 'template_invalid': {
      const { file, line, column, message } = failure.error
      return `The template "${failure.slug}" does not parse: ${message} (${file}:${line}:${column}).`
    }
    case 'missing_variables':
      return `The template "${failure.slug}" needs ${failure.missing.join(', ')}; add ${failure.missing.length === 1 ? 'it' : 'them'} to templateVariables.`
    case 'render_failed': {
      const { file, line, column, message } = failure.error
      return `The template "${failure.slug}" failed to render: ${message} (${file}:${line}:${column}).`
    }
  }
}
