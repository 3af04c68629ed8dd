import type { Warning } from '../lib/problems.js'
import type {
  RenderClock,
  SourcePosition,
  Template,
  TemplateCatalog,
  TemplateLookup,
} from './types.js'
import { missingVariables, unusedVariables } from './analyze.js'
import { toPlainText } from './plain-text.js'

export { toPlainText, warmPlainText } from './plain-text.js'

/**
 * Steps 5–7 of a send (template → variables → render) as a plain operation of the template
 * layer. Failures come back typed, `{ ok: false, failure }`, never thrown: the API maps them to
 * HTTP errors in one place (src/http/template-errors.ts), the CLI prints them, previews show them.
 */

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
  const outcome = renderHtml(catalog, slug, variables, options)
  if (!outcome.ok) return outcome
  const { template, html, text, warnings } = outcome
  // A hand-written text version wins over the text derived from the HTML.
  return { ok: true, template, rendered: { html, text: text ?? toPlainText(html), warnings } }
}

/**
 * `renderMessage` with the text part from `textOf` (a send's: `TextParts.of`, which may convert
 * on a worker thread) when the template has no hand-written one.
 *
 * @example
 * const outcome = await renderMessageWith(catalog, 'welcome', variables, { lenient: false }, texts.of)
 */
export async function renderMessageWith(
  catalog: TemplateCatalog,
  slug: string,
  variables: Record<string, unknown>,
  options: { lenient: boolean },
  textOf: (html: string) => string | Promise<string>,
): Promise<RenderOutcome> {
  const outcome = renderHtml(catalog, slug, variables, options)
  if (!outcome.ok) return outcome
  const { template, html, text, warnings } = outcome
  return { ok: true, template, rendered: { html, text: text ?? (await textOf(html)), warnings } }
}

type HtmlOutcome =
  | {
      ok: true
      template: Template
      html: string
      text: string | undefined
      warnings: RenderWarning[]
    }
  | { ok: false; failure: TemplateFailure }

/** Steps 5–7 but the derived text part: its html, and its text when the template has a `.txt`. */
function renderHtml(
  catalog: TemplateCatalog,
  slug: string,
  variables: Record<string, unknown>,
  options: { lenient: boolean; clock?: RenderClock | undefined },
): HtmlOutcome {
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
  return { ok: true, template, html: result.html, text: result.text, warnings }
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
