import type { H3, H3Event } from 'h3'
import type { AppContext } from '../core/context.js'
import { TEMPLATE_SUMMARY, TEMPLATE_SUMMARY_PROPERTIES } from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { component } from '../http/openapi.js'
import { pathParam } from '../http/params.js'
import { templateError } from '../http/template-errors.js'
import { isValidSlug, lookupFailure, SLUG_PATTERN } from '../templates/index.js'
import { TOKEN } from './security.js'

const PREFIX = '/templates/'

function invalidSlug(shown: string) {
  return apiError(
    400,
    'invalid_slug',
    `${JSON.stringify(shown.slice(0, 140))} is not a template slug: use letters, digits, "-", "_" and "." (at most 128 characters, no "/" or "..").`,
  )
}

/** The slug exactly as the client wrote it: URL parsing would already have resolved `..`. */
function rawSlug(event: H3Event): string {
  const raw = event.runtime?.node?.req?.url ?? `${event.url.pathname}${event.url.search}`
  return raw.split('?')[0]!.slice(PREFIX.length)
}

function decodeSlug(raw: string): string | null {
  if (/%2f|%5c/i.test(raw)) return null
  try {
    return decodeURIComponent(raw)
  } catch {
    return null
  }
}

/** `:slug`, read from the raw request line (so `..`, `%2F` and `a/b` are refused, not resolved). */
const SLUG = pathParam(
  'A template slug: letters, digits, "-", "_" and "."; 1 to 128 characters; not "." or "..".',
  { type: 'string', pattern: SLUG_PATTERN.source, examples: ['welcome'] },
  (_decoded, event) => {
    const raw = rawSlug(event)
    const slug = decodeSlug(raw)
    if (slug === null || !isValidSlug(slug)) throw invalidSlug(slug ?? raw)
    return slug
  },
  [[400, 'invalid_slug']],
)

const TEMPLATE = component('Template', {
  type: 'object',
  description: 'A template and the variables it expects.',
  required: ['slug', 'body', 'variables', 'description', 'updatedAt'],
  properties: {
    slug: TEMPLATE_SUMMARY_PROPERTIES.slug,
    body: { type: 'string', description: 'The template source, front matter excluded.' },
    variables: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Top-level names the template expects (assigned and loop variables excluded; what partials and the layout read from the caller included), sorted.',
    },
    description: TEMPLATE_SUMMARY_PROPERTIES.description,
    updatedAt: TEMPLATE_SUMMARY_PROPERTIES.updatedAt,
  },
})

export const templateOperations = [
  defineOperation({
    method: 'GET',
    path: '/templates',
    operationId: 'listTemplates',
    tag: 'api',
    summary: 'Every template.',
    description:
      'The templates in the templates folder, sorted by slug; one that does not parse carries `error`.',
    security: TOKEN,
    success: {
      status: 200,
      description: 'The templates.',
      schema: {
        type: 'object',
        required: ['templates'],
        properties: { templates: { type: 'array', items: TEMPLATE_SUMMARY } },
      },
    },
    examples: { all: { summary: 'The example templates' } },
    handler: ({ ctx }) => ({ templates: ctx.catalog.list() }),
  }),
  defineOperation({
    method: 'GET',
    path: '/templates/:slug',
    operationId: 'getTemplate',
    tag: 'api',
    summary: 'One template, with the variables it expects.',
    description:
      'A slug that is not a valid slug (`..`, `/`, `%2F`, NUL, over 128 characters) is 400 invalid_slug; a missing one is 404 template_not_found (with the nearest slugs); one that does not parse is 422 template_invalid.',
    security: TOKEN,
    params: { slug: SLUG },
    success: { status: 200, description: 'The template.', schema: TEMPLATE },
    errors: [
      [404, 'template_not_found'],
      [422, 'template_invalid'],
    ],
    examples: {
      welcome: {
        summary: 'The welcome example',
        params: { slug: 'welcome' },
        response: {
          slug: 'welcome',
          body: '{%- layout "layouts/base"…',
          variables: ['dashboardUrl', 'name', 'product'],
          description: 'Sent once, right after someone signs up.',
          updatedAt: '2026-11-21T10:00:00.000Z',
        },
      },
      notFound: {
        summary: 'A slug with no template, and the nearest suggested',
        params: { slug: 'welcom' },
        status: 404,
        response: {
          error: {
            code: 'template_not_found',
            message: 'There is no template "welcom". Did you mean "welcome"?',
            details: [{ suggestion: 'welcome' }],
          },
        },
      },
    },
    handler({ ctx, params }) {
      const lookup = ctx.catalog.lookup(params.slug)
      if (!lookup.ok) throw templateError(lookupFailure(params.slug, lookup), { notFound: 404 })
      const { template } = lookup
      return {
        slug: template.slug,
        body: template.body,
        variables: template.variables,
        description: template.description,
        updatedAt: template.updatedAt,
      }
    },
  }),
]

/**
 * A path like /templates/.. or /templates/%2e%2e is resolved away by URL parsing before
 * routing; this catches it on the raw request line so it is refused, not silently redirected.
 */
export function refuseResolvedSlugs(
  app: H3,
  answer: () => ((event: H3Event) => unknown) | undefined,
): void {
  app.use((event, next) => {
    const raw = event.runtime?.node?.req?.url
    const handler = answer()
    if (handler && raw?.startsWith(PREFIX) && !event.url.pathname.startsWith(PREFIX))
      return handler(event)
    return next()
  })
}

export type { AppContext }
