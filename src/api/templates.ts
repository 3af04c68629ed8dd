import type { H3, H3Event } from 'h3'
import * as v from 'valibot'
import type { AppContext } from '../http/context.js'
import { TEMPLATE_SUMMARY, TEMPLATE_SUMMARY_ENTRIES } from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { pathParam } from '../http/params.js'
import { templateError } from '../http/template-errors.js'
import { component, described, rule, shown } from '../lib/schema.js'
import { isValidSlug, lookupFailure, SLUG_PATTERN } from '../templates/index.js'
import { TOKEN } from './security.js'

const PREFIX = '/templates/'

/** The slug exactly as the client wrote it: URL parsing would already have resolved `..`. */
function rawSlug(event: H3Event): string {
  const raw = event.runtime?.node?.req?.url ?? `${event.url.pathname}${event.url.search}`
  return raw.split('?')[0]!.slice(PREFIX.length)
}

/**
 * `:slug`, read from the raw request line (so `..`, `%2F` and `a/b` are refused, not resolved):
 * one that is not a slug is `400 invalid_slug`.
 */
const SLUG = pathParam(
  'A template slug: letters, digits, "-", "_" and "."; 1 to 128 characters; not "." or "..".',
  v.pipe(
    v.string(),
    rule(
      'invalid_value',
      isValidSlug,
      (issue) =>
        `${shown(issue.input)} is not a template slug: use letters, digits, "-", "_" and "." (at most 128 characters, no "/" or "..").`,
    ),
    v.metadata({ pattern: SLUG_PATTERN.source }),
    v.examples(['welcome']),
  ),
  { errors: [[400, 'invalid_slug']], read: rawSlug },
)

const TEMPLATE = component(
  'Template',
  v.pipe(
    v.object({
      slug: TEMPLATE_SUMMARY_ENTRIES.slug,
      body: described(v.string(), 'The template source, front matter excluded.'),
      variables: described(
        v.array(v.string()),
        'Top-level names the template expects (assigned and loop variables excluded; what partials and the layout read from the caller included), sorted.',
      ),
      description: TEMPLATE_SUMMARY_ENTRIES.description,
      updatedAt: TEMPLATE_SUMMARY_ENTRIES.updatedAt,
    }),
    v.description('A template and the variables it expects.'),
  ),
)

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
      schema: v.object({ templates: v.array(TEMPLATE_SUMMARY) }),
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
