import type { TemplateFailure } from '../templates/index.js'
import { describeFailure } from '../templates/index.js'
import { apiError } from './errors.js'

/**
 * The one mapping from the template layer's typed failures to HTTP errors (docs/api.md#the-api, steps
 * 5–7). A send naming a missing template is 422; asking for it by URL (`GET /templates/:slug`,
 * previews) is 404, so those pass `notFound: 404`.
 *
 * @example
 * const outcome = renderMessage(ctx.catalog, slug, variables, { lenient: false })
 * if (!outcome.ok) throw templateError(outcome.failure)
 */
export function templateError(failure: TemplateFailure, options: { notFound?: 404 | 422 } = {}) {
  const message = describeFailure(failure)
  switch (failure.code) {
    case 'template_not_found':
      return apiError(options.notFound ?? 422, failure.code, message, {
        details: failure.suggestions.map((slug) => ({ suggestion: slug })),
      })
    case 'template_invalid':
    case 'render_failed': {
      const { file, line, column, message: reason } = failure.error
      return apiError(422, failure.code, message, {
        details: [{ file, line, column, message: reason }],
      })
    }
    case 'missing_variables':
      return apiError(422, failure.code, message, {
        details: failure.missing.map((variable) => ({
          variable,
          message: `templateVariables.${variable} is required by the template "${failure.slug}".`,
        })),
      })
  }
}
