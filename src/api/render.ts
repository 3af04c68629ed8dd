import { compile } from 'html-to-text'
import { apiError } from '../errors/index.js'
import type { Warning } from '../store/types.js'
import { missingVariables, unusedVariables } from '../templates/index.js'
import type { TemplateCatalog, TemplateParseError } from '../templates/types.js'

/** Steps 5–7 of the send checks: template, variables, render. Also used by previews. */

/**
 * One compiled converter: links kept as `text [url]`, images dropped, 78-column wrap. Email
 * tables are layout, not data, so they stay html-to-text's plain blocks.
 */
export const toPlainText = compile({
  wordwrap: 78,
  selectors: [
    { selector: 'a', options: { linkBrackets: ['[', ']'], hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
  ],
})

export interface RenderedMessage {
  html: string
  text: string
  warnings: Warning[]
}

/** A send names a missing template: 422. Asking for it by URL (GET /templates/:slug): 404. */
export function templateNotFound(slug: string, suggestions: string[], status: 404 | 422 = 422) {
  const hint = suggestions.length ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}?` : ' GET /templates lists the ones there are.'
  return apiError(status, 'template_not_found', `There is no template "${slug}".${hint}`, { details: suggestions.map((slug) => ({ suggestion: slug })) })
}

export function templateInvalid(slug: string, { file, line, column, message }: TemplateParseError) {
  return apiError(422, 'template_invalid', `The template "${slug}" does not parse: ${message} (${file}:${line}:${column}).`, {
    details: [{ file, line, column, message }],
  })
}

export function renderMessage(catalog: TemplateCatalog, slug: string, variables: Record<string, unknown>, options: { lenient: boolean }): RenderedMessage {
  const lookup = catalog.lookup(slug)
  if (!lookup.ok) {
    throw lookup.reason === 'not_found' ? templateNotFound(slug, lookup.suggestions) : templateInvalid(slug, lookup.error)
  }
  const template = lookup.template
  const warnings: Warning[] = []
  const missing = missingVariables(template, variables)
  if (missing.length > 0) {
    if (!options.lenient) {
      throw apiError(422, 'missing_variables', `The template "${slug}" needs ${missing.join(', ')}; add ${missing.length === 1 ? 'it' : 'them'} to templateVariables.`, {
        details: missing.map((variable) => ({ variable, message: `templateVariables.${variable} is required by the template "${slug}".` })),
      })
    }
    for (const variable of missing) warnings.push({ code: 'missing_variable', variable, message: `templateVariables.${variable} is missing; it rendered empty.` })
  }
  for (const variable of unusedVariables(template, variables)) {
    warnings.push({ code: 'unused_variable', variable, message: `templateVariables.${variable} was supplied but the template "${slug}" never uses it.` })
  }
  const result = catalog.render(slug, variables)
  if (!result.ok) {
    const { file, line, column, message } = result.error
    throw apiError(422, 'render_failed', `The template "${slug}" failed to render: ${message} (${file}:${line}:${column}).`, {
      details: [{ file, line, column, message }],
    })
  }
  return { html: result.html, text: toPlainText(result.html), warnings }
}
