/**
 * The snapshots of a running server (docs/snapshots.md#while-you-edit-the-server): every case's status, kept live, and accepting
 * a render as the new snapshot. What the inspector's snapshot routes and the inbox's Changes view
 * read.
 *
 * Statuses are computed once after start (in the background, a template at a time, so requests
 * keep their turn), then again for a template when the catalog says it changed (the template, a
 * partial or layout it uses, a fixture) and for a slug's folder when the watcher sees its
 * snapshot files change (a `sendbox check -u`, a `git checkout`). Each status that changes is a
 * `snapshot` event on the bus. Recomputations run one at a time, in order.
 */
import { shownPath } from '../lib/paths.js'
import type {
  FolderWatcher,
  RenderClock,
  TemplateCatalog,
  TemplateChange,
} from '../templates/index.js'
import { type ImageKind, isSnapshotName, VISUAL_VARIANTS } from '../templates/snapshot-files.js'
import type { SnapshotFolder } from '../templates/snapshot-folder.js'
import type { EventBus } from './events.js'
import {
  caseNames,
  type CaseError,
  type CaseRef,
  renderCase,
  type SnapshotStatus,
  statusOf,
} from './snapshot-cases.js'
import type { SnapshotChange, SnapshotCounts, SnapshotSummary } from './snapshot-types.js'
import { caseDetail, type SnapshotDetail, type SnapshotImage } from './snapshot-detail.js'

export type {
  SnapshotChange,
  SnapshotCounts,
  SnapshotDetail,
  SnapshotImage,
  SnapshotStatus,
  SnapshotSummary,
}

export type AcceptOutcome =
  | { ok: true; accepted: CaseRef & { status: SnapshotStatus | null; files: string[] } }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'render'; error: CaseError }

export interface SnapshotBook {
  /** The snapshot folder (absolute). */
  readonly dir: string
  /** Starts the first computation (once); the server calls it once it is listening. */
  prime(): void
  list(): Promise<{ snapshots: SnapshotSummary[]; counts: SnapshotCounts }>
  /** A case in full, or null when it is neither a case nor has a snapshot. */
  detail(template: string, caseName: string): Promise<SnapshotDetail | null>
  /** Writes the current render as the snapshot (an obsolete one is removed). */
  accept(template: string, caseName: string): Promise<AcceptOutcome>
  /** Accepts every changed and new case that renders. */
  acceptAll(): Promise<{ accepted: CaseRef[]; skipped: Array<CaseRef & { error: CaseError }> }>
  /** A PNG of a case, or null. */
  image(
    template: string,
    caseName: string,
    variant: string,
    kind: ImageKind,
  ): Promise<Buffer | null>
  close(): Promise<void>
}

export interface SnapshotBookOptions {
  catalog: TemplateCatalog
  /** The files: `openSnapshotFolder(dir)` (src/templates/snapshot-folder.ts). */
  folder: SnapshotFolder
  clock: RenderClock
  events: EventBus
  warn: (message: string) => void
  /** Where paths are shown from (the working folder). */
  cwd?: string
}

const EMPTY_COUNTS = (): SnapshotCounts => ({ same: 0, changed: 0, new: 0, obsolete: 0 })

/** Lets other work in (requests, the watcher) between two templates of a long computation. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The statuses of a template's cases and of its folder's obsolete files.
 */
async function statusesOf(
  catalog: TemplateCatalog,
  folder: SnapshotFolder,
  clock: RenderClock,
  slug: string,
): Promise<SnapshotSummary[]> {
  const exists = catalog.list().some((t) => t.slug === slug)
  const names = exists ? caseNames(catalog, slug) : []
  const out: SnapshotSummary[] = []
  for (const name of names) {
    const render = renderCase(catalog, slug, name, clock)
    const stored = isSnapshotName(name) ? await folder.read(slug, name) : { html: null, text: null }
    const status = statusOf(render.ok ? render.snapshot : null, stored)
    out.push({ template: slug, case: name, status, ...(render.ok ? {} : { error: render.error }) })
  }
  const files = isSnapshotName(slug) ? (await folder.list(slug)).get(slug) : undefined
  for (const name of files?.keys() ?? [])
    if (!names.includes(name)) out.push({ template: slug, case: name, status: 'obsolete' })
  return out
}

/**
 * Builds the book of a server; it watches the snapshot folder until closed.
 *
 * @example
 * const snapshots = await createSnapshotBook({ catalog, dir, clock: snapshotClock(), events, warn })
 * const { counts } = await snapshots.list()
 */
export async function createSnapshotBook(options: SnapshotBookOptions): Promise<SnapshotBook> {
  const { catalog, folder, clock, events, warn } = options
  const cwd = options.cwd ?? process.cwd()
  /** By slug, its cases' summaries in order. */
  let bySlug = new Map<string, SnapshotSummary[]>()
  let primed: Promise<void> | undefined
  let closed = false
  let queue: Promise<void> = Promise.resolve()

  const counts = (): SnapshotCounts => {
    const all = EMPTY_COUNTS()
    for (const summaries of bySlug.values()) for (const s of summaries) all[s.status]++
    return all
  }
  const enqueue = (job: () => Promise<void>): Promise<void> => {
    const run = queue.then(() => (closed ? undefined : job()))
    queue = run.catch((error: unknown) =>
      warn(`Could not bring the snapshots up to date: ${(error as Error).message}`),
    )
    return queue
  }

  /** Replaces a slug's summaries and emits an event for each status that changed. */
  const settle = (slug: string, next: SnapshotSummary[]) => {
    const before = new Map((bySlug.get(slug) ?? []).map((s) => [s.case, s.status]))
    if (next.length > 0) bySlug.set(slug, next)
    else bySlug.delete(slug)
    const changes: Array<Omit<SnapshotChange, 'counts'>> = []
    for (const s of next) {
      const previous = before.get(s.case) ?? null
      if (previous !== s.status)
        changes.push({ template: slug, case: s.case, status: s.status, previous })
      before.delete(s.case)
    }
    for (const [name, previous] of before)
      changes.push({ template: slug, case: name, status: null, previous })
    if (changes.length === 0) return
    const now = counts()
    for (const change of changes)
      events.emit({ type: 'snapshot', change: { ...change, counts: now } })
  }

  const refreshSlugs = (slugs: Iterable<string>) =>
    enqueue(async () => {
      if (!primed) return
      for (const slug of new Set(slugs))
        settle(slug, await statusesOf(catalog, folder, clock, slug))
    })

  /** Every slug: the catalog's and the folder's. Silent the first time (nothing was known). */
  const refreshAll = (initial: boolean) =>
    enqueue(async () => {
      const slugs = new Set([
        ...catalog.list().map((t) => t.slug),
        ...(await folder.list()).keys(),
        ...bySlug.keys(),
      ])
      const next = new Map<string, SnapshotSummary[]>()
      for (const slug of [...slugs].sort()) {
        const summaries = await statusesOf(catalog, folder, clock, slug)
        if (initial) {
          if (summaries.length) next.set(slug, summaries)
        } else settle(slug, summaries)
        await yieldTurn()
      }
      if (initial) bySlug = next
    })

  const prime = () => {
    primed ??= refreshAll(true)
    return primed
  }

  const stopCatalog = catalog.onChange((change: TemplateChange) => void refreshSlugs([change.slug]))
  const watcher: FolderWatcher = await folder.watch({
    warn,
    onFolder: () => void (primed && refreshAll(false)),
    onSlugs: (slugs) => void refreshSlugs(slugs),
  })

  /** Waits for the first computation and every recomputation queued so far. */
  const current = async () => {
    await prime()
    await queue
  }

  const detail = async (template: string, caseName: string): Promise<SnapshotDetail | null> => {
    await current()
    return caseDetail({ catalog, folder, clock, cwd }, template, caseName)
  }

  const accept = async (template: string, caseName: string): Promise<AcceptOutcome> => {
    const detailed = await detail(template, caseName)
    if (!detailed) return { ok: false, reason: 'not_found' }
    let files: string[]
    if (detailed.status === 'obsolete') files = await folder.remove(template, caseName)
    else {
      if (!detailed.current) return { ok: false, reason: 'render', error: detailed.error! }
      files = await folder.write(template, caseName, detailed.current)
    }
    // Now, not when the watcher notices: the answer and the event agree with the files.
    await refreshSlugs([template])
    const status = bySlug.get(template)?.find((s) => s.case === caseName)?.status ?? null
    return {
      ok: true,
      accepted: {
        template,
        case: caseName,
        status,
        files: files.map((f) => shownPath(f, cwd)),
      },
    }
  }

  return {
    dir: folder.dir,
    prime: () => void prime(),
    async list() {
      await current()
      return { snapshots: [...bySlug.values()].flat(), counts: counts() }
    },
    detail,
    accept,
    async acceptAll() {
      await current()
      const accepted: CaseRef[] = []
      const skipped: Array<CaseRef & { error: CaseError }> = []
      for (const { template, case: name, status } of [...bySlug.values()].flat()) {
        if (status !== 'changed' && status !== 'new') continue
        const render = renderCase(catalog, template, name, clock)
        if (!render.ok) {
          skipped.push({ template, case: name, error: render.error })
          continue
        }
        await folder.write(template, name, render.snapshot)
        accepted.push({ template, case: name })
      }
      await refreshSlugs(accepted.map((a) => a.template))
      return { accepted, skipped }
    },
    async image(template, caseName, variant, kind) {
      if (!isSnapshotName(template) || !isSnapshotName(caseName)) return null
      if (!VISUAL_VARIANTS.some((v) => v.name === variant)) return null
      return folder.image(template, caseName, variant, kind)
    },
    async close() {
      if (closed) return
      closed = true
      stopCatalog()
      await watcher.close()
      await queue
    },
  }
}
