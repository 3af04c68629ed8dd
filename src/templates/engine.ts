/**
 * The liquidjs instance of a catalog, with its file system and its partial cache.
 *
 * - The file system is ours, not liquidjs's default one: it confines every `render`, `include`
 *   and `layout` to the templates folder (no absolute paths, no `..` out of it, no symlink
 *   pointing outside) and to template files in it (`.liquid`, `.html`; no dotfiles), tries `.liquid` then `.html` for names without an extension (liquidjs
 *   supports a single `extname`), has no `fallback` (the default one calls require.resolve),
 *   and counts reads so tests can prove a render does no I/O.
 * - The cache is a plain Map we can clear when a partial or layout changes on disk.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Liquid, type FS, type Template as LiquidTemplate } from 'liquidjs'
import { type ClockHolder, LOCALE_SET_BY_THE_DATE_FILTERS, useRenderClock } from './clock.js'
import { TEMPLATE_EXTENSIONS, hasTemplateExtension } from './slug.js'
import { isFile, isInside } from './template-files.js'

/**
 * The bounds on every parse and render. The parse limit is per file (liquidjs counts per
 * `parse` call); 500 ms of render blocks the event loop at worst that long, and 64M units of
 * memory (characters, array items) is far above any real email.
 */
export const LIMITS = {
  parseLimit: 1_000_000,
  renderLimit: 500,
  memoryLimit: 64_000_000,
} as const

/** A partial path that leaves the templates folder, or names a file that is not a template. */
export class OutsideTemplatesError extends Error {
  readonly code = 'EOUTSIDE'
  constructor(message = 'Partials and layouts must be inside the templates folder.') {
    super(message)
    this.name = 'OutsideTemplatesError'
  }
}

/**
 * Whether a file inside the templates folder may be read as a partial or layout: a template
 * extension, and no hidden file or folder on the way. A name computed at render time
 * (`{% include name %}`) must not read `.env` or `notes.txt` beside the templates.
 *
 * @example isPartialFile('/t', '/t/partials/button.liquid') // true
 * @example isPartialFile('/t', '/t/.env')                   // false
 */
export function isPartialFile(root: string, file: string): boolean {
  return (
    hasTemplateExtension(file) &&
    !path
      .relative(root, file)
      .split(path.sep)
      .some((segment) => segment.startsWith('.'))
  )
}

export interface SandboxFs extends FS {
  /** Files read so far (tests assert renders read nothing). */
  readonly stats: { reads: number }
  /** The last file read: the cache ties it to the templates it parses to. */
  readonly lastRead: string | undefined
}

type CachedTemplates = LiquidTemplate[] | Promise<LiquidTemplate[]>

export interface PartialCache {
  read(key: string): CachedTemplates | undefined
  write(key: string, value: CachedTemplates): void
  remove(key: string): void
  clear(): void
  /** The absolute file a cached partial was parsed from. */
  fileOf(templates: LiquidTemplate[]): string | undefined
  readonly size: number
}

export interface Engine {
  /** Absolute templates folder. */
  readonly root: string
  readonly liquid: Liquid
  readonly fs: SandboxFs
  readonly cache: PartialCache
  /** The clock of the render under way, when it has one (snapshots: see ./clock.ts). */
  readonly clock: ClockHolder
}

/**
 * `escape: false` makes the engine of hand-written text versions (`<slug>.txt.liquid`): the same
 * folder, limits and partial rules, but plain text, so output is not HTML-escaped.
 */
export function createEngine(templatesDir: string, options: { escape?: boolean } = {}): Engine {
  const root = path.resolve(templatesDir)
  const sandboxFs = createSandboxFs(root)
  const cache = createPartialCache(() => sandboxFs.lastRead)
  const liquid = new Liquid({
    root,
    partials: root,
    layouts: root,
    fs: sandboxFs,
    relativeReference: true,
    cache,
    ...(options.escape === false ? {} : { outputEscape: 'escape' as const }),
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    dynamicPartials: true,
    // Given, so that liquidjs does not ask Intl for it as it is made (clock.ts says why).
    locale: LOCALE_SET_BY_THE_DATE_FILTERS,
    ...LIMITS,
  })
  const clock: ClockHolder = { clock: undefined }
  useRenderClock(liquid, clock)
  return { root, liquid, fs: sandboxFs, cache, clock }
}

export function createSandboxFs(root: string): SandboxFs {
  const stats = { reads: 0 }
  let lastRead: string | undefined

  // Resolved lazily: the folder may not exist yet when the catalog starts.
  const realRoot = (): string => {
    try {
      return fs.realpathSync(root)
    } catch {
      return root
    }
  }

  const checkInside = (file: string): true => {
    if (!isInside(root, file)) throw new OutsideTemplatesError()
    let real: string
    try {
      real = fs.realpathSync(file)
    } catch {
      return true // missing: the existence check reports it as not found
    }
    if (!isInside(realRoot(), real)) throw new OutsideTemplatesError()
    if (!isPartialFile(root, file))
      throw new OutsideTemplatesError(
        'Partials and layouts must be .liquid or .html files in the templates folder, not hidden files.',
      )
    return true
  }

  const read = (file: string): string => {
    stats.reads += 1
    lastRead = file
    return fs.readFileSync(file, 'utf8')
  }

  return {
    stats,
    get lastRead() {
      return lastRead
    },
    sep: path.sep,
    dirname: (file) => path.dirname(file),
    resolve(dir, file) {
      const base = path.resolve(dir, file)
      // Never probe the disk outside the folder; containsSync rejects the path right after.
      if (!isInside(root, base) || hasTemplateExtension(file)) return base
      for (const ext of TEMPLATE_EXTENSIONS) {
        if (isFile(base + ext)) return base + ext
      }
      return base
    },
    containsSync: (_dir, file) => checkInside(file),
    contains: async (_dir, file) => checkInside(file),
    existsSync: (file) => isFile(file),
    exists: async (file) => isFile(file),
    readFileSync: (file) => read(file),
    readFile: async (file) => read(file),
  }
}

/**
 * liquidjs keys its cache by lookup type (`partials:x`, `layouts:x`): the analysis loads a
 * layout as a partial while rendering loads it as a layout. Every lookup type resolves in the
 * same folder here, so the prefix is dropped and each file is read and parsed once.
 */
function cacheKey(key: string): string {
  return key.replace(/^(?:root|partials|layouts):/, '')
}

export function createPartialCache(lastRead: () => string | undefined): PartialCache {
  const entries = new Map<string, CachedTemplates>()
  // liquidjs reads a file and writes its parse to the cache right after, with no other read in
  // between (partial names are only loaded at analysis/render time, never while parsing).
  const files = new WeakMap<object, string>()
  return {
    read: (key) => entries.get(cacheKey(key)),
    write(key, value) {
      entries.set(cacheKey(key), value)
      const file = lastRead()
      if (file !== undefined && Array.isArray(value)) files.set(value, file)
    },
    remove: (key) => void entries.delete(cacheKey(key)),
    clear: () => entries.clear(),
    fileOf: (templates) => files.get(templates),
    get size() {
      return entries.size
    },
  }
}

/** A catalog's two engines: templates (HTML, escaped) and hand-written text versions. */
export interface Engines {
  html: Engine
  text: Engine
}
