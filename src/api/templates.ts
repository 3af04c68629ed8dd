import type { H3, H3Event } from 'h3'
import { apiError } from '../http/errors.js'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'
import { isValidSlug, lookupFailure } from '../templates/index.js'
import { authenticate } from './auth.js'
import { templateError } from '../http/template-errors.js'

const PREFIX = '/templates/'

function invalidSlug(shown: string) {
  return apiError(400, 'invalid_slug', `${JSON.stringify(shown.slice(0, 140))} is not a template slug: use letters, digits, "-", "_" and "." (at most 128 characters, no "/" or "..").`)
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

function templateInfo(event: H3Event, ctx: AppContext) {
  authenticate(event.req.headers.get('authorization'), ctx.config)
  const raw = rawSlug(event)
  const slug = decodeSlug(raw)
  if (slug === null || !isValidSlug(slug)) throw invalidSlug(slug ?? raw)
  const lookup = ctx.catalog.lookup(slug)
  if (!lookup.ok) throw templateError(lookupFailure(slug, lookup), { notFound: 404 })
  const { template } = lookup
  return { slug: template.slug, body: template.body, variables: template.variables, description: template.description, updatedAt: template.updatedAt }
}

/** GET /templates and GET /templates/:slug (CONTRACT §1). */
export function registerTemplateRoutes(app: H3, ctx: AppContext): void {
  // A path like /templates/.. or /templates/%2e%2e is resolved away by URL parsing before
  // routing; catch it on the raw request line so it is refused, not silently redirected.
  app.use((event, next) => {
    const raw = event.runtime?.node?.req?.url
    if (raw && raw.startsWith(PREFIX) && !event.url.pathname.startsWith(PREFIX)) return templateInfo(event, ctx)
    return next()
  })
  route(app, '/templates', {
    GET: (event) => {
      authenticate(event.req.headers.get('authorization'), ctx.config)
      return { templates: ctx.catalog.list() }
    },
  })
  const one = { GET: (event: H3Event) => templateInfo(event, ctx) }
  route(app, '/templates/:slug', one)
  // More than one segment (`a/b`) is an invalid slug, not an unknown route.
  route(app, '/templates/**', one)
}
