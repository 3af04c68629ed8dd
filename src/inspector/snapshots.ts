import * as v from 'valibot'
import type { CaseError } from '../core/snapshot-types.js'
import { SNAPSHOT_NAME_PATTERN, VISUAL_VARIANTS } from '../templates/snapshot-files.js'
import { count } from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { SHARED_ACCESS, ADMIN_ACCESS } from '../http/viewer.js'
import { apiError } from '../http/errors.js'
import { enumParam, pathParam } from '../http/params.js'
import { shownPath } from '../lib/paths.js'
import { component, described, rule, shown } from '../lib/schema.js'
import { HTML_QUERY, htmlAnswer } from './html.js'
import type { SnapshotAccepted, SnapshotCase, SnapshotList, SnapshotsAccepted } from './types.js'

/**
 * Change review (docs/snapshots.md): every case's snapshot status, one case in full (both renders,
 * the diffs, the images of `sendbox check --visual`), the HTML of either side for a sandboxed
 * frame, accepting one case or all. The domain is the server's snapshot book
 * (src/core/snapshots.ts); these routes read it and map its outcomes to answers.
 */

const NAME_HINT = 'letters, digits, "-", "_" and "." (not first), 1 to 128 characters'
const isName = (name: string) => SNAPSHOT_NAME_PATTERN.test(name)

const TEMPLATE = pathParam(
  "A template's slug.",
  v.pipe(
    v.string(),
    rule(
      'invalid_value',
      isName,
      (issue) => `${shown(issue.input)} is not a template slug: use ${NAME_HINT}.`,
    ),
    v.metadata({ pattern: SNAPSHOT_NAME_PATTERN.source }),
    v.examples(['welcome']),
  ),
  { errors: [[400, 'invalid_slug']] },
)

const CASE = pathParam(
  'A fixture case of the template (`default` for fixtures/<slug>.json or the front-matter examples).',
  v.pipe(
    v.string(),
    rule(
      'invalid_value',
      isName,
      (issue) => `must be a case name: ${NAME_HINT} (got ${shown(issue.input, 100)})`,
    ),
    v.metadata({ pattern: SNAPSHOT_NAME_PATTERN.source }),
    v.examples(['default']),
  ),
)

const ONE = { template: TEMPLATE, case: CASE }

const STATUSES = ['same', 'changed', 'new', 'obsolete'] as const
const STATUS = described(
  v.picklist(STATUSES),
  '`same`: the render is the snapshot; `changed`: it differs (or no longer renders: see `error`); `new`: there is no snapshot yet; `obsolete`: a snapshot whose template or case is gone.',
)

const CASE_ERROR = component(
  'SnapshotCaseError',
  v.pipe(
    v.object({
      code: v.picklist([
        'template_not_found',
        'template_invalid',
        'missing_variables',
        'render_failed',
        'fixture_invalid',
      ]),
      message: v.string(),
    }),
    v.description('Why the case does not render now, as `sendbox check` names it.'),
  ),
)

const COUNTS = component(
  'SnapshotCounts',
  v.pipe(
    v.object({ same: count(), changed: count(), new: count(), obsolete: count() }),
    v.description('How many cases have each status.'),
  ),
)

const SUMMARY = component(
  'SnapshotSummary',
  v.pipe(
    v.object({
      template: v.pipe(v.string(), v.examples(['welcome'])),
      case: v.pipe(v.string(), v.examples(['default'])),
      status: STATUS,
      error: v.optional(CASE_ERROR),
    }),
    v.description('A case and the status of its snapshot.'),
  ),
)

const pair = <S extends v.GenericSchema>(side: S, description: string) =>
  v.pipe(v.object({ html: side, text: side }), v.description(description))

const VARIANTS = VISUAL_VARIANTS.map((variant) => variant.name)
const kinds = ['snapshot', 'current', 'diff'] as const

const IMAGE = component(
  'SnapshotImage',
  v.pipe(
    v.object({
      variant: v.picklist(VARIANTS),
      width: v.pipe(
        v.number(),
        v.integer(),
        v.metadata({ enum: [...new Set(VISUAL_VARIANTS.map((variant) => variant.width))] }),
      ),
      scheme: v.picklist(['light', 'dark']),
      snapshot: described(v.boolean(), 'The committed PNG exists.'),
      current: described(
        v.boolean(),
        'The last `--visual` run found a change and kept its screenshot.',
      ),
      diff: described(v.boolean(), 'The diff image of that change exists.'),
      urls: described(
        v.object(Object.fromEntries(kinds.map((kind) => [kind, v.optional(v.string())]))),
        'Where each image that exists is served (PNG).',
      ),
    }),
    v.description(
      'A screenshot of `sendbox check --visual`: which of its images exist, and where each is served.',
    ),
  ),
)

const DETAIL = component(
  'SnapshotDetail',
  v.pipe(
    v.object({
      template: v.string(),
      case: v.string(),
      status: STATUS,
      error: v.optional(CASE_ERROR),
      snapshot: pair(v.nullable(v.string()), 'The snapshot files (null: missing).'),
      current: described(
        v.nullable(pair(v.string(), 'The render now, as a snapshot stores it.')),
        'The render now, as a snapshot stores it; null when it does not render or the case is gone.',
      ),
      diff: pair(
        v.nullable(v.string()),
        'Unified diffs from the snapshot to the render now (null: no difference).',
      ),
      files: pair(v.string(), 'The snapshot files, from the working folder.'),
      html: described(
        v.object({ snapshot: v.string(), current: v.string() }),
        'Where either side is served as sandboxed HTML for a frame (`?scheme=`, `?images=` apply).',
      ),
      images: v.array(IMAGE),
    }),
    v.description('A case in full: its snapshot, its render now, the diffs, its images.'),
  ),
)

const ACCEPTED = component(
  'SnapshotAccepted',
  v.pipe(
    v.object({
      template: v.string(),
      case: v.string(),
      status: described(
        v.nullable(v.picklist(STATUSES)),
        '`same` once written; null for an obsolete snapshot, removed.',
      ),
      files: described(
        v.array(v.string()),
        'The files written (or removed), from the working folder.',
      ),
      counts: COUNTS,
    }),
    v.description('What accepting wrote or removed.'),
  ),
)

const CASE_REF = v.object({ template: v.string(), case: v.string() })

const base = (template: string, name: string) =>
  `/_sandbox/api/snapshots/${encodeURIComponent(template)}/${encodeURIComponent(name)}`

const notFound = (template: string, name: string) =>
  apiError(
    404,
    'snapshot_not_found',
    `There is no case "${name}" of the template "${template}", and no snapshot of it; GET /_sandbox/api/snapshots lists them.`,
  )

/** A case that does not render, as the error answer of an accept. */
function renderError(error: CaseError, template: string, name: string) {
  // The template went away between the lookup and the render: the case is gone.
  if (error.code === 'template_not_found') return notFound(template, name)
  return apiError(422, error.code, `${error.message} Fix it before accepting its render.`)
}

/** A write that the snapshot files refused (a symlink out of the folder) is a 403. */
async function guarded<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if ((error as { code?: string }).code === 'snapshot_outside')
      throw apiError(403, 'snapshot_outside', (error as Error).message)
    throw error
  }
}

export const snapshotOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/snapshots',
    operationId: 'listSnapshots',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: "Every case's snapshot status.",
    description:
      'Each template with each fixture case (or `default`), and each snapshot whose case is gone, with its status; `counts` by status; `folder` is the snapshot folder (`--snapshots`). The event stream says each change as a `snapshot` event.',
    success: {
      status: 200,
      description: 'The cases.',
      schema: v.object({
        snapshots: v.array(SUMMARY),
        counts: COUNTS,
        folder: described(v.string(), 'The snapshot folder, from the working folder.'),
      }),
    },
    async handler({ ctx }): Promise<SnapshotList> {
      const { snapshots, counts } = await ctx.snapshots.list()
      return { snapshots, counts, folder: shownPath(ctx.snapshots.dir) }
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/snapshots/accept',
    operationId: 'acceptAllSnapshots',
    tag: 'inspector',
    security: ADMIN_ACCESS,
    summary: 'Accept every changed and new case: write its render as its snapshot.',
    description:
      'Cases that do not render are left as they are and listed in `skipped`; obsolete snapshots are not removed (accept each one, or run `sendbox check -u`).',
    success: {
      status: 200,
      description: 'Accepted.',
      schema: v.object({
        accepted: v.array(CASE_REF),
        skipped: v.array(v.object({ ...CASE_REF.entries, error: CASE_ERROR })),
        counts: COUNTS,
      }),
    },
    errors: [[403, 'snapshot_outside']],
    async handler({ ctx }): Promise<SnapshotsAccepted> {
      const result = await guarded(() => ctx.snapshots.acceptAll())
      return { ...result, counts: (await ctx.snapshots.list()).counts }
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/snapshots/:template/:case',
    operationId: 'getSnapshot',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'A case in full: its snapshot, its render now, the diffs and images.',
    description:
      'Both sides as a snapshot stores them (normalised HTML, and text), unified diffs from the snapshot to the render, and the screenshots of `sendbox check --visual` when there are any.',
    params: ONE,
    success: { status: 200, description: 'The case.', schema: DETAIL },
    errors: [[404, 'snapshot_not_found']],
    async handler({ ctx, params }): Promise<SnapshotCase> {
      const detail = await ctx.snapshots.detail(params.template, params.case)
      if (!detail) throw notFound(params.template, params.case)
      const at = base(params.template, params.case)
      return {
        ...detail,
        html: { snapshot: `${at}/html?version=snapshot`, current: `${at}/html?version=current` },
        images: detail.images.map((image) => ({
          ...image,
          urls: Object.fromEntries(
            (['snapshot', 'current', 'diff'] as const)
              .filter((kind) => image[kind])
              .map((kind) => [kind, `${at}/images/${image.variant}?image=${kind}`]),
          ),
        })),
      }
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/snapshots/:template/:case/html',
    operationId: 'getSnapshotHtml',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'One side of a case as sandboxed HTML, for a frame: the snapshot, or the render now.',
    description: "Served like a message's HTML (sandboxing CSP, `?images=`, `?scheme=`).",
    params: ONE,
    query: {
      version: enumParam(
        ['snapshot', 'current'],
        '`snapshot`: the committed snapshot; `current`: the render now.',
        'current',
      ),
      ...HTML_QUERY,
    },
    success: { status: 200, description: 'The HTML.', contentType: 'text/html' },
    errors: [[404, 'snapshot_not_found']],
    async handler({ ctx, params, query }) {
      const detail = await ctx.snapshots.detail(params.template, params.case)
      const html = query.version === 'snapshot' ? detail?.snapshot.html : detail?.current?.html
      if (html === undefined || html === null)
        throw apiError(
          404,
          'snapshot_not_found',
          detail
            ? `The case "${params.case}" of "${params.template}" has no ${query.version === 'snapshot' ? 'snapshot' : 'render now'}.`
            : notFound(params.template, params.case).message,
        )
      return htmlAnswer(html, query)
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/snapshots/:template/:case/images/:variant',
    operationId: 'getSnapshotImage',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'A screenshot of a case (PNG): the snapshot, the current one, or their diff.',
    description:
      'Written by `sendbox check --visual`: the snapshot beside the HTML snapshot, the current screenshot and the diff image of a visual change under the folder `.diff/`.',
    params: {
      ...ONE,
      variant: pathParam(
        'The width and colour scheme.',
        v.picklist(
          VARIANTS,
          (issue) => `must be one of ${VARIANTS.join(', ')} (got ${shown(issue.input, 100)})`,
        ),
      ),
    },
    query: {
      image: enumParam(
        ['snapshot', 'current', 'diff'],
        '`snapshot`: the committed PNG; `current` and `diff`: the screenshot and the diff image of the last visual change found.',
        'snapshot',
      ),
    },
    success: { status: 200, description: 'The PNG.', contentType: 'image/png' },
    errors: [[404, 'image_not_found']],
    async handler({ ctx, params, query }) {
      const kind = query.image ?? 'snapshot'
      const png = await ctx.snapshots.image(params.template, params.case, params.variant, kind)
      if (!png)
        throw apiError(
          404,
          'image_not_found',
          `There is no ${kind} image ${params.variant} of "${params.template}" (case "${params.case}"); sendbox check --visual makes them.`,
        )
      return new Response(new Uint8Array(png), {
        headers: {
          'content-type': 'image/png',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        },
      })
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/snapshots/:template/:case/accept',
    operationId: 'acceptSnapshot',
    tag: 'inspector',
    security: ADMIN_ACCESS,
    summary: 'Accept a case: write its render now as its snapshot (remove an obsolete one).',
    description:
      'The files are written owner-only, atomically, inside the snapshot folder only. A case that does not render is refused with its error.',
    params: ONE,
    success: { status: 200, description: 'Accepted.', schema: ACCEPTED },
    errors: [
      [404, 'snapshot_not_found'],
      [403, 'snapshot_outside'],
      [422, 'template_invalid'],
      [422, 'missing_variables'],
      [422, 'render_failed'],
      [422, 'fixture_invalid'],
    ],
    async handler({ ctx, params }): Promise<SnapshotAccepted> {
      const outcome = await guarded(() => ctx.snapshots.accept(params.template, params.case))
      if (!outcome.ok) {
        if (outcome.reason === 'not_found') throw notFound(params.template, params.case)
        throw renderError(outcome.error, params.template, params.case)
      }
      return { ...outcome.accepted, counts: (await ctx.snapshots.list()).counts }
    },
  }),
]
