/**
 * One template file, in two steps:
 * - `compileTemplate`: front matter + `liquid.parse`, once per version of the file;
 * - `analyzeCompiled`: variables, partials used, validity; redone when a partial changes.
 * Both run at load/change time so that a request only looks things up.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Template as LiquidTemplate } from 'liquidjs'
import { analyzeTemplate, readPaths, resolveVariables, type TemplateAnalysis } from './analyze.js'
import type { Engine } from './engine.js'
import { isInside } from './template-files.js'
import { locateError, relativeFile } from './errors.js'
import { parseFrontMatter } from './frontmatter.js'
import type { DeclaredVariable, Template, TemplateParseError, TemplateSummary } from './types.js'

export interface Compiled {
  slug: string
  /** Absolute path. */
  file: string
  mtimeMs: number
  body: string
  lineOffset: number
  description: string | null
  declared: Record<string, DeclaredVariable>
  /** Present when the front matter and the Liquid parse succeeded. */
  parsed?: LiquidTemplate[]
  /** Present when they did not. */
  error?: TemplateParseError
}

/** A compiled template after analysis: what the catalog serves. */
export interface Entry {
  compiled: Compiled
  /** Its hand-written text version (`<slug>.txt.liquid`), compiled by the text engine. */
  text?: Compiled
  /** Present when valid. */
  template?: Template
  /** Present when invalid (the file, or a partial it uses, does not parse or is missing). */
  error?: TemplateParseError
  /** Absolute files of the partials and layouts it uses by static name. */
  deps: string[]
  /** Uses a partial whose name is computed at render time. */
  dynamic: boolean
  summary: TemplateSummary
}

/**
 * Read a template file. Null when it is gone (a delete raced the scan) or is no file. Read
 * synchronously, as the folder is listed and the fixtures read: each call through the thread
 * pool cost ~60 µs of CPU, six a template, and with 300 templates a start answered its first
 * health in 342 ms against 488, its first send in 973 against 1,221 (7 alternating rounds).
 */
export async function compileFile(
  engine: Engine,
  slug: string,
  file: string,
): Promise<Compiled | null> {
  let source: string
  let mtimeMs: number
  try {
    const real = fs.realpathSync(file)
    const stat = fs.statSync(real)
    // A named pipe would hold the read until something wrote to it: only a file is a template.
    if (!stat.isFile()) return null
    mtimeMs = stat.mtimeMs
    if (!isInside(realRoot(engine.root), real)) {
      return failed(
        engine,
        slug,
        file,
        mtimeMs,
        'The file is a link to a file outside the templates folder.',
      )
    }
    source = fs.readFileSync(real, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return null
    return failed(engine, slug, file, Date.now(), `Cannot read the file: ${(err as Error).message}`)
  }
  return compileTemplate(engine, slug, file, source, mtimeMs)
}

/** Front matter and Liquid parse of a template's source. Never throws. */
export function compileTemplate(
  engine: Engine,
  slug: string,
  file: string,
  source: string,
  mtimeMs: number,
): Compiled {
  const front = parseFrontMatter(source)
  const base = { slug, file, mtimeMs, body: front.body, lineOffset: front.lineOffset }
  if (!front.ok) {
    const error = { file: relativeFile(engine.root, file), ...front.error }
    return { ...base, description: null, declared: {}, error }
  }
  const compiled: Compiled = { ...base, description: front.description, declared: front.declared }
  try {
    compiled.parsed = engine.liquid.parse(front.body, file)
  } catch (err) {
    compiled.error = locateError(err, { root: engine.root, file, lineOffset: front.lineOffset })
  }
  return compiled
}

/**
 * Analyse a compiled template. `mtimeOf` gives the mtime of a partial file (the catalog caches
 * stats for one refresh). Never throws.
 */
export function analyzeCompiled(
  engine: Engine,
  compiled: Compiled,
  mtimeOf: (file: string) => number | undefined,
  text?: TextPart,
): Entry {
  const entry = analyzeOne(engine, compiled, mtimeOf, text)
  return text ? { ...entry, text: text.compiled } : entry
}

type TextPart = { engine: Engine; compiled: Compiled }

function analyzeOne(
  engine: Engine,
  compiled: Compiled,
  mtimeOf: (file: string) => number | undefined,
  text?: TextPart,
): Entry {
  if (!compiled.parsed) return invalidEntry(compiled, compiled.error!, [], false)
  const outcome = analyzeParts(engine, compiled, compiled.parsed, text)
  if (!outcome.ok) return invalidEntry(compiled, outcome.error, outcome.deps, outcome.dynamic)
  return validEntry(compiled, outcome.analysis, mtimeOf, text)
}

/**
 * The analysis of the template and of its text version, merged, or the error that makes the
 * template invalid (with what was learnt of its partials before it).
 */
function analyzeParts(
  engine: Engine,
  compiled: Compiled,
  parsed: LiquidTemplate[],
  text: TextPart | undefined,
):
  | { ok: true; analysis: TemplateAnalysis }
  | { ok: false; error: TemplateParseError; deps: string[]; dynamic: boolean } {
  let analysis: TemplateAnalysis
  try {
    analysis = analyzeTemplate(engine, parsed)
  } catch (err) {
    return { ok: false, error: locatedIn(engine, compiled, err), deps: [], dynamic: false }
  }
  if (!text) return { ok: true, analysis }
  // The text version renders with the same variables: what it reads is needed too, and a text
  // version that does not parse makes the template invalid (the error points into it).
  const { deps, dynamic } = analysis
  if (!text.compiled.parsed) return { ok: false, error: text.compiled.error!, deps, dynamic }
  try {
    const ofText = analyzeTemplate(text.engine, text.compiled.parsed)
    return { ok: true, analysis: mergeAnalyses(analysis, ofText) }
  } catch (err) {
    return { ok: false, error: locatedIn(engine, text.compiled, err), deps, dynamic }
  }
}

/** Where in a compiled file an analysis error points (its front matter lines counted). */
function locatedIn(engine: Engine, compiled: Compiled, err: unknown): TemplateParseError {
  return locateError(err, {
    root: engine.root,
    file: compiled.file,
    lineOffset: compiled.lineOffset,
  })
}

const summaryOf = (
  compiled: Compiled,
  variables: string[],
  updatedAt: string,
  error?: TemplateParseError,
): TemplateSummary => ({
  slug: compiled.slug,
  description: compiled.description,
  variables,
  updatedAt,
  ...(error ? { error } : {}),
})

/** An invalid template: its declared variables and its own time, with the error. */
function invalidEntry(
  compiled: Compiled,
  error: TemplateParseError,
  deps: string[],
  dynamic: boolean,
): Entry {
  const ownTime = new Date(compiled.mtimeMs).toISOString()
  const declaredNames = [
    ...new Set(Object.keys(compiled.declared).map((n) => n.split('.')[0]!)),
  ].sort()
  return {
    compiled,
    error,
    deps,
    dynamic,
    summary: summaryOf(compiled, declaredNames, ownTime, error),
  }
}

/** A valid template: its variables and paths, updated when it or a partial it uses last was. */
function validEntry(
  compiled: Compiled,
  analysis: TemplateAnalysis,
  mtimeOf: (file: string) => number | undefined,
  text: TextPart | undefined,
): Entry {
  const { variables, requiredPaths } = resolveVariables(analysis, compiled.declared)
  const paths = readPaths(analysis, compiled.declared, requiredPaths)
  let newest = Math.max(compiled.mtimeMs, text?.compiled.mtimeMs ?? 0)
  for (const dep of analysis.deps) newest = Math.max(newest, mtimeOf(dep) ?? 0)
  const updatedAt = new Date(newest).toISOString()
  const template: Template = Object.freeze({
    slug: compiled.slug,
    file: compiled.file,
    body: compiled.body,
    description: compiled.description,
    variables: Object.freeze(variables) as string[],
    requiredPaths: Object.freeze(requiredPaths) as string[],
    paths: Object.freeze(paths) as string[],
    itemPaths: Object.freeze(analysis.items) as string[],
    declared: compiled.declared,
    updatedAt,
    ...(text ? { textFile: text.compiled.file } : {}),
  })
  return {
    compiled,
    template,
    deps: analysis.deps,
    dynamic: analysis.dynamic,
    summary: summaryOf(compiled, template.variables, updatedAt),
  }
}

/** Both parts' needs: a path is optional only when every use in either passes `default`. */
function mergeAnalyses(a: TemplateAnalysis, b: TemplateAnalysis): TemplateAnalysis {
  const paths = new Map(a.paths)
  for (const [path, defaulted] of b.paths) paths.set(path, (paths.get(path) ?? true) && defaulted)
  return {
    names: [...new Set([...a.names, ...b.names])].sort(),
    paths,
    deps: [...new Set([...a.deps, ...b.deps])].sort(),
    dynamic: a.dynamic || b.dynamic,
    items: [...new Set([...a.items, ...b.items])].sort(),
  }
}

function failed(
  engine: Engine,
  slug: string,
  file: string,
  mtimeMs: number,
  message: string,
): Compiled {
  return {
    slug,
    file,
    mtimeMs,
    body: '',
    lineOffset: 0,
    description: null,
    declared: {},
    error: { file: relativeFile(engine.root, file), line: 1, column: 1, message },
  }
}

function realRoot(root: string): string {
  try {
    return fs.realpathSync(root)
  } catch {
    return path.resolve(root)
  }
}
