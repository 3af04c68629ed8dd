import { relative } from 'node:path'
import { checkEmail } from '../checks/index.js'
import type { AppContext } from '../core/context.js'
import { EMAIL_CHECKS, TEMPLATE_SUMMARY_PROPERTIES, WARNING } from '../http/components.js'
import { defineOperation, jsonBody } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { component, errorSchemaName } from '../http/openapi.js'
import { enumParam, pathParam, patternParam } from '../http/params.js'
import { templateError } from '../http/template-errors.js'
import { boolean, jsonObject, object, optional, string } from '../lib/schema.js'
import { exampleVariables, FIXTURE_CASE_PATTERN, FixtureWriteError, isValidSlug, lookupFailure, missingVariables, renderMessage, SLUG_HINT, SLUG_PATTERN, writeFixtureCase } from '../templates/index.js'
import type { FixtureCase, Template } from '../templates/types.js'
import { HTML_QUERY, htmlAnswer } from './html.js'

/**
 * Template previews for the inbox (and anyone styling templates): the catalog with fixture
 * cases, and renders by slug with a fixture case or posted variables. Previews never store
 * anything and, unlike POST /messages, render even when variables are missing (reported).
 */

const SLUG = pathParam(
  'A template slug: letters, digits, "-", "_" and "."; 1 to 128 characters; not "." or "..".',
  { type: 'string', pattern: SLUG_PATTERN.source, examples: ['welcome'] },
  (slug) => {
    if (!isValidSlug(slug)) throw apiError(400, 'invalid_slug', `${JSON.stringify(slug.slice(0, 140))} is not a template slug: use ${SLUG_HINT}.`)
    return slug
  },
  [[400, 'invalid_slug']],
)

const CASE_QUERY = {
  case: patternParam(SLUG_PATTERN, `a fixture case name (${SLUG_HINT})`, 'A fixture case (`default` is `fixtures/<slug>.json`); absent: the first case, else the front-matter examples.', { examples: ['default'] }),
}
const SOFT_QUERY = {
  soft: enumParam(['0', '1'], '`1`: a template that cannot render answers 200 `{ ok: false, error }` instead of its 4xx, so a page showing the error inline logs no failed request.', '0'),
}

function templateOf(ctx: AppContext, slug: string): Template {
  const lookup = ctx.catalog.lookup(slug)
  if (lookup.ok) return lookup.template
  throw templateError(lookupFailure(slug, lookup), { notFound: 404 })
}

const caseInfo = (c: FixtureCase) => ({ name: c.name, ...(c.error ? { error: c.error } : {}) })

/** Variables for a preview: a named fixture case, else the first case, else front-matter examples. */
export function previewVariables(ctx: AppContext, template: Template, caseName?: string | null): Record<string, unknown> {
  const cases = ctx.catalog.fixtures(template.slug)
  if (caseName) {
    const found = cases.find((c) => c.name === caseName)
    if (!found) throw apiError(404, 'fixture_not_found', `The template "${template.slug}" has no fixture case "${caseName}"; it has ${cases.map((c) => `"${c.name}"`).join(', ') || 'none'}.`)
    if (!found.variables) throw apiError(422, 'fixture_invalid', `The fixture ${relative(ctx.catalog.fixturesDir, found.file)} is not usable: ${found.error}.`)
    return found.variables
  }
  const first = cases.find((c) => c.variables)
  return first?.variables ?? exampleVariables(template)
}

/**
 * With `?soft=1` a preview that cannot render answers 200 `{ ok: false, error }` instead of a
 * 4xx: a page showing the error inline then logs no failed request in the browser console.
 */
function soft<T extends object>(isSoft: boolean, render: () => T): (T & { ok: true }) | { ok: false; error: unknown } {
  if (!isSoft) return { ok: true, ...render() }
  try {
    return { ok: true, ...render() }
  } catch (error) {
    const data = (error as { data?: { code?: string; details?: unknown[] } }).data
    if (!data?.code) throw error
    return { ok: false, error: { code: data.code, message: (error as Error).message, details: data.details ?? [] } }
  }
}

function preview(ctx: AppContext, template: Template, variables: Record<string, unknown>) {
  // Lenient: a preview shows what renders and lists what is missing, instead of refusing.
  const outcome = renderMessage(ctx.catalog, template.slug, variables, { lenient: true })
  if (!outcome.ok) throw templateError(outcome.failure, { notFound: 404 })
  const { rendered } = outcome
  return { slug: template.slug, html: rendered.html, text: rendered.text, warnings: rendered.warnings, missing: missingVariables(template, variables), variables }
}

/**
 * Starting values for a variables editor when a template has no fixture: front-matter
 * examples, then every required path the analysis found, as a placeholder string.
 */
export function variableSkeleton(template: Template): Record<string, unknown> {
  const skeleton = exampleVariables(template)
  for (const path of template.requiredPaths) {
    const segments = path.split('.')
    let node: Record<string, unknown> = skeleton
    segments.forEach((segment, i) => {
      const last = i === segments.length - 1
      const existing = Object.hasOwn(node, segment) ? node[segment] : undefined
      if (last) {
        if (existing === undefined) node[segment] = `<${path}>`
      } else {
        if (typeof existing !== 'object' || existing === null) node[segment] = {}
        node = node[segment] as Record<string, unknown>
      }
    })
  }
  for (const name of template.variables) if (!Object.hasOwn(skeleton, name)) skeleton[name] = ''
  return skeleton
}

const VARIABLES = jsonObject({ description: 'Values for the template\'s variables; any JSON.', examples: [{ name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' }] })
const VARIABLES_BODY = jsonBody(object({ variables: optional(VARIABLES, {}) }, { description: 'Variables to render with; absent: none (each missing one is listed in `missing`).' }), 'Variables to render with.')

const FIXTURE_CASE = component('FixtureCase', {
  type: 'object',
  description: 'A fixture case of a template.',
  required: ['name'],
  properties: { name: { type: 'string', description: '`default` for fixtures/<slug>.json, else the file name in fixtures/<slug>/.' }, error: { type: 'string', description: 'Present when the file is not a JSON object.' } },
})

const PREVIEW = component('Preview', {
  type: 'object',
  description: 'A render for a preview: missing variables render empty and are listed.',
  required: ['ok', 'slug', 'html', 'text', 'warnings', 'missing', 'variables'],
  properties: {
    ok: { type: 'boolean', enum: [true] },
    slug: TEMPLATE_SUMMARY_PROPERTIES.slug,
    html: { type: 'string' },
    text: { type: 'string' },
    warnings: { type: 'array', items: WARNING },
    missing: { type: 'array', items: { type: 'string' }, description: 'Dotted paths the template needs that the variables lack.' },
    variables: { type: 'object', additionalProperties: true, description: 'The variables it rendered with.' },
  },
})

const RENDER_FAILURES = ['template_not_found', 'template_invalid', 'fixture_not_found', 'fixture_invalid', 'render_failed'] as const
const SOFT_FAILURE = component('PreviewFailure', {
  type: 'object',
  description: 'With `?soft=1`: why the template did not render, as the error would have said it.',
  required: ['ok', 'error'],
  properties: {
    ok: { type: 'boolean', enum: [false] },
    error: { oneOf: RENDER_FAILURES.map((code) => ({ $ref: `#/components/schemas/${errorSchemaName(code)}/properties/error` })) },
  },
})
const RENDERED = { oneOf: [PREVIEW, SOFT_FAILURE] }

const TEMPLATE_ERRORS = [
  [404, 'template_not_found'],
  [422, 'template_invalid'],
] as const
const CASE_ERRORS = [[404, 'fixture_not_found'], [422, 'fixture_invalid']] as const
const RENDER_ERRORS = [...TEMPLATE_ERRORS, [422, 'render_failed']] as const

const one = { slug: SLUG }

/** Live previews, per server: the newest MAX_LIVE_PREVIEWS rendered HTMLs by id. */
const MAX_LIVE_PREVIEWS = 50
const livePreviews = new WeakMap<AppContext, { previews: Map<string, string>; seq: number }>()
function previewStore(ctx: AppContext) {
  let store = livePreviews.get(ctx)
  if (!store) livePreviews.set(ctx, (store = { previews: new Map(), seq: 0 }))
  return store
}

const fixtureBody = object(
  {
    name: string({ pattern: FIXTURE_CASE_PATTERN, not: ['default'], patternHint: `a case name (${SLUG_HINT}; not starting with "."), not "default"`, description: 'The case name: the file is fixtures/<slug>/<name>.json. Not "default" (that is fixtures/<slug>.json).', examples: ['big-order'] }),
    variables: VARIABLES,
    overwrite: optional(boolean({ description: 'Replace a case of that name (else 409 fixture_exists).' }), false),
  },
  { description: 'A fixture case to save.' },
)

const previewBody = object(
  {
    template: string({ pattern: SLUG_PATTERN, patternHint: SLUG_HINT, description: 'The template\'s slug.', examples: ['welcome'] }),
    variables: optional(VARIABLES, {}),
  },
  { description: 'What to render.' },
)

export const templatePreviewOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates',
    operationId: 'inspectTemplates',
    tag: 'inspector',
    summary: 'Every template with its fixture cases.',
    description: 'Like GET /templates, without a token, and with each template\'s fixture cases.',
    success: {
      status: 200,
      description: 'The templates, by slug.',
      schema: {
        type: 'object',
        required: ['templates'],
        properties: {
          templates: {
            type: 'array',
            items: { type: 'object', required: ['slug', 'description', 'variables', 'updatedAt', 'fixtures'], properties: { ...TEMPLATE_SUMMARY_PROPERTIES, fixtures: { type: 'array', items: FIXTURE_CASE } } },
          },
        },
      },
    },
    handler: ({ ctx }) => ({ templates: ctx.catalog.list().map((t) => ({ ...t, fixtures: ctx.catalog.fixtures(t.slug).map(caseInfo) })) }),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates/:slug',
    operationId: 'inspectTemplate',
    tag: 'inspector',
    summary: 'A template in full: source, variables, required paths, declared variables, fixture cases.',
    description: '`skeleton` holds starting values for a variables editor: the front-matter examples, then a placeholder for every other path the template reads.',
    params: one,
    success: {
      status: 200,
      description: 'The template.',
      schema: component('TemplateDetail', {
        type: 'object',
        required: ['slug', 'description', 'body', 'variables', 'required', 'declared', 'updatedAt', 'fixtures', 'skeleton'],
        properties: {
          slug: TEMPLATE_SUMMARY_PROPERTIES.slug,
          description: TEMPLATE_SUMMARY_PROPERTIES.description,
          body: { type: 'string', description: 'The source, front matter excluded.' },
          variables: TEMPLATE_SUMMARY_PROPERTIES.variables,
          required: { type: 'array', items: { type: 'string' }, description: 'Dotted paths a send must supply.' },
          declared: {
            type: 'object',
            description: 'The front matter\'s `variables`, by name.',
            additionalProperties: { type: 'object', properties: { description: { type: 'string' }, example: { description: 'Any JSON.' }, required: { type: 'boolean' } } },
          },
          updatedAt: TEMPLATE_SUMMARY_PROPERTIES.updatedAt,
          fixtures: { type: 'array', items: FIXTURE_CASE },
          skeleton: { type: 'object', additionalProperties: true, description: 'Starting values for a variables editor.' },
        },
      }),
    },
    errors: TEMPLATE_ERRORS,
    handler({ ctx, params }) {
      const template = templateOf(ctx, params.slug)
      return {
        slug: template.slug,
        description: template.description,
        body: template.body,
        variables: template.variables,
        required: template.requiredPaths,
        declared: template.declared,
        updatedAt: template.updatedAt,
        fixtures: ctx.catalog.fixtures(template.slug).map(caseInfo),
        skeleton: variableSkeleton(template),
      }
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates/:slug/render',
    operationId: 'renderFixture',
    tag: 'inspector',
    summary: 'Render with a fixture case (or the front-matter examples).',
    description: 'Missing variables render empty and are listed in `missing`; nothing is stored.',
    params: one,
    query: { ...CASE_QUERY, ...SOFT_QUERY },
    success: { status: 200, description: 'The render (with `?soft=1`, or why it failed).', schema: RENDERED },
    errors: [...RENDER_ERRORS, ...CASE_ERRORS],
    examples: { receipt: { summary: 'The order receipt with its big-order case', params: { slug: 'order-receipt' }, query: { case: 'big-order' } } },
    handler: ({ ctx, params, query }) =>
      soft(query.soft === '1', () => {
        const template = templateOf(ctx, params.slug)
        return preview(ctx, template, previewVariables(ctx, template, query.case))
      }),
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/templates/:slug/render',
    operationId: 'renderVariables',
    tag: 'inspector',
    summary: 'Render with the posted variables.',
    description: 'Missing variables render empty and are listed in `missing`; nothing is stored.',
    params: one,
    query: SOFT_QUERY,
    body: VARIABLES_BODY,
    success: { status: 200, description: 'The render (with `?soft=1`, or why it failed).', schema: RENDERED },
    errors: RENDER_ERRORS,
    examples: {
      welcome: {
        summary: 'The welcome template with one variable missing',
        params: { slug: 'welcome' },
        body: { variables: { name: 'Ada' } },
        response: {
          ok: true,
          slug: 'welcome',
          html: '<!doctype html>…',
          text: '…',
          warnings: [{ code: 'missing_variable', variable: 'dashboardUrl', message: 'templateVariables.dashboardUrl is missing; it rendered empty.' }],
          missing: ['dashboardUrl'],
          variables: { name: 'Ada' },
        },
      },
    },
    handler: ({ ctx, params, query, body }) => soft(query.soft === '1', () => preview(ctx, templateOf(ctx, params.slug), body.variables ?? {})),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates/:slug/checks',
    operationId: 'checkFixture',
    tag: 'inspector',
    summary: 'Email checks of the template rendered with a fixture case (or the front-matter examples).',
    description: 'The same checks as a stored message gets.',
    params: one,
    query: CASE_QUERY,
    success: { status: 200, description: 'The checks.', schema: EMAIL_CHECKS },
    errors: [...RENDER_ERRORS, ...CASE_ERRORS],
    handler({ ctx, params, query }) {
      const template = templateOf(ctx, params.slug)
      const { html, text } = preview(ctx, template, previewVariables(ctx, template, query.case))
      return checkEmail({ html, text })
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/templates/:slug/checks',
    operationId: 'checkVariables',
    tag: 'inspector',
    summary: 'Email checks of the template rendered with the posted variables.',
    description: 'The same checks as a stored message gets.',
    params: one,
    body: VARIABLES_BODY,
    success: { status: 200, description: 'The checks.', schema: EMAIL_CHECKS },
    errors: RENDER_ERRORS,
    handler({ ctx, params, body }) {
      const { html, text } = preview(ctx, templateOf(ctx, params.slug), body.variables ?? {})
      return checkEmail({ html, text })
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates/:slug/preview',
    operationId: 'previewTemplate',
    tag: 'inspector',
    summary: 'The template rendered with a fixture case, as sandboxed HTML for an iframe.',
    description: 'Served like a message\'s HTML (sandboxing CSP, `?images=`, `?scheme=`).',
    params: one,
    query: { ...CASE_QUERY, ...HTML_QUERY },
    success: { status: 200, description: 'The HTML.', contentType: 'text/html' },
    errors: [...RENDER_ERRORS, ...CASE_ERRORS],
    handler({ ctx, params, query }) {
      const template = templateOf(ctx, params.slug)
      return htmlAnswer(preview(ctx, template, previewVariables(ctx, template, query.case)).html, query)
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/previews',
    operationId: 'createPreview',
    tag: 'inspector',
    summary: 'Render a template with posted variables and keep the HTML for a sandboxed frame.',
    description: 'The newest 50 are kept in memory; `GET url` serves one. The inbox\'s variables editor uses this, so the page never needs inline HTML.',
    body: jsonBody(previewBody, 'What to render.'),
    success: {
      status: 201,
      description: 'Rendered and kept.',
      schema: {
        type: 'object',
        required: ['id', 'url', 'text', 'warnings', 'missing'],
        properties: {
          id: { type: 'string', pattern: '^pv_[0-9a-z]+_[0-9a-z]+$' },
          url: { type: 'string', description: 'Where the HTML is served: `/_sandbox/api/previews/<id>`.' },
          text: { type: 'string' },
          warnings: { type: 'array', items: WARNING },
          missing: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    errors: RENDER_ERRORS,
    examples: { welcome: { summary: 'A live preview of the welcome template', body: { template: 'welcome', variables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' } } } },
    handler({ ctx, body }) {
      const result = preview(ctx, templateOf(ctx, body.template), body.variables ?? {})
      const store = previewStore(ctx)
      const id = `pv_${(++store.seq).toString(36)}_${Date.now().toString(36)}`
      store.previews.set(id, result.html)
      if (store.previews.size > MAX_LIVE_PREVIEWS) store.previews.delete(store.previews.keys().next().value!)
      return { id, url: `/_sandbox/api/previews/${id}`, text: result.text, warnings: result.warnings, missing: result.missing }
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/previews/:id',
    operationId: 'getPreview',
    tag: 'inspector',
    summary: 'A kept preview\'s HTML, sandboxed.',
    description: 'Served like a message\'s HTML (sandboxing CSP, `?images=`, `?scheme=`).',
    params: { id: pathParam('A preview id, as POST /_sandbox/api/previews answered it.', { type: 'string', pattern: '^pv_[0-9a-z]+_[0-9a-z]+$' }, (id) => id) },
    query: HTML_QUERY,
    success: { status: 200, description: 'The HTML.', contentType: 'text/html' },
    errors: [[404, 'preview_not_found']],
    handler({ ctx, params, query }) {
      const html = previewStore(ctx).previews.get(params.id)
      if (html === undefined) throw apiError(404, 'preview_not_found', 'That preview has expired (only the newest 50 are kept); render it again.')
      return htmlAnswer(html, query)
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/templates/:slug/fixtures',
    operationId: 'saveFixtureCase',
    tag: 'inspector',
    summary: 'Save variables as a fixture case, fixtures/<slug>/<name>.json.',
    description: 'The catalog picks the new case up as soon as it sees the file. A name that is taken is 409 fixture_exists unless `overwrite` is true.',
    params: one,
    body: jsonBody(fixtureBody, 'The case.'),
    success: {
      status: 201,
      description: 'Saved.',
      schema: { type: 'object', required: ['name', 'file'], properties: { name: { type: 'string' }, file: { type: 'string', description: 'The file written.' } } },
    },
    errors: [...TEMPLATE_ERRORS, [409, 'fixture_exists'], [413, 'fixture_too_large'], [403, 'fixture_outside']],
    async handler({ ctx, params, body }) {
      const template = templateOf(ctx, params.slug)
      let file: string
      try {
        file = await writeFixtureCase(ctx.catalog.fixturesDir, template.slug, body.name, body.variables, { overwrite: body.overwrite === true })
      } catch (error) {
        if (!(error instanceof FixtureWriteError)) throw error
        const status = ({ fixture_exists: 409, fixture_too_large: 413, fixture_outside: 403 } as const)[error.code]
        throw apiError(status, error.code, error.message)
      }
      return { name: body.name, file }
    },
  }),
]
