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

/** A book's state: the options it was made with, the statuses, and its one queue of jobs. */
interface Book extends SnapshotBookOptions {
  cwd: string
  /** By slug, its cases' summaries in order. */
  bySlug: Map<string, SnapshotSummary[]>
  primed: Promise<void> | undefined
  closed: boolean
  queue: Promise<void>
}

function countsOf(book: Book): SnapshotCounts {
  const all = EMPTY_COUNTS()
  for (const summaries of book.bySlug.values()) for (const s of summaries) all[s.status]++
  return all
}

/** Runs a job after those queued (none once closed); a failed one is a warning. */
function enqueue(book: Book, job: () => Promise<void>): Promise<void> {
  const run = book.queue.then(() => (book.closed ? undefined : job()))
  book.queue = run.catch((error: unknown) =>
    book.warn(`Could not bring the snapshots up to date: ${(error as Error).message}`),
  )
  return book.queue
}

/** Replaces a slug's summaries and emits an event for each status that changed. */
function settle(book: Book, slug: string, next: SnapshotSummary[]): void {
  const before = new Map((book.bySlug.get(slug) ?? []).map((s) => [s.case, s.status]))
  if (next.length > 0) book.bySlug.set(slug, next)
  else book.bySlug.delete(slug)
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
  const now = countsOf(book)
  for (const change of changes)
    book.events.emit({ type: 'snapshot', change: { ...change, counts: now } })
}

const statusesIn = (book: Book, slug: string) =>
  statusesOf(book.catalog, book.folder, book.clock, slug)

function refreshSlugs(book: Book, slugs: Iterable<string>): Promise<void> {
  return enqueue(book, async () => {
    if (!book.primed) return
    for (const slug of new Set(slugs)) settle(book, slug, await statusesIn(book, slug))
  })
}

/** Every slug: the catalog's and the folder's. Silent the first time (nothing was known). */
function refreshAll(book: Book, initial: boolean): Promise<void> {
  return enqueue(book, async () => {
    const slugs = new Set([
      ...book.catalog.list().map((t) => t.slug),
      ...(await book.folder.list()).keys(),
      ...book.bySlug.keys(),
    ])
    const next = new Map<string, SnapshotSummary[]>()
    for (const slug of [...slugs].sort()) {
      const summaries = await statusesIn(book, slug)
      if (initial) {
        if (summaries.length) next.set(slug, summaries)
      } else settle(book, slug, summaries)
      await yieldTurn()
    }
    if (initial) book.bySlug = next
  })
}

function prime(book: Book): Promise<void> {
  book.primed ??= refreshAll(book, true)
  return book.primed
}

/** Waits for the first computation and every recomputation queued so far. */
async function current(book: Book): Promise<void> {
  await prime(book)
  await book.queue
}

async function detail(
  book: Book,
  template: string,
  caseName: string,
): Promise<SnapshotDetail | null> {
  await current(book)
  const { catalog, folder, clock, cwd } = book
  return caseDetail({ catalog, folder, clock, cwd }, template, caseName)
}

async function accept(book: Book, template: string, caseName: string): Promise<AcceptOutcome> {
  const detailed = await detail(book, template, caseName)
  if (!detailed) return { ok: false, reason: 'not_found' }
  let files: string[]
  if (detailed.status === 'obsolete') files = await book.folder.remove(template, caseName)
  else {
    if (!detailed.current) return { ok: false, reason: 'render', error: detailed.error! }
    files = await book.folder.write(template, caseName, detailed.current)
  }
  // Now, not when the watcher notices: the answer and the event agree with the files.
  await refreshSlugs(book, [template])
  const status = book.bySlug.get(template)?.find((s) => s.case === caseName)?.status ?? null
  return {
    ok: true,
    accepted: {
      template,
      case: caseName,
      status,
      files: files.map((f) => shownPath(f, book.cwd)),
    },
  }
}

async function acceptAll(book: Book): ReturnType<SnapshotBook['acceptAll']> {
  await current(book)
  const accepted: CaseRef[] = []
  const skipped: Array<CaseRef & { error: CaseError }> = []
  for (const { template, case: name, status } of [...book.bySlug.values()].flat()) {
    if (status !== 'changed' && status !== 'new') continue
    const render = renderCase(book.catalog, template, name, book.clock)
    if (!render.ok) {
      skipped.push({ template, case: name, error: render.error })
      continue
    }
    await book.folder.write(template, name, render.snapshot)
    accepted.push({ template, case: name })
  }
  await refreshSlugs(
    book,
    accepted.map((a) => a.template),
  )
  return { accepted, skipped }
}

/**
 * Builds the book of a server; it watches the snapshot folder until closed.
 *
 * @example
 * const folder = openSnapshotFolder(dir)
 * const snapshots = await createSnapshotBook({ catalog, folder, clock: snapshotClock(), events, warn })
 * const { counts } = await snapshots.list()
 */
export async function createSnapshotBook(options: SnapshotBookOptions): Promise<SnapshotBook> {
  const book: Book = {
    ...options,
    cwd: options.cwd ?? process.cwd(),
    bySlug: new Map(),
    primed: undefined,
    closed: false,
    queue: Promise.resolve(),
  }
  const { catalog, folder } = book
  const stopCatalog = catalog.onChange(
    (change: TemplateChange) => void refreshSlugs(book, [change.slug]),
  )
  const watcher: FolderWatcher = await folder.watch({
    warn: book.warn,
    onFolder: () => void (book.primed && refreshAll(book, false)),
    onSlugs: (slugs) => void refreshSlugs(book, slugs),
  })
  return {
    dir: folder.dir,
    prime: () => void prime(book),
    async list() {
      await current(book)
      return { snapshots: [...book.bySlug.values()].flat(), counts: countsOf(book) }
    },
    detail: (template, caseName) => detail(book, template, caseName),
    accept: (template, caseName) => accept(book, template, caseName),
    acceptAll: () => acceptAll(book),
    async image(template, caseName, variant, kind) {
      if (!isSnapshotName(template) || !isSnapshotName(caseName)) return null
      if (!VISUAL_VARIANTS.some((v) => v.name === variant)) return null
      return folder.image(template, caseName, variant, kind)
    },
    async close() {
      if (book.closed) return
      book.closed = true
      stopCatalog()
      await watcher.close()
      await book.queue
    },
  }
}
