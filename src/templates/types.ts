/**
 * The public shape of the template layer. The API, inspector, CLI and inbox consume only these
 * types and `createTemplateCatalog`; everything else in src/templates is private to it.
 */
import type { RenderClock } from './clock.js'

export type { RenderClock }

/** Where a problem sits in a file under the templates folder (path relative to that folder). */
export interface SourcePosition {
  file: string
  line: number
  column: number
}

/** A template file that does not parse (422 template_invalid). */
export interface TemplateParseError extends SourcePosition {
  message: string
}

/** A render that failed (422 render_failed): runaway loop, limit hit, bad filter argument… */
export interface RenderFailure extends SourcePosition {
  message: string
}

/** A variable declared in front matter. */
export interface DeclaredVariable {
  description?: string
  example?: unknown
  required?: boolean
}

export interface Template {
  slug: string
  /** Absolute path of the template file. */
  file: string
  /** The template source, front matter excluded. */
  body: string
  description: string | null
  /**
   * Sorted top-level names the template expects: analysis (including what partials and the
   * layout read from the caller) plus names declared in front matter.
   */
  variables: string[]
  /**
   * Full dotted paths the template needs (`order.id`, `name`), sorted: every analysed use that
   * does not pass through `default`, minus front-matter `required: false`. Drives
   * missing_variables.
   */
  requiredPaths: string[]
  /**
   * Every dotted path the template reads from the caller, required or not (a use through
   * `default`, a front-matter `required: false`), sorted: `requiredPaths` and the rest.
   */
  paths: string[]
  /**
   * What loops read through their loop variable, `[]` standing for an item, sorted:
   * `{% for story in stories %}{{ story.title }}` gives `stories[].title`.
   */
  itemPaths: string[]
  /** Front matter `variables`, as declared. */
  declared: Record<string, DeclaredVariable>
  /** ISO time of the last change of the file (or of a partial/layout it uses, whichever is newer). */
  updatedAt: string
  /**
   * Absolute path of its hand-written text version (`<slug>.txt.liquid`), when there is one: a
   * send's text part is that, rendered with the same variables, instead of text derived from the
   * HTML.
   */
  textFile?: string
}

/** How to render: on a fixed clock (snapshots), or on the real one (absent). */
export interface RenderOptions {
  clock?: RenderClock
}

export type TemplateLookup =
  | {
      ok: true
      template: Template
      render(variables: Record<string, unknown>, options?: RenderOptions): RenderResult
    }
  | { ok: false; reason: 'not_found'; suggestions: string[] }
  | { ok: false; reason: 'invalid'; error: TemplateParseError }

/** `text` is set when the template has a hand-written text version. */
export type RenderResult =
  | { ok: true; html: string; text?: string }
  | { ok: false; error: RenderFailure }

export interface FixtureCase {
  /** `default` for `<slug>.json`, else the file name of `<slug>/<case>.json` without `.json`. */
  name: string
  file: string
  /** Present when the file parsed to a JSON object. */
  variables?: Record<string, unknown>
  /** Present when it did not (invalid JSON, not an object): reported, never fatal. */
  error?: string
}

export type TemplateChangeKind = 'added' | 'changed' | 'removed'

/** One event per affected template slug: a partial change yields one per template using it. */
export interface TemplateChange {
  slug: string
  change: TemplateChangeKind
  /** What changed on disk: the template itself, a partial/layout it uses, or one of its fixtures. */
  source: 'template' | 'partial' | 'fixture'
  /** Path relative to its folder of the file that changed. */
  path: string
}

export interface TemplateSummary {
  slug: string
  description: string | null
  variables: string[]
  updatedAt: string
  /** Set when the file does not parse. */
  error?: TemplateParseError
}

export interface TemplateCatalog {
  readonly templatesDir: string
  readonly fixturesDir: string
  /** Every template (valid or not), sorted by slug. */
  list(): TemplateSummary[]
  /** Number of templates (partials and layouts excluded). */
  count(): number
  /**
   * A template by slug. A valid one comes with `render(variables)`: synchronous on a cached
   * parse, bounded by parse/render/memory limits; missing variables render empty (callers check
   * them first, see `renderMessage`).
   */
  lookup(slug: string): TemplateLookup
  /**
   * Changes with every batch of changes taken in (templates, partials, fixtures): what was
   * derived from the catalog at one version (the OpenAPI document) is stale at another.
   */
  version(): number
  /** The fixture cases of a template, sorted by name (`default` first). */
  fixtures(slug: string): FixtureCase[]
  /** Called for each change on disk once the catalog has taken it in. Returns an unsubscribe. */
  onChange(listener: (change: TemplateChange) => void): () => void
  /**
   * Starts watching the folders (once; `watch: true` did at creation). Resolves when the watcher
   * is in place and what changed since the catalog read the folders has been taken in.
   */
  startWatching(): Promise<void>
  /** Stop watching. Idempotent. */
  close(): Promise<void>
}

export interface TemplateCatalogOptions {
  templatesDir: string
  fixturesDir: string
  /**
   * Watch the folders with chokidar from the start (default true). `sendbox check`/`render` pass
   * false, and so does the server, which calls `startWatching()` once its port is open.
   */
  watch?: boolean
  /** Warnings (an unreadable fixture, a watcher error) go here. */
  warn?: (message: string) => void
}
