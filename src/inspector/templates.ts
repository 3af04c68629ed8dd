import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { getRouterParam, type H3, type H3Event } from 'h3'
import { parseJsonBody, readBodyText } from '../http/body.js'
import { checkEmail } from '../checks/index.js'
import { apiError } from '../http/errors.js'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'
import { exampleVariables, isValidSlug, lookupFailure, missingVariables, renderMessage } from '../templates/index.js'
import { isPlainObject } from '../lib/json.js'
import { templateError } from '../http/template-errors.js'
import type { FixtureCase, Template } from '../templates/types.js'
import { withExcerpts } from './excerpt.js'
import { htmlAnswer } from './html.js'
import type { LivePreview, RenderPreview, Soft, TemplateDetail, TemplateListItem } from './types.js'

/**
 * Template previews for the inbox (and anyone styling templates): the catalog with fixture
 * cases, and renders by slug with a fixture case or posted variables. Previews never store
 * anything and, unlike POST /messages, render even when variables are missing (reported).
 */

function slugOf(event: H3Event): string {
  return getRouterParam(event, 'slug', { decode: true }) ?? ''
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
    if (!found.variables) throw apiError(422, 'fixture_invalid', `The fixture ${found.file} is not usable: ${found.error}.`)
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
async function softly<T extends object>(event: H3Event, ctx: AppContext, render: () => T | Promise<T>): Promise<Soft<T>> {
  if (event.url.searchParams.get('soft') !== '1') return { ok: true, ...(await render()) }
  try {
    return { ok: true, ...(await render()) }
  } catch (error) {
    const data = (error as { data?: { code?: string; details?: unknown[] } }).data
    if (!data?.code) throw error
    return { ok: false, error: { code: data.code, message: (error as Error).message, details: await withExcerpts(ctx.catalog.templatesDir, data.details ?? []) } }
  }
}

/** A JSON body's fields: anything but an object reads as no fields (each route says what is missing). */
async function bodyFields(event: H3Event, ctx: AppContext): Promise<Record<string, unknown>> {
  const body = parseJsonBody(await readBodyText(event, ctx.config.maxBody))
  return isPlainObject(body) ? body : {}
}

const VARIABLES_NOT_OBJECT = { field: 'variables', code: 'invalid_type', message: 'variables must be an object.' }

/** `{ "variables": { … } }` from a POST body (absent: none). */
async function postedVariables(event: H3Event, ctx: AppContext): Promise<Record<string, unknown>> {
  const { variables } = await bodyFields(event, ctx)
  if (variables !== undefined && !isPlainObject(variables)) throw apiError(422, 'validation_failed', 'variables must be an object.', { details: [VARIABLES_NOT_OBJECT] })
  return variables ?? {}
}

function preview(ctx: AppContext, template: Template, variables: Record<string, unknown>): RenderPreview {
  // Lenient: a preview shows what renders and lists what is missing, instead of refusing.
  const outcome = renderMessage(ctx.catalog, template.slug, variables, { lenient: true })
  if (!outcome.ok) throw templateError(outcome.failure, { notFound: 404 })
  const { rendered } = outcome
  return { slug: template.slug, html: rendered.html, text: rendered.text, warnings: rendered.warnings, missing: missingVariables(template, variables), variables }
}

export function registerTemplatePreviewRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/templates', {
    GET: (): { templates: TemplateListItem[] } => ({
      templates: ctx.catalog.list().map((t) => ({ ...t, fixtures: ctx.catalog.fixtures(t.slug).map(caseInfo) })),
    }),
  })
  route(app, '/_sandbox/api/templates/:slug', {
    GET: async (event): Promise<TemplateDetail> => {
      const template = templateOf(ctx, slugOf(event))
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
  })
  route(app, '/_sandbox/api/templates/:slug/render', {
    GET: (event) =>
      softly(event, ctx, () => {
        const template = templateOf(ctx, slugOf(event))
        return preview(ctx, template, previewVariables(ctx, template, event.url.searchParams.get('case')))
      }),
    POST: async (event) => {
      const variables = await postedVariables(event, ctx)
      return softly(event, ctx, () => preview(ctx, templateOf(ctx, slugOf(event)), variables))
    },
  })
  route(app, '/_sandbox/api/templates/:slug/checks', {
    GET: async (event) => {
      const template = templateOf(ctx, slugOf(event))
      const { html, text } = preview(ctx, template, previewVariables(ctx, template, event.url.searchParams.get('case')))
      return checkEmail({ html, text })
    },
    POST: async (event) => {
      const template = templateOf(ctx, slugOf(event))
      const { html, text } = preview(ctx, template, await postedVariables(event, ctx))
      return checkEmail({ html, text })
    },
  })
  route(app, '/_sandbox/api/templates/:slug/preview', {
    GET: (event) => {
      const template = templateOf(ctx, slugOf(event))
      const { html } = preview(ctx, template, previewVariables(ctx, template, event.url.searchParams.get('case')))
      return htmlAnswer(event, html)
    },
  })
  registerLivePreviewRoutes(app, ctx)
}

/**
 * Starting values for a variables editor when a template has no fixture: front-matter
 * examples, then every required path the analysis found, as a placeholder string, and a loop as
 * an array of one object with the fields its body reads (`stories: [{ title: "<stories[].title>" }]`).
 */
export function variableSkeleton(template: Template): Record<string, unknown> {
  const skeleton = exampleVariables(template)
  for (const path of [...template.requiredPaths, ...template.itemPaths]) placeholder(skeleton, path)
  for (const name of template.variables) if (!Object.hasOwn(skeleton, name)) skeleton[name] = ''
  return skeleton
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
    if (wantsArray ? !Array.isArray(existing) : typeof existing !== 'object' || existing === null || Array.isArray(existing)) node[key] = wantsArray ? [] : {}
    node = node[key] as Record<string | number, unknown>
  })
}

const MAX_LIVE_PREVIEWS = 50

/**
 * Live previews for the variables editor: POST variables (or name a fixture case), get an id,
 * point a sandboxed frame at it; the answer also carries everything else an editor shows (the
 * HTML, the text, warnings, missing variables, the email checks), so one request per edit is
 * enough. Kept in memory (the newest 50), so the inbox page never needs inline HTML.
 */
function registerLivePreviewRoutes(app: H3, ctx: AppContext): void {
  const previews = new Map<string, string>()
  let seq = 0
  route(app, '/_sandbox/api/previews', {
    POST: async (event) => {
      const { template: slug, variables, case: caseName } = await bodyFields(event, ctx)
      const problems = [
        ...(typeof slug !== 'string' || !slug ? [{ field: 'template', code: 'required', message: 'template is required.' }] : []),
        ...(variables !== undefined && !isPlainObject(variables) ? [VARIABLES_NOT_OBJECT] : []),
        ...(caseName !== undefined && (typeof caseName !== 'string' || !caseName) ? [{ field: 'case', code: 'invalid_type', message: 'case must be the name of a fixture case.' }] : []),
        ...(caseName !== undefined && variables !== undefined ? [{ field: 'case', code: 'invalid_value', message: 'Send variables or a fixture case, not both.' }] : []),
      ]
      if (problems.length) throw apiError(422, 'validation_failed', 'A preview takes { "template": "<slug>", "variables": { … } } or { "template": "<slug>", "case": "<name>" }.', { details: problems })
      const answer = await softly(event, ctx, async (): Promise<LivePreview> => {
        const template = templateOf(ctx, slug as string)
        const chosen = caseName === undefined ? ((variables as Record<string, unknown> | undefined) ?? {}) : previewVariables(ctx, template, caseName as string)
        const { html, text, warnings, missing, variables: used } = preview(ctx, template, chosen)
        const id = `pv_${(++seq).toString(36)}_${Date.now().toString(36)}`
        previews.set(id, html)
        if (previews.size > MAX_LIVE_PREVIEWS) previews.delete(previews.keys().next().value!)
        return { id, url: `/_sandbox/api/previews/${id}`, html, text, warnings, missing, variables: used, checks: await checkEmail({ html, text }) }
      })
      if (answer.ok) event.res.status = 201
      return answer
    },
  })
  route(app, '/_sandbox/api/previews/:id', {
    GET: (event) => {
      const html = previews.get(getRouterParam(event, 'id') ?? '')
      if (html === undefined) throw apiError(404, 'preview_not_found', 'That preview has expired (only the newest 50 are kept); render it again.')
      return htmlAnswer(event, html)
    },
  })
  route(app, '/_sandbox/api/templates/:slug/fixtures', {
    POST: async (event) => {
      const template = templateOf(ctx, slugOf(event))
      const body = await bodyFields(event, ctx)
      const { name, variables } = body
      const problems = [
        ...(typeof name !== 'string' || !isValidSlug(name) || name === 'default' ? [{ field: 'name', code: 'invalid_value', message: 'name must be a case name: letters, digits, "-", "_" and "." (not "default").' }] : []),
        ...(!isPlainObject(variables) ? [VARIABLES_NOT_OBJECT] : []),
      ]
      if (problems.length) throw apiError(422, 'validation_failed', 'The fixture case is not valid.', { details: problems })
      const file = join(ctx.catalog.fixturesDir, template.slug, `${name as string}.json`)
      await mkdir(dirname(file), { recursive: true })
      try {
        await writeFile(file, `${JSON.stringify(variables, null, 2)}\n`, { flag: body.overwrite === true ? 'w' : 'wx' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw apiError(409, 'fixture_exists', `The case "${name as string}" already exists (${file}); pick another name or send "overwrite": true.`)
        throw error
      }
      event.res.status = 201
      return { name, file }
    },
  })
}
