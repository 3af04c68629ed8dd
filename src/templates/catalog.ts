/**
 * The template catalog: scans the templates and fixtures folders, keeps every template compiled
 * and analysed in memory, answers lookups and renders from that state, and refreshes it when
 * files change (hot reload).
 *
 * Requests never touch the disk: `lookup` is a Map get, `render` is `renderSync` on a parse made
 * at load time, with partials and layouts in the engine's cache. All I/O and analysis happen at
 * start and in `refresh`, which the watcher calls with the paths that changed.
 */
import path from 'node:path'
import type { RenderClock } from './clock.js'
import type { Entry } from './compile.js'
import type { Engines } from './catalog-load.js'
import { compare, isInside, listTemplateFiles } from './template-files.js'
import { reloadFixtures } from './catalog-fixtures.js'
import { loadAllFixtures } from './fixtures.js'
import { changedPaths, type FolderState, folderState } from './folder-state.js'
import { nearest } from '../lib/suggest.js'
import type {
  FixtureCase,
  TemplateCatalog,
  TemplateCatalogOptions,
  TemplateChange,
  TemplateLookup,
  TemplateSummary,
} from './types.js'
import type { FolderWatcher } from './watcher.js'
import { watchFolders } from './watch-later.js'

/** The loader's module: Liquid, the compiler and the front matter's yaml, loaded with the templates. */
type Loader = typeof import('./catalog-load.js')

/** What a catalog holds, and what its parts share. */
interface Catalog {
  templatesDir: string
  fixturesDir: string
  /** The loader's module and the engines made with it, once the load has begun. */
  loaded: { loader: Loader; engines: Engines } | undefined
  warn: (message: string) => void
  entries: Map<string, Entry>
  /**
   * How many templates the folder listed as the catalog opened: the count until the load
   * commits its entries (one per listed file), so a health answer need not wait for Liquid.
   */
  listed: number | undefined
  summaries: TemplateSummary[]
  fixtures: Map<string, FixtureCase[]>
  /** Counts the batches of changes taken in: what was derived from an older one is stale. */
  version: number
  closed: boolean
  listeners: Set<(change: TemplateChange) => void>
}

/**
 * Loads the templates and fixtures of two folders and keeps them compiled; watches the folders
 * (unless `watch: false`, then from `startWatching()`).
 *
 * @example
 * const catalog = await createTemplateCatalog({ templatesDir: 'templates', fixturesDir: 'fixtures' })
 * catalog.lookup('welcome')
 */
export async function createTemplateCatalog(
  options: TemplateCatalogOptions,
): Promise<TemplateCatalog> {
  const opened = await openTemplateCatalog(options)
  await opened.load()
  if (options.watch !== false) await opened.catalog.startWatching()
  return opened.catalog
}

/** A catalog whose templates are compiled by `load()`; see `openTemplateCatalog`. */
export interface OpenedCatalog {
  catalog: TemplateCatalog
  /** Template files in the folder, as listed when it opened (compiled or not). */
  templateFiles: number
  /** Compiles and analyses every template (once; `startWatching` waits for it). */
  load(): Promise<void>
}

/**
 * The catalog with its fixtures read (their warnings said) and its templates listed, but not yet
 * compiled: `load()` does that, which `serve` runs once its port is open (front matter, Liquid
 * parse and analysis were ~45 ms of CPU of the start, `node --cpu-prof`); its requests wait
 * for it. Until then the catalog is empty. Watching starts after the load.
 *
 * @example
 * const { catalog, load } = await openTemplateCatalog({ templatesDir, fixturesDir, watch: false })
 * await load()
 */
export async function openTemplateCatalog(options: TemplateCatalogOptions): Promise<OpenedCatalog> {
  const templatesDir = path.resolve(options.templatesDir)
  const fixturesDir = path.resolve(options.fixturesDir)
  // What the folders held as the load began: a watcher started later takes in what changed
  // since (see `startWatching`).
  const loaded = folderState([templatesDir, fixturesDir])
  const warn = options.warn ?? (() => {})
  const catalog: Catalog = {
    templatesDir,
    fixturesDir,
    loaded: undefined,
    warn,
    entries: new Map(),
    listed: undefined,
    summaries: [],
    fixtures: new Map(),
    version: 0,
    closed: false,
    listeners: new Set(),
  }
  const [{ files }, fixtures] = await Promise.all([
    listTemplateFiles(templatesDir),
    loadAllFixtures(fixturesDir, warn),
  ])
  catalog.fixtures = fixtures
  catalog.listed = files.size
  let loading: Promise<void> | undefined
  // Liquid, the compiler and the front matter's yaml come with the loader (a chunk of their
  // own), and the engines are made then (without asking Intl for the default locale: clock.ts).
  const load = () =>
    (loading ??= import('./catalog-load.js').then(async (loader) => {
      const engines = loader.createEngines(templatesDir)
      catalog.loaded = { loader, engines }
      commit(catalog, await loader.loadTemplates(engines, templatesDir))
    }))
  const templates = { load, pending: () => loading }
  return { catalog: catalogSurface(catalog, loaded, templates), templateFiles: files.size, load }
}

/** What the load brought; there is no entry to render nor batch to apply before it. */
function loadedParts(catalog: Catalog): { loader: Loader; engines: Engines } {
  if (!catalog.loaded) throw new Error('The template catalog is not loaded yet.')
  return catalog.loaded
}

function commit(catalog: Catalog, entries: Map<string, Entry>): void {
  catalog.summaries = [...entries.values()]
    .map((e) => e.summary)
    .sort((a, b) => compare(a.slug, b.slug))
  catalog.entries = entries
  catalog.listed = undefined
}

function emit(catalog: Catalog, changes: TemplateChange[]): void {
  if (catalog.closed) return
  for (const change of changes) {
    for (const listener of [...catalog.listeners]) {
      try {
        listener(change)
      } catch (err) {
        catalog.warn(`A template change listener failed: ${(err as Error).message}`)
      }
    }
  }
}

/** Takes in one batch of changed paths: templates, then fixtures; then tells the listeners. */
async function applyBatch(catalog: Catalog, changed: string[]): Promise<void> {
  const { templatesDir, fixturesDir } = catalog
  const inFixtures = (p: string) => p === fixturesDir || isInside(fixturesDir, p)
  const inTemplates = (p: string) => p === templatesDir || isInside(templatesDir, p)
  // When one folder is inside the other, a path belongs to the more specific one.
  const fixturesFirst = isInside(templatesDir, fixturesDir)
  const fixturePaths = changed.filter((p) => inFixtures(p) && (fixturesFirst || !inTemplates(p)))
  const templatePaths = changed.filter((p) => inTemplates(p) && !fixturePaths.includes(p))
  const changes: TemplateChange[] = []
  if (templatePaths.length > 0) {
    const { loader, engines } = loadedParts(catalog)
    const next = await loader.reloadTemplates(engines, templatesDir, catalog.entries, templatePaths)
    commit(catalog, next.entries)
    changes.push(...next.changes)
  }
  if (fixturePaths.length > 0) {
    const next = await reloadFixtures(fixturesDir, catalog.fixtures, fixturePaths, catalog.warn)
    catalog.fixtures = next.fixtures
    changes.push(...next.changes)
  }
  catalog.version += 1
  emit(catalog, changes)
}

/** Batches applied one at a time, in order; `drained` waits for those queued so far. */
function createBatchQueue(catalog: Catalog) {
  let queue: Promise<void> = Promise.resolve()
  return {
    refresh(changed: string[]) {
      queue = queue.then(async () => {
        if (catalog.closed) return
        try {
          await applyBatch(catalog, changed)
        } catch (err) {
          catalog.warn(`Could not reload templates: ${(err as Error).message}`)
        }
      })
    },
    drained: () => queue,
  }
}

/**
 * The watcher, started once: then what changed on disk since `loaded` (the initial load) is
 * taken in, since chokidar reports nothing of what is there when it starts.
 */
function createWatching(
  catalog: Catalog,
  batches: ReturnType<typeof createBatchQueue>,
  loaded: FolderState,
) {
  let watcher: FolderWatcher | undefined
  let watching: Promise<void> | undefined
  const folders = [catalog.templatesDir, catalog.fixturesDir]
  return {
    start: () =>
      (watching ??= (async () => {
        if (catalog.closed) return
        const { warn } = catalog
        watcher = await watchFolders({ folders, onBatch: batches.refresh, warn })
        const changed = changedPaths(loaded, folderState(folders))
        if (changed.length > 0) batches.refresh(changed)
        await batches.drained()
      })()),
    async close() {
      // A watcher on its way is closed once it is there.
      await watching?.catch(() => {})
      await watcher?.close()
    },
  }
}

/** The catalog as its users see it: lookups and renders from memory, changes, watching. */
function catalogSurface(
  catalog: Catalog,
  loaded: FolderState,
  templates: { load(): Promise<void>; pending(): Promise<void> | undefined },
): TemplateCatalog {
  const batches = createBatchQueue(catalog)
  const watching = createWatching(catalog, batches, loaded)
  const { templatesDir, fixturesDir } = catalog
  const render = (entry: Entry, variables: Record<string, unknown>, clock?: RenderClock) => {
    const { loader, engines } = loadedParts(catalog)
    return loader.renderEntry(engines, templatesDir, entry, variables, clock)
  }
  return {
    templatesDir,
    fixturesDir,
    list: () => [...catalog.summaries],
    count: () => catalog.listed ?? catalog.entries.size,
    lookup(slug: string): TemplateLookup {
      const { entries } = catalog
      const entry = typeof slug === 'string' ? entries.get(slug) : undefined
      if (!entry)
        return { ok: false, reason: 'not_found', suggestions: nearest(slug, entries.keys()) }
      if (!entry.template) return { ok: false, reason: 'invalid', error: entry.error! }
      return {
        ok: true,
        template: entry.template,
        render: (variables, options) => render(entry, variables, options?.clock),
      }
    },
    fixtures: (slug: string) => [...(catalog.fixtures.get(slug) ?? [])],
    version: () => catalog.version,
    onChange(listener) {
      catalog.listeners.add(listener)
      return () => void catalog.listeners.delete(listener)
    },
    startWatching: () => templates.load().then(watching.start),
    async close() {
      if (catalog.closed) return
      catalog.closed = true
      // A load on its way ends first (its failure is its caller's to report).
      await templates.pending()?.catch(() => {})
      await watching.close()
      await batches.drained()
    },
  }
}
