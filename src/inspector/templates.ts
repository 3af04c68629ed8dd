import { readFile } from 'node:fs/promises'
import { relative } from 'node:path'
import { checkEmail } from '../checks/lazy.js'
import type { AppContext } from '../http/context.js'
import * as v from 'valibot'
import {
  EMAIL_CHECKS,
  freeObject,
  list,
  TEMPLATE_SUMMARY_ENTRIES,
  WARNING,
} from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { SHARED_ACCESS, ADMIN_ACCESS } from '../http/viewer.js'
import { ERROR_OBJECTS } from '../http/error-catalog.js'
import { apiError } from '../http/errors.js'
import { CACHE_QUERY, enumParam, noNul, pathParam, patternParam } from '../http/params.js'
import { templateError } from '../http/template-errors.js'
import {
  boolean,
  component,
  described,
  jsonObject,
  object,
  optional,
  relation,
  rule,
  shown,
  string,
} from '../lib/schema.js'
import {
  exampleVariables,
  FIXTURE_CASE_PATTERN,
  FixtureWriteError,
  isValidSlug,
  lookupFailure,
  missingVariables,
  renderMessage,
  SLUG_HINT,
  SLUG_PATTERN,
  writeFixtureCase,
} from '../templates/index.js'
import type { FixtureCase, Template } from '../templates/types.js'
import { withExcerpts } from './excerpt.js'
import { HTML_QUERY, htmlAnswer } from './html.js'
import type { LivePreview, RenderPreview, SoftError, TemplateDetail } from './types.js'

/**
 * Template previews for the inbox (and anyone styling templates): the catalog with fixture
 * cases, and renders by slug with a fixture case or posted variables. Previews never store
 * anything and, unlike POST /messages, render even when variables are missing (reported).
 */

const SLUG = pathParam(
  'A template slug: letters, digits, "-", "_" and "."; 1 to 128 characters; not "." or "..".',
  v.pipe(
    v.string(),
    rule(
      'invalid_value',
      isValidSlug,
      (issue) => `${shown(issue.input)} is not a template slug: use ${SLUG_HINT}.`,
    ),
    v.metadata({ pattern: SLUG_PATTERN.source }),
    v.examples(['welcome']),
  ),
  { errors: [[400, 'invalid_slug']] },
)

export const CASE_QUERY = {
  case: patternParam(
    SLUG_PATTERN,
    `a fixture case name (${SLUG_HINT})`,
    'A fixture case (`default` is `fixtures/<slug>.json`); absent: the first case, else the front-matter examples.',
    { examples: ['default'] },
  ),
}
const SOFT_QUERY = {
  soft: enumParam(
    ['0', '1'],
    '`1`: a template that cannot render answers 200 `{ ok: false, error }` instead of its 4xx, so a page showing the error inline logs no failed request.',
    '0',
  ),
}

export function templateOf(ctx: AppContext, slug: string): Template {
  const lookup = ctx.catalog.lookup(slug)
  if (lookup.ok) return lookup.template
  throw templateError(lookupFailure(slug, lookup), { notFound: 404 })
}

const caseInfo = (c: FixtureCase) => ({ name: c.name, ...(c.error ? { error: c.error } : {}) })

/** Variables for a preview: a named fixture case, else the first case, else front-matter examples. */
export function previewVariables(
  ctx: AppContext,
  template: Template,
  caseName?: string | null,
): Record<string, unknown> {
  const cases = ctx.catalog.fixtures(template.slug)
  if (caseName) {
    const found = cases.find((c) => c.name === caseName)
    if (!found)
      throw apiError(
        404,
        'fixture_not_found',
        `The template "${template.slug}" has no fixture case "${caseName}"; it has ${cases.map((c) => `"${c.name}"`).join(', ') || 'none'}.`,
      )
    if (!found.variables)
      throw apiError(
        422,
        'fixture_invalid',
        `The fixture ${relative(ctx.catalog.fixturesDir, found.file)} is not usable: ${found.error}.`,
      )
    return found.variables
  }
  const first = cases.find((c) => c.variables)
  return first?.variables ?? exampleVariables(template)
}

/**
 * With `?soft=1` a preview that cannot render answers 200 `{ ok: false, error }` instead of a
 * 4xx: a page showing the error inline then logs no failed request in the browser console. The
 * error's places (file, line, column) come with the lines of the file around them.
 */
async function soft<T extends object>(
  ctx: AppContext,
  isSoft: boolean,
  render: () => T | Promise<T>,
): Promise<({ ok: true } & T) | { ok: false; error: SoftFailure }> {
  if (!isSoft) return { ok: true, ...(await render()) }
  try {
    return { ok: true, ...(await render()) }
  } catch (error) {
    const data = (error as { data?: { code?: string; details?: unknown[] } }).data
    // What the template or its case did is answered softly; anything else stays an error.
    if (!isRenderFailure(data?.code)) throw error
    return {
      ok: false,
      error: {
        code: data.code,
        message: (error as Error).message,
        details: await withExcerpts(ctx.catalog.templatesDir, data.details ?? []),
      },
    }
  }
}

export function preview(
  ctx: AppContext,
  template: Template,
  variables: Record<string, unknown>,
): RenderPreview {
  // Lenient: a preview shows what renders and lists what is missing, instead of refusing.
  const outcome = renderMessage(ctx.catalog, template.slug, variables, { lenient: true })
  if (!outcome.ok) throw templateError(outcome.failure, { notFound: 404 })
  const { rendered } = outcome
  return {
    slug: template.slug,
    html: rendered.html,
    text: rendered.text,
    warnings: rendered.warnings,
    missing: missingVariables(template, variables),
    variables,
  }
}

/**
 * Starting values for a variables editor when a template has no fixture: front-matter
 * examples, then every required path the analysis found, as a placeholder string, and a loop as
 * an array of one object with the fields its body reads (`stories: [{ title: "<stories[].title>" }]`).
 * A name read only through `default` (a layout's `{{ preheader | default: "" }}`) is left out:
 * its default is what a send without it gets, and an empty value would only hide that.
 */
export function variableSkeleton(template: Template): Record<string, unknown> {
  const skeleton = exampleVariables(template)
  for (const path of [...template.requiredPaths, ...template.itemPaths]) placeholder(skeleton, path)
  for (const name of template.variables)
    if (!Object.hasOwn(skeleton, name) && !onlyDefaulted(template, name)) skeleton[name] = ''
  return skeleton
}

/**
 * Whether every use of `name` passes through `default` and front matter does not declare it.
 *
 * @example onlyDefaulted(template, 'preheader') // true for a layout's {{ preheader | default: "" }}
 */
export function onlyDefaulted(template: Template, name: string): boolean {
  const under = (path: string) =>
    path === name || path.startsWith(`${name}.`) || path.startsWith(`${name}[`)
  return (
    template.declared[name] === undefined &&
    !template.requiredPaths.some(under) &&
    !template.itemPaths.some(under)
  )
}

/**
 * Sets `<path>` at `path` where nothing is set yet: `a.b` goes through objects, `a[]` through the
 * first item of an array. What is in the way (a placeholder string) gives way to the structure.
 */
function placeholder(root: Record<string, unknown>, path: string): void {
  const steps = path.replaceAll('[]', '.[]').split('.')
  let node: Record<string | number, unknown> = root
  steps.forEach((step, i) => {
    const key = step === '[]' ? 0 : step
    const last = i === steps.length - 1
    const existing = Object.hasOwn(node, key) ? node[key] : undefined
    if (last) {
      if (existing === undefined) node[key] = `<${path}>`
      return
    }
    const wantsArray = steps[i + 1] === '[]'
    if (
      wantsArray
        ? !Array.isArray(existing)
        : typeof existing !== 'object' || existing === null || Array.isArray(existing)
    )
      node[key] = wantsArray ? [] : {}
    node = node[key] as Record<string | number, unknown>
  })
}

const VARIABLES = jsonObject({
  description: "Values for the template's variables; any JSON.",
  examples: [{ name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' }],
})
export const VARIABLES_BODY = {
  description: 'Variables to render with.',
  schema: object(
    { variables: optional(VARIABLES, {}) },
    {
      description:
        'Variables to render with; absent: none (each missing one is listed in `missing`).',
    },
  ),
}

const FIXTURE_CASE = component(
  'FixtureCase',
  v.pipe(
    v.object({
      name: described(
        v.string(),
        '`default` for fixtures/<slug>.json, else the file name in fixtures/<slug>/.',
      ),
      error: v.optional(described(v.string(), 'Present when the file is not a JSON object.')),
    }),
    v.description('A fixture case of a template.'),
  ),
)

const RENDER_ENTRIES = {
  html: v.string(),
  text: v.string(),
  warnings: v.array(WARNING),
  missing: list(v.string(), 'Dotted paths the template needs that the variables lack.'),
}

const PREVIEW = component(
  'Preview',
  v.pipe(
    v.object({
      ok: v.literal(true),
      slug: TEMPLATE_SUMMARY_ENTRIES.slug,
      ...RENDER_ENTRIES,
      variables: freeObject('The variables it rendered with.'),
    }),
    v.description('A render for a preview: missing variables render empty and are listed.'),
  ),
)

const RENDER_FAILURES = [
  'template_not_found',
  'template_invalid',
  'fixture_not_found',
  'fixture_invalid',
  'render_failed',
] as const
type RenderFailureCode = (typeof RENDER_FAILURES)[number]
/** A soft answer's error: the contract's error body, without the wrapper. */
type SoftFailure = SoftError & { code: RenderFailureCode }
const isRenderFailure = (code: unknown): code is RenderFailureCode =>
  RENDER_FAILURES.includes(code as RenderFailureCode)
const SOFT_FAILURE = component(
  'PreviewFailure',
  v.pipe(
    v.object({
      ok: v.literal(false),
      error: v.union(RENDER_FAILURES.map((code) => ERROR_OBJECTS.get(code)!)),
    }),
    v.description(
      'With `?soft=1`: why the template did not render, as the error would have said it.',
    ),
  ),
)
const RENDERED = v.union([PREVIEW, SOFT_FAILURE])

const TEMPLATE_ERRORS = [
  [404, 'template_not_found'],
  [422, 'template_invalid'],
] as const
export const CASE_ERRORS = [
  [404, 'fixture_not_found'],
  [422, 'fixture_invalid'],
] as const
export const RENDER_ERRORS = [...TEMPLATE_ERRORS, [422, 'render_failed']] as const

export const one = { slug: SLUG }

const fixtureBody = object(
  {
    name: string({
      pattern: FIXTURE_CASE_PATTERN,
      not: ['default'],
      patternHint: `a case name (${SLUG_HINT}; not starting with "."), not "default"`,
      description:
        'The case name: the file is fixtures/<slug>/<name>.json. Not "default" (that is fixtures/<slug>.json).',
      examples: ['big-order'],
    }),
    variables: VARIABLES,
    overwrite: optional(
      boolean({ description: 'Replace a case of that name (else 409 fixture_exists).' }),
      false,
    ),
  },
  { description: 'A fixture case to save.' },
)

const previewFields = object(
  {
    template: string({
      pattern: SLUG_PATTERN,
      patternHint: SLUG_HINT,
      description: "The template's slug.",
      examples: ['welcome'],
    }),
    variables: optional(VARIABLES),
    case: optional(
      string({
        pattern: SLUG_PATTERN,
        patternHint: "the name of one of the template's fixture cases",
        description: 'Render with this fixture case instead of posted variables (not both).',
        examples: ['default'],
      }),
    ),
  },
  {
    description:
      'What to render: the template with `variables` (absent: none), or with a fixture `case`; not both.',
  },
)
const previewBody = v.pipe(
  previewFields,
  relation<v.InferOutput<typeof previewFields>>(
    'invalid_value',
    ['variables', 'case'],
    'case',
    (body) => body.variables === undefined || body.case === undefined,
    'Send variables or a fixture case, not both.',
  ),
  // The rule above, for the document.
  v.metadata({ not: { required: ['variables', 'case'] } }),
)

const LIVE_PREVIEW = component(
  'LivePreview',
  v.object({
    ok: v.literal(true),
    id: v.pipe(v.string(), v.regex(/^pv_[0-9a-z]+_[0-9a-z]+$/)),
    url: described(v.string(), 'Where the HTML is served: `/_sandbox/api/previews/<id>`.'),
    ...RENDER_ENTRIES,
    variables: freeObject("The variables it rendered with (the case's, when one was named)."),
    checks: EMAIL_CHECKS,
  }),
)

const TEMPLATE_DETAIL = component(
  'TemplateDetail',
  v.object({
    slug: TEMPLATE_SUMMARY_ENTRIES.slug,
    description: TEMPLATE_SUMMARY_ENTRIES.description,
    body: described(v.string(), 'The source, front matter excluded.'),
    source: described(
      v.string(),
      'The whole file as it is on disk, front matter included: its line numbers are those errors give.',
    ),
    variables: TEMPLATE_SUMMARY_ENTRIES.variables,
    required: list(v.string(), 'Dotted paths a send must supply.'),
    declared: described(
      v.record(
        v.string(),
        v.object({
          description: v.optional(v.string()),
          example: v.optional(described(v.unknown(), 'Any JSON.')),
          required: v.optional(v.boolean()),
        }),
      ),
      "The front matter's `variables`, by name.",
    ),
    updatedAt: TEMPLATE_SUMMARY_ENTRIES.updatedAt,
    fixtures: v.array(FIXTURE_CASE),
    skeleton: freeObject('Starting values for a variables editor.'),
  }),
)

export const templatePreviewOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates',
    operationId: 'inspectTemplates',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'Every template with its fixture cases.',
    description: "Like GET /templates, without a token, and with each template's fixture cases.",
    success: {
      status: 200,
      description: 'The templates, by slug.',
      schema: v.object({
        templates: v.array(
          v.object({ ...TEMPLATE_SUMMARY_ENTRIES, fixtures: v.array(FIXTURE_CASE) }),
        ),
      }),
    },
    handler: ({ ctx }) => ({
      templates: ctx.catalog
        .list()
        .map((t) => ({ ...t, fixtures: ctx.catalog.fixtures(t.slug).map(caseInfo) })),
    }),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates/:slug',
    operationId: 'inspectTemplate',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary:
      'A template in full: source, variables, required paths, declared variables, fixture cases.',
    description:
      '`skeleton` holds starting values for a variables editor: the front-matter examples, then a placeholder for every other path the template reads.',
    params: one,
    success: {
      status: 200,
      description: 'The template.',
      schema: TEMPLATE_DETAIL,
    },
    errors: TEMPLATE_ERRORS,
    async handler({ ctx, params }): Promise<TemplateDetail> {
      const template = templateOf(ctx, params.slug)
      return {
        slug: template.slug,
        description: template.description,
        body: template.body,
        // The file as it is (front matter too), for a source view whose lines match errors'.
        source: await readFile(template.file, 'utf8').catch(() => template.body),
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
    security: SHARED_ACCESS,
    summary: 'Render with a fixture case (or the front-matter examples).',
    description: 'Missing variables render empty and are listed in `missing`; nothing is stored.',
    params: one,
    query: { ...CASE_QUERY, ...SOFT_QUERY },
    success: {
      status: 200,
      description: 'The render (with `?soft=1`, or why it failed).',
      schema: RENDERED,
    },
    errors: [...RENDER_ERRORS, ...CASE_ERRORS],
    examples: {
      receipt: {
        summary: 'The order receipt with its big-order case',
        params: { slug: 'order-receipt' },
        query: { case: 'big-order' },
      },
    },
    handler: ({ ctx, params, query }) =>
      soft(ctx, query.soft === '1', () => {
        const template = templateOf(ctx, params.slug)
        return preview(ctx, template, previewVariables(ctx, template, query.case))
      }),
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/templates/:slug/render',
    operationId: 'renderVariables',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'Render with the posted variables.',
    description: 'Missing variables render empty and are listed in `missing`; nothing is stored.',
    params: one,
    query: SOFT_QUERY,
    body: VARIABLES_BODY,
    success: {
      status: 200,
      description: 'The render (with `?soft=1`, or why it failed).',
      schema: RENDERED,
    },
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
          warnings: [
            {
              code: 'missing_variable',
              variable: 'dashboardUrl',
              message: 'templateVariables.dashboardUrl is missing; it rendered empty.',
            },
          ],
          missing: ['dashboardUrl'],
          variables: { name: 'Ada' },
        },
      },
    },
    handler: ({ ctx, params, query, body }) =>
      soft(ctx, query.soft === '1', () =>
        preview(ctx, templateOf(ctx, params.slug), body.variables ?? {}),
      ),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates/:slug/checks',
    operationId: 'checkFixture',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary:
      'Email checks of the template rendered with a fixture case (or the front-matter examples).',
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
    security: SHARED_ACCESS,
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
    security: SHARED_ACCESS,
    summary: 'The template rendered with a fixture case, as sandboxed HTML for an iframe.',
    description: "Served like a message's HTML (sandboxing CSP, `?images=`, `?scheme=`).",
    params: one,
    query: { ...CASE_QUERY, ...HTML_QUERY, ...CACHE_QUERY },
    success: { status: 200, description: 'The HTML.', contentType: 'text/html' },
    errors: [...RENDER_ERRORS, ...CASE_ERRORS],
    handler({ ctx, params, query }) {
      const template = templateOf(ctx, params.slug)
      return htmlAnswer(
        preview(ctx, template, previewVariables(ctx, template, query.case)).html,
        query,
      )
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/previews',
    operationId: 'createPreview',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary:
      'Render a template and keep the HTML for a sandboxed frame; answer everything an editor shows.',
    description:
      'The newest 50 are kept in memory; `GET url` serves one. The answer carries the HTML, the text, warnings, missing variables and the email checks too, so a variables editor needs one request per edit (the inbox uses this; the page never needs inline HTML). With `?soft=1`, a template that cannot render answers `{ ok: false, error }` (its error, with an `excerpt` of the lines around each place and its `path` from the working directory, as `sendbox check` prints it) in the same 201 instead of its 4xx.',
    query: { soft: SOFT_QUERY.soft },
    body: { schema: previewBody, description: 'What to render.' },
    success: {
      status: 201,
      description: 'Rendered and kept (with `?soft=1`, or why it failed).',
      schema: v.union([LIVE_PREVIEW, SOFT_FAILURE]),
    },
    errors: [...RENDER_ERRORS, ...CASE_ERRORS],
    examples: {
      welcome: {
        summary: 'A live preview of the welcome template',
        body: {
          template: 'welcome',
          variables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
        },
      },
    },
    handler({ ctx, body, query }) {
      return soft(ctx, query.soft === '1', async (): Promise<LivePreview> => {
        const template = templateOf(ctx, body.template)
        const chosen =
          body.case === undefined
            ? (body.variables ?? {})
            : previewVariables(ctx, template, body.case)
        const { html, text, warnings, missing, variables } = preview(ctx, template, chosen)
        const id = ctx.previews.add(html)
        return {
          id,
          url: `/_sandbox/api/previews/${id}`,
          html,
          text,
          warnings,
          missing,
          variables,
          checks: await checkEmail({ html, text }),
        }
      })
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/previews/:id',
    operationId: 'getPreview',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: "A kept preview's HTML, sandboxed.",
    description: "Served like a message's HTML (sandboxing CSP, `?images=`, `?scheme=`).",
    params: {
      id: pathParam(
        'A preview id, as POST /_sandbox/api/previews answered it.',
        v.pipe(
          v.string(),
          noNul,
          v.metadata({ pattern: '^pv_[0-9a-z]+_[0-9a-z]+$' }),
          v.examples(['pv_1_mifq2x3k']),
        ),
      ),
    },
    query: HTML_QUERY,
    success: { status: 200, description: 'The HTML.', contentType: 'text/html' },
    errors: [[404, 'preview_not_found']],
    handler({ ctx, params, query }) {
      const html = ctx.previews.get(params.id)
      if (html === undefined)
        throw apiError(
          404,
          'preview_not_found',
          'That preview has expired (only the newest 50 are kept); render it again.',
        )
      return htmlAnswer(html, query)
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/templates/:slug/fixtures',
    operationId: 'saveFixtureCase',
    tag: 'inspector',
    security: ADMIN_ACCESS,
    summary: 'Save variables as a fixture case, fixtures/<slug>/<name>.json.',
    description:
      'The catalog picks the new case up as soon as it sees the file. A name that is taken is 409 fixture_exists unless `overwrite` is true.',
    params: one,
    body: { schema: fixtureBody, description: 'The case.' },
    success: {
      status: 201,
      description: 'Saved.',
      schema: v.object({ name: v.string(), file: described(v.string(), 'The file written.') }),
    },
    errors: [
      ...TEMPLATE_ERRORS,
      [409, 'fixture_exists'],
      [413, 'fixture_too_large'],
      [403, 'fixture_outside'],
    ],
    async handler({ ctx, params, body }) {
      const template = templateOf(ctx, params.slug)
      let file: string
      try {
        file = await writeFixtureCase(
          ctx.catalog.fixturesDir,
          template.slug,
          body.name,
          body.variables,
          { overwrite: body.overwrite === true },
        )
      } catch (error) {
        if (!(error instanceof FixtureWriteError)) throw error
        const status = (
          { fixture_exists: 409, fixture_too_large: 413, fixture_outside: 403 } as const
        )[error.code]
        throw apiError(status, error.code, error.message)
      }
      return { name: body.name, file }
    },
  }),
]
