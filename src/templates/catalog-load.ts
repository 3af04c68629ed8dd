/**
 * The catalog's templates from disk (loaded by the catalog with `import()`: with it the front
 * matter's yaml and the compiler, which a server runs once its port is open): the first load, and a reload after files changed, which
 * compiles only what changed (and re-analyses every template when a partial may have), then says
 * what changed as `TemplateChange`s. Pure of the catalog's state: each takes the entries before
 * and returns the entries after.
 */
import fs from 'node:fs'
import path from 'node:path'
import { analyzeCompiled, compileFile, type Compiled, type Entry } from './compile.js'
import { createEngine, type Engines } from './engine.js'
import { slugOfFileName } from './slug.js'
import { compare, listTemplateFiles, relativeFile } from './template-files.js'
import type { TemplateChange } from './types.js'

export { renderEntry } from './catalog-render.js'

export type { Engines } from './engine.js'

/**
 * The engines of a templates folder. Hand-written text versions (`<slug>.txt.liquid`) are plain
 * text: their own engine, unescaped.
 *
 * @example
 * const engines = createEngines('/app/templates')
 */
export function createEngines(templatesDir: string): Engines {
  return { html: createEngine(templatesDir), text: createEngine(templatesDir, { escape: false }) }
}

/**
 * Every template in the folder, compiled and analysed, by slug.
 *
 * @example
 * const entries = await loadTemplates(engines, '/app/templates')
 */
export async function loadTemplates(
  engines: Engines,
  templatesDir: string,
): Promise<Map<string, Entry>> {
  const { files, texts } = await listTemplateFiles(templatesDir)
  const compiled = await Promise.all(
    [...files].map(([slug, file]) => compileFile(engines.html, slug, file)),
  )
  const textCompiled = await compileTexts(engines, texts, new Set(files.keys()))
  const mtimeOf = statCache()
  const entries = new Map<string, Entry>()
  for (const c of compiled)
    if (c) entries.set(c.slug, analyze(engines, c, textCompiled.get(c.slug), mtimeOf))
  return entries
}

/** The text versions of the given slugs (the others' are ignored: no template, no text). */
async function compileTexts(
  engines: Engines,
  texts: Map<string, string>,
  slugs: Set<string>,
): Promise<Map<string, Compiled>> {
  const out = new Map<string, Compiled>()
  await Promise.all(
    [...texts].map(async ([slug, file]) => {
      if (!slugs.has(slug)) return
      const compiled = await compileFile(engines.text, slug, file)
      if (compiled) out.set(slug, compiled)
    }),
  )
  return out
}

function analyze(
  engines: Engines,
  compiled: Compiled,
  text: Compiled | undefined,
  mtimeOf: (file: string) => number | undefined,
): Entry {
  return analyzeCompiled(
    engines.html,
    compiled,
    mtimeOf,
    text ? { engine: engines.text, compiled: text } : undefined,
  )
}

/**
 * The templates in line with the disk after `changed` (absolute paths) changed: the entries
 * after, and the changes to announce.
 *
 * @example
 * const { entries, changes } = await reloadTemplates(engines, dir, before, ['/app/templates/welcome.liquid'])
 */
export async function reloadTemplates(
  engines: Engines,
  templatesDir: string,
  before: Map<string, Entry>,
  changed: string[],
): Promise<{ entries: Map<string, Entry>; changes: TemplateChange[] }> {
  const { files, texts } = await listTemplateFiles(templatesDir)
  const fresh = await compileChanged(engines, templatesDir, before, changed, files, texts)
  const freshTexts = await compileTexts(engines, texts, new Set(fresh.keys()))
  const full = needsFullAnalysis(templatesDir, before, changed)
  if (full) {
    engines.html.cache.clear()
    engines.text.cache.clear()
  }
  const mtimeOf = statCache()
  const entries = new Map<string, Entry>()
  for (const [slug, file] of [...files].sort(([a], [b]) => compare(a, b))) {
    const compiled = fresh.get(slug)
    const old = before.get(slug)
    if (compiled) entries.set(slug, analyze(engines, compiled, freshTexts.get(slug), mtimeOf))
    else if (old && old.compiled.file === file)
      entries.set(slug, full ? analyze(engines, old.compiled, old.text, mtimeOf) : old)
  }
  const changes = changesBetween(templatesDir, before, entries, new Set(fresh.keys()), changed)
  return { entries, changes }
}

/** Compiles the templates whose file (or text version) changed, came, or moved; by slug. */
async function compileChanged(
  engines: Engines,
  templatesDir: string,
  before: Map<string, Entry>,
  changed: string[],
  files: Map<string, string>,
  texts: Map<string, string>,
): Promise<Map<string, Compiled>> {
  const changedSet = new Set(changed)
  // A folder event (the templates folder itself appeared or went) can hide file events.
  const rescanAll = changed.some((p) => p === templatesDir)
  // A text version that came, went or changed reloads its template.
  const textChanged = (slug: string, old: Entry | undefined) => {
    const file = texts.get(slug)
    return file !== old?.text?.file || (file !== undefined && changedSet.has(file))
  }
  const fresh = new Map<string, Compiled>()
  await Promise.all(
    [...files].map(async ([slug, file]) => {
      const old = before.get(slug)
      const same = old && old.compiled.file === file && !changedSet.has(file)
      if (same && !rescanAll && !textChanged(slug, old)) return
      const compiled = await compileFile(engines.html, slug, file)
      // Null: deleted between the listing and the read; the next event settles it.
      if (compiled) fresh.set(slug, compiled)
    }),
  )
  return fresh
}

/**
 * Partials are cached by name, so any change outside the changed templates themselves (a
 * partial, a layout, a template another one includes, a file that may now resolve a missing
 * include) clears the cache and re-analyses everything. Editing a lone template, the usual
 * case, only re-analyses that one.
 */
function needsFullAnalysis(
  templatesDir: string,
  before: Map<string, Entry>,
  changed: string[],
): boolean {
  if (changed.some((p) => p === templatesDir)) return true
  const sameBase = (a: string, b: string) => stripExtension(a) === stripExtension(b)
  const topLevelTemplates = changed.every((p) => {
    const name = path.basename(p)
    return path.dirname(p) === templatesDir && slugOfFileName(name) !== null
  })
  const dependedOn = [...before.values()].some(
    (e) =>
      e.dynamic || e.error !== undefined || e.deps.some((d) => changed.some((p) => sameBase(d, p))),
  )
  return !topLevelTemplates || dependedOn
}

/** What a reload changed, as the catalog announces it. */
function changesBetween(
  templatesDir: string,
  before: Map<string, Entry>,
  after: Map<string, Entry>,
  reloaded: Set<string>,
  changed: string[],
): TemplateChange[] {
  const changes: TemplateChange[] = []
  const rel = (file: string) => relativeFile(templatesDir, file)
  for (const [slug, old] of before) {
    if (!after.has(slug))
      changes.push({ slug, change: 'removed', source: 'template', path: rel(old.compiled.file) })
  }
  for (const [slug, entry] of after) {
    const old = before.get(slug)
    if (!old) {
      changes.push({ slug, change: 'added', source: 'template', path: rel(entry.compiled.file) })
    } else if (reloaded.has(slug)) {
      // Name the file that changed: the template, or its text version (which may be gone now).
      const textFile = [entry.text?.file, old.text?.file].find(
        (f) => f !== undefined && changed.includes(f),
      )
      const file = rel(textFile ?? entry.compiled.file)
      changes.push({ slug, change: 'changed', source: 'template', path: file })
    } else if (entry !== old) {
      const partial = partialChange(old, entry, changed)
      if (partial !== null)
        changes.push({ slug, change: 'changed', source: 'partial', path: rel(partial) })
    }
  }
  return changes
}

/**
 * A template re-analysed because of a partial is reported when it uses (or used) a changed
 * file, when that cannot be told (computed partial names), or when its state changed: with the
 * partial to name, else null.
 */
function partialChange(old: Entry, entry: Entry, changed: string[]): string | null {
  const deps = new Set([...old.deps, ...entry.deps])
  const hit =
    changed.find((p) => deps.has(p)) ??
    changed.find((p) => [...deps].some((d) => stripExtension(d) === stripExtension(p)))
  const stateChanged = JSON.stringify(old.summary) !== JSON.stringify(entry.summary)
  if (!hit && !entry.dynamic && !old.dynamic && !stateChanged) return null
  return hit ?? changed[0] ?? entry.compiled.file
}

/** mtimes of partial files, read once per refresh. */
function statCache(): (file: string) => number | undefined {
  const seen = new Map<string, number | undefined>()
  return (file) => {
    if (!seen.has(file)) {
      try {
        seen.set(file, fs.statSync(file).mtimeMs)
      } catch {
        seen.set(file, undefined)
      }
    }
    return seen.get(file)
  }
}

function stripExtension(file: string): string {
  return file.replace(/\.(?:liquid|html)$/, '')
}
