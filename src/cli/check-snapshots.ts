import path from 'node:path'
import { allCases, caseKey, snapshotOf } from '../core/snapshot-cases.js'
import { firstDifference, unifiedDiff } from '../core/snapshot-diff.js'
import {
  listSnapshots,
  readSnapshot,
  removeCase,
  snapshotFiles,
  writeInside,
} from '../templates/snapshot-files.js'
import { shownPath } from '../lib/paths.js'
import type { TemplateCatalog } from '../templates/types.js'
import type { Problem, RenderRule } from './check-types.js'

/**
 * `sendbox check` against the snapshot folder (docs/snapshots.md#in-ci), as Jest and Vitest do it: each
 * render is compared with its snapshot (`snapshot_changed` at the first differing line, a short
 * unified diff under it); a case without one is written and named, or `snapshot_missing` under
 * CI; a snapshot whose template or case is gone is `snapshot_obsolete`. With `--update` every
 * snapshot is written anew and obsolete ones are removed.
 */

export interface SnapshotRunOptions {
  /** The snapshot folder (absolute). */
  dir: string
  /** `--update` / `-u`: write every snapshot, remove obsolete ones. */
  update: boolean
  /** Under CI a missing snapshot fails instead of being written. */
  ci: boolean
}

/** What a run wrote and removed, as paths from the working folder. */
export interface SnapshotWrites {
  written: string[]
  updated: string[]
  removed: string[]
}

export interface SnapshotRun {
  /** The snapshot folder (absolute). */
  dir: string
  /** The rule that compares (or writes) each render. */
  rule: RenderRule
  /** After the renders: obsolete snapshots, reported or removed. */
  finish(catalog: TemplateCatalog): Promise<Problem[]>
  writes: SnapshotWrites
  /** The HTML as rendered (not normalised) of each case that rendered, by `template/case`. */
  rendered: Map<string, { template: string; case: string; html: string }>
}

/**
 * Whether a CI environment is set, as ci-info reads it: `CI` set to anything but `false`.
 *
 * @example isCi({ CI: 'true' }) // true
 */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI.toLowerCase() !== 'false' && env.CI !== '0'
}

const PARTS = [
  { part: 'html', what: 'HTML' },
  { part: 'text', what: 'text' },
] as const

/** An error at a place of a snapshot file, with its diff when there is one. */
function problem(
  file: string,
  at: { line: number; column: number },
  code: string,
  message: string,
  diff?: string,
): Problem {
  return {
    file,
    line: at.line,
    column: at.column,
    code,
    message,
    severity: 'error',
    ...(diff ? { diff } : {}),
  }
}

/** What the rule and `finish` of one run share. */
interface RunState {
  options: SnapshotRunOptions
  writes: SnapshotWrites
  rendered: SnapshotRun['rendered']
}

/**
 * The snapshot side of a check.
 *
 * @example
 * const snapshots = snapshotRun({ dir, update: false, ci: isCi(process.env) })
 * const report = await checkCatalog(catalog, { rules: [snapshots.rule], clock })
 * report.problems.push(...(await snapshots.finish(catalog)))
 */
export function snapshotRun(options: SnapshotRunOptions): SnapshotRun {
  const run: RunState = {
    options,
    writes: { written: [], updated: [], removed: [] },
    rendered: new Map(),
  }
  return {
    dir: options.dir,
    rule: (input) => compareCase(run, input),
    finish: (catalog) => obsoleteSnapshots(run, catalog),
    writes: run.writes,
    rendered: run.rendered,
  }
}

/** One case's render against its snapshot: missing, written, updated or changed. */
async function compareCase(
  run: RunState,
  { template, caseName, html, text }: Parameters<RenderRule>[0],
): Promise<Problem[]> {
  const { dir, update, ci } = run.options
  const name = caseName ?? 'default'
  const slug = template.slug
  run.rendered.set(caseKey(slug, name), { template: slug, case: name, html })
  const current = snapshotOf({ html, text })
  const stored = await readSnapshot(dir, slug, name)
  const files = snapshotFiles(dir, slug, name)
  const label = `"${slug}" (case "${name}")`
  const problems: Problem[] = []
  const missing = PARTS.filter(({ part }) => stored[part] === null)
  if (missing.length > 0 && ci && !update) {
    const shown = missing.map(({ part }) => shownPath(files[part]))
    problems.push(
      problem(
        files[missing[0]!.part],
        { line: 1, column: 1 },
        'snapshot_missing',
        `There is no snapshot of ${label} (${shown.join(', ')}): run sendbox check -u where you review changes, and commit ${shownPath(path.join(dir, slug))}/.`,
      ),
    )
  }
  for (const { part, what } of PARTS) {
    const before = stored[part]
    if (before === current[part]) continue
    const file = files[part]
    if (before === null || update) {
      if (before === null && ci && !update) continue
      await writeInside(dir, [slug], path.basename(file), current[part])
      ;(before === null ? run.writes.written : run.writes.updated).push(shownPath(file))
      continue
    }
    const at = firstDifference(before, current[part])!
    const diff = unifiedDiff(
      shownPath(file),
      `${slug} (${name}), rendered now`,
      before,
      current[part],
    )
    problems.push(
      problem(
        file,
        at,
        'snapshot_changed',
        `The ${what} of ${label} differs from its snapshot from here; review the change, then accept it with sendbox check -u.`,
        diff ?? undefined,
      ),
    )
  }
  return problems
}

/** After the renders: the snapshots of no case, reported, or removed with `--update`. */
async function obsoleteSnapshots(run: RunState, catalog: TemplateCatalog): Promise<Problem[]> {
  const { dir, update } = run.options
  const cases = new Set(allCases(catalog).map((c) => caseKey(c.template, c.case)))
  const templates = new Set(catalog.list().map((t) => t.slug))
  const problems: Problem[] = []
  for (const [slug, byCase] of await listSnapshots(dir)) {
    for (const [name, files] of byCase) {
      if (cases.has(caseKey(slug, name))) continue
      if (update) {
        run.writes.removed.push(...(await removeCase(dir, slug, name)).map((f) => shownPath(f)))
        continue
      }
      const why = templates.has(slug)
        ? `the template "${slug}" has no fixture case "${name}" any more`
        : `there is no template "${slug}" any more`
      const file = files.find((f) => f.endsWith('.html')) ?? files[0]!
      problems.push(
        problem(
          file,
          { line: 1, column: 1 },
          'snapshot_obsolete',
          `The snapshot of "${slug}" (case "${name}") is obsolete: ${why}. sendbox check -u removes it (${files.map((f) => shownPath(f)).join(', ')}).`,
        ),
      )
    }
  }
  return problems
}

/**
 * What a run wrote, one line per file, for the console.
 *
 * @example writeLines({ written: ['snapshots/a/default.html'], updated: [], removed: [] }) // ['  written  snapshots/a/default.html']
 */
export function writeLines(writes: SnapshotWrites): string[] {
  return [
    ...writes.written.map((f) => `  written  ${f}`),
    ...writes.updated.map((f) => `  updated  ${f}`),
    ...writes.removed.map((f) => `  removed  ${f}`),
  ]
}
