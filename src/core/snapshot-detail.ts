/**
 * One case in full (docs/snapshots.md): its snapshot, its render now as a snapshot stores it, the
 * unified diffs between them, and which screenshots of `sendbox check --visual` it has. What
 * `GET /_sandbox/api/snapshots/:template/:case` answers; a function of the files and the catalog.
 */
import { shownPath } from '../lib/paths.js'
import type { RenderClock, TemplateCatalog } from '../templates/index.js'
import { isSnapshotName, VISUAL_VARIANTS } from '../templates/snapshot-files.js'
import type { SnapshotFolder } from '../templates/snapshot-folder.js'
import { caseNames, renderCase, statusOf } from './snapshot-cases.js'
import type { SnapshotDetail, SnapshotImage } from './snapshot-types.js'

export type { SnapshotDetail, SnapshotImage }

export interface DetailSource {
  catalog: TemplateCatalog
  folder: SnapshotFolder
  clock: RenderClock
  /** Where paths are shown from. */
  cwd: string
}

/**
 * A case in full, or null when it is neither a case nor has a snapshot.
 *
 * @example const detail = await caseDetail({ catalog, folder, clock, cwd }, 'welcome', 'default')
 */
export async function caseDetail(
  { catalog, folder, clock, cwd }: DetailSource,
  template: string,
  caseName: string,
): Promise<SnapshotDetail | null> {
  if (!isSnapshotName(template) || !isSnapshotName(caseName)) return null
  const isCase =
    catalog.list().some((t) => t.slug === template) &&
    caseNames(catalog, template).includes(caseName)
  const stored = await folder.read(template, caseName)
  if (!isCase && stored.html === null && stored.text === null) return null
  const render = isCase ? renderCase(catalog, template, caseName, clock) : null
  const current = render?.ok ? render.snapshot : null
  const files = folder.files(template, caseName)
  const shown = { html: shownPath(files.html, cwd), text: shownPath(files.text, cwd) }
  const label = `${template} (${caseName}), rendered now`
  // jsdiff loads with the first detail asked for, not with every server.
  const { unifiedDiff } = await import('./snapshot-diff.js')
  const diff = (part: 'html' | 'text') =>
    unifiedDiff(shown[part], label, stored[part] ?? '', current?.[part] ?? '')
  return {
    template,
    case: caseName,
    status: isCase ? statusOf(current, stored) : 'obsolete',
    ...(render && !render.ok ? { error: render.error } : {}),
    snapshot: stored,
    current,
    // A case that does not render has no diff (its error says why); an obsolete one diffs to nothing.
    diff:
      isCase && !current ? { html: null, text: null } : { html: diff('html'), text: diff('text') },
    files: shown,
    images: await imagesOf(folder, template, caseName),
  }
}

/** Which images a case has, variant by variant. */
async function imagesOf(
  folder: SnapshotFolder,
  slug: string,
  caseName: string,
): Promise<SnapshotImage[]> {
  const there = (variant: string, kind: 'snapshot' | 'current' | 'diff') =>
    folder.hasImage(slug, caseName, variant, kind)
  return Promise.all(
    VISUAL_VARIANTS.map(async ({ name, width, scheme }) => ({
      variant: name,
      width,
      scheme,
      snapshot: await there(name, 'snapshot'),
      current: await there(name, 'current'),
      diff: await there(name, 'diff'),
    })),
  )
}
