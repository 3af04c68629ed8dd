/**
 * The cases snapshots are kept for (docs/snapshots.md) and what each renders to: every template with
 * each of its fixture cases, or the case `default` from its front-matter examples when it has
 * none; rendered as a send would be (missing variables fail), on the snapshot clock.
 */
import {
  describeFailure,
  exampleVariables,
  renderMessage,
  type RenderClock,
  type TemplateCatalog,
} from '../templates/index.js'
import { normalizeHtml, normalizeText } from './snapshot-format.js'
import type { CaseError, CaseRef, SnapshotStatus, SnapshotText } from './snapshot-types.js'

export type { CaseError, CaseRef, SnapshotStatus, SnapshotText }

/** A case rendered for its snapshot: the normalised bytes and the HTML as sent. */
export type CaseRender =
  | { ok: true; snapshot: SnapshotText; html: string }
  | { ok: false; error: CaseError }

/** The snapshot's key of a case. */
export const caseKey = (template: string, caseName: string) => `${template}/${caseName}`

/**
 * The case names of a template: its fixture cases, else `default` (front-matter examples).
 *
 * @example caseNames(catalog, 'order-receipt') // ['default', 'big-order']
 */
export function caseNames(catalog: TemplateCatalog, slug: string): string[] {
  const fixtures = catalog.fixtures(slug)
  return fixtures.length > 0 ? fixtures.map((f) => f.name) : ['default']
}

/** Every case there is, template by template. */
export function allCases(catalog: TemplateCatalog): CaseRef[] {
  return catalog
    .list()
    .flatMap(({ slug }) => caseNames(catalog, slug).map((name) => ({ template: slug, case: name })))
}

/**
 * A render's snapshot bytes.
 *
 * @example snapshotOf({ html: '<p>Hi</p>', text: 'Hi' }) // { html: '<p>Hi</p>\n', text: 'Hi\n' }
 */
export function snapshotOf(rendered: { html: string; text: string }): SnapshotText {
  return { html: normalizeHtml(rendered.html), text: normalizeText(rendered.text) }
}

/**
 * Renders one case for its snapshot.
 *
 * @example
 * const render = renderCase(catalog, 'welcome', 'default', snapshotClock())
 * if (render.ok) await writeSnapshot(dir, 'welcome', 'default', render.snapshot)
 */
export function renderCase(
  catalog: TemplateCatalog,
  slug: string,
  caseName: string,
  clock: RenderClock,
): CaseRender {
  const lookup = catalog.lookup(slug)
  let variables: Record<string, unknown> = {}
  const fixtures = catalog.fixtures(slug)
  if (fixtures.length > 0) {
    const fixture = fixtures.find((f) => f.name === caseName)
    if (!fixture)
      return {
        ok: false,
        error: {
          code: 'fixture_invalid',
          message: `The template "${slug}" has no fixture case "${caseName}".`,
        },
      }
    if (!fixture.variables)
      return {
        ok: false,
        error: {
          code: 'fixture_invalid',
          message: `The fixture case "${caseName}" of "${slug}" is not usable: ${fixture.error}`,
        },
      }
    variables = fixture.variables
  } else if (lookup.ok) variables = exampleVariables(lookup.template)
  const outcome = renderMessage(catalog, slug, variables, { lenient: false, clock })
  if (!outcome.ok)
    return {
      ok: false,
      error: { code: outcome.failure.code, message: describeFailure(outcome.failure) },
    }
  return { ok: true, snapshot: snapshotOf(outcome.rendered), html: outcome.rendered.html }
}

/**
 * A case's status from its render (null: it did not render) and its stored snapshot.
 *
 * @example statusOf({ html: 'a\n', text: 'a\n' }, { html: 'a\n', text: 'a\n' }) // 'same'
 */
export function statusOf(
  current: SnapshotText | null,
  stored: { html: string | null; text: string | null },
): Exclude<SnapshotStatus, 'obsolete'> {
  if (stored.html === null && stored.text === null) return 'new'
  return current !== null && current.html === stored.html && current.text === stored.text
    ? 'same'
    : 'changed'
}
