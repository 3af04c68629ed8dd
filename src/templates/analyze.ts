/**
 * Which variables a template reads from the caller, built on liquidjs's own static analysis
 * (`analyzeSync` with partials). Two things the analysis does not say are added by walking the
 * parsed templates through the same public protocol the analysis uses (`arguments()`,
 * `children()`, `partialScope()`), never by scanning the source:
 *
 * - which uses pass through `default` as their first filter (those variables are optional);
 * - which partial and layout files are used (to reload dependants, and for `updatedAt`);
 * - what a loop body reads through its loop variable (`{% for story in stories %}{{ story.title }}`
 *   reads `stories[].title`), so a variables editor can start a loop with an array of objects.
 */
import {
  ForTag,
  LiquidError,
  RenderTag,
  TablerowTag,
  TypeGuards,
  Value,
  toValueSync,
  type Template as LiquidTemplate,
  type Token,
  type Variable,
  type VariableLocation,
} from 'liquidjs'
import type { Engine } from './engine.js'
import { LocatedError, friendlyMessage } from './errors.js'
import type { DeclaredVariable, Template } from './types.js'

export interface TemplateAnalysis {
  /** Top-level names the template reads from the caller (front matter not included). */
  names: string[]
  /** Every static dotted path read from the caller → true when every use passes `default`. */
  paths: Map<string, boolean>
  /** Absolute files of the partials and layouts used by static name. */
  deps: string[]
  /** Some `render`/`include`/`layout` computes its file name at render time. */
  dynamic: boolean
  /** Paths read through loop variables, `[]` standing for an item: `stories[].title`. Sorted. */
  items: string[]
}

interface WalkState {
  /** Locations of variables used as `x | default: …` (first filter). */
  defaulted: Set<string>
  /** Locations of the collection of a `{% render "p" for collection as item %}`. */
  collections: Set<string>
  /** Partials reached in the caller's scope (`include`, `layout`). */
  shared: Set<string>
  /** Partials reached only inside a `render`, which sees nothing but its parameters. */
  isolated: Set<string>
  visited: Set<string>
  dynamic: boolean
  /** Item paths (see TemplateAnalysis.items), before the roots are checked against the globals. */
  items: Set<string>
}

/** Loop variables in scope → the path of their collection's items (`story` → `stories[]`). */
type LoopAliases = ReadonlyMap<string, string>

/** Accessors that apply to the value itself: `items.size` needs `items`, not a key "size". */
const ACCESSORS: ReadonlySet<string> = new Set(['size', 'first', 'last'])

/**
 * Analyse a parsed template (and, through the engine's cache, the partials it uses). Throws a
 * liquidjs error or a LocatedError when a partial is missing, leaves the folder or does not
 * parse: the template is then invalid.
 */
export function analyzeTemplate(engine: Engine, templates: LiquidTemplate[]): TemplateAnalysis {
  const state: WalkState = {
    defaulted: new Set(),
    collections: new Set(),
    shared: new Set(),
    isolated: new Set(),
    visited: new Set(),
    dynamic: false,
    items: new Set(),
  }
  // The walk loads every static partial first, so a missing or broken one is reported at the tag
  // that names it; the analysis below then finds them all in the cache.
  walk(engine, templates, false, new Map(), state)
  const { names, paths } = readNeeds(analyzeGlobals(engine, templates), state)
  // A loop over something the template assigned itself is not the caller's to fill.
  const items = [...state.items].filter((path) => names.has(path.split(/[.[]/)[0]!))
  return {
    names: [...names].sort(),
    paths,
    deps: [...new Set([...state.shared, ...state.isolated])].sort(),
    dynamic: state.dynamic,
    items: items
      .filter((p) => !items.some((q) => q.startsWith(`${p}.`) || q.startsWith(`${p}[]`)))
      .sort(),
  }
}

/** liquidjs's own analysis of the template with its partials (found in the engine's cache). */
function analyzeGlobals(engine: Engine, templates: LiquidTemplate[]) {
  try {
    return engine.liquid.analyzeSync(templates, { partials: true })
  } catch (err) {
    // liquidjs marks a partial as analysed only after its first node, so a partial that
    // includes itself inside that node (a tree: `{% for c in node.children %}{% include
    // "tree" %}`) recurses without end. Such a template is fine to render; analyse its own
    // file only (the names its partials read from the caller are then not known).
    if (!(err instanceof RangeError)) throw err
    return engine.liquid.analyzeSync(templates, { partials: false })
  }
}

/**
 * The names and paths the caller must (or, when every use is defaulted, may) supply: the
 * analysis's globals, with aliases of a rendered collection read as the collection.
 */
function readNeeds(
  analysis: ReturnType<Engine['liquid']['analyzeSync']>,
  state: WalkState,
): { names: Set<string>; paths: Map<string, boolean> } {
  // Globals that are the very objects of `variables` were not rewritten through an alias. Such a
  // global located in a partial that only `render` reaches reads a name that a render's isolated
  // scope never has: no request can supply it, so it must not be required.
  const own = new Set<Variable>(Object.values(analysis.variables).flat())
  const isolatedOnly = (file: string | undefined) =>
    file !== undefined && state.isolated.has(file) && !state.shared.has(file)
  const globals = Object.values(analysis.globals).flat()

  const collections: string[] = []
  for (const variable of globals) {
    if (state.collections.has(locationKey(variable.location))) {
      const path = staticPath(variable.segments)
      if (path) collections.push(path)
    }
  }

  const names = new Set<string>()
  const paths = new Map<string, boolean>()
  for (const variable of globals) {
    const aliased = !own.has(variable)
    if (!aliased && isolatedOnly(variable.location.file)) continue
    let path = staticPath(variable.segments)
    if (path === null) continue
    // `{% render "row" for order.items as item %}` aliases `item.name` to `order.items.name`:
    // the partial reads the items, so the need is the collection itself.
    if (aliased) {
      const collection = collections.find((c) => path!.startsWith(`${c}.`))
      if (collection) path = collection
    }
    names.add(path.split('.')[0]!)
    const defaulted = state.defaulted.has(locationKey(variable.location))
    paths.set(path, (paths.get(path) ?? true) && defaulted)
  }
  return { names, paths }
}

function walk(
  engine: Engine,
  templates: LiquidTemplate[],
  isolated: boolean,
  aliases: LoopAliases,
  state: WalkState,
): void {
  for (const node of templates) {
    if (node.arguments) {
      for (const argument of node.arguments()) markDefaulted(argument, state)
    }
    if (!isolated && (node instanceof ForTag || node instanceof TablerowTag)) {
      // (A render partial sees only its parameters: its loops are not the caller's.)
      const inner = loopItems(engine, node, aliases, state)
      walk(engine, node.templates, isolated, inner, state)
      if (node instanceof ForTag) walk(engine, node.elseTemplates, isolated, aliases, state)
      continue
    }
    if (node.partialScope) {
      const scope = node.partialScope()
      if (scope) {
        const partial = loadPartial(engine, scope.name, node)
        const file = engine.cache.fileOf(partial)
        const childIsolated = isolated || scope.isolated
        if (file) (childIsolated ? state.isolated : state.shared).add(file)
        if (node instanceof RenderTag) {
          const binding = (node as unknown as { forBinding?: { value?: unknown } }).forBinding
          if (binding?.value && TypeGuards.isPropertyAccessToken(binding.value)) {
            state.collections.add(tokenKey(binding.value))
          }
        }
        const key = `${childIsolated}:${file ?? scope.name}`
        if (!state.visited.has(key)) {
          state.visited.add(key)
          walk(engine, partial, childIsolated, childIsolated ? new Map() : aliases, state)
        }
      } else if (hasComputedFile(node)) {
        state.dynamic = true
      }
    }
    if (node.children) {
      // `false`: partials are handled above (a layout's children are then the rest of the file).
      walk(
        engine,
        toValueSync(node.children(false, true)) as LiquidTemplate[],
        isolated,
        aliases,
        state,
      )
    }
  }
}

/**
 * A loop's item paths: its body analysed on its own, where the loop variable is a global, so
 * what it reads through the variable (in the body and the partials it includes) comes out as
 * `story.title` → `stories[].title`. Returns the aliases inside the loop.
 */
function loopItems(
  engine: Engine,
  loop: ForTag | TablerowTag,
  aliases: LoopAliases,
  state: WalkState,
): LoopAliases {
  const segments = TypeGuards.isPropertyAccessToken(loop.collection)
    ? loop.collection.props.map((p) => (p as { content?: unknown }).content ?? null)
    : []
  const path = staticPath(segments)
  if (path === null) return aliases // a range, a literal, a computed collection
  const [root, ...rest] = path.split('.')
  const collection = aliases.has(root!) ? [aliases.get(root!)!, ...rest].join('.') : path
  const item = `${collection}[]`
  let body: ReturnType<typeof engine.liquid.analyzeSync>
  try {
    body = engine.liquid.analyzeSync(loop.templates, { partials: true })
  } catch {
    body = engine.liquid.analyzeSync(loop.templates, { partials: false }) // see analyzeTemplate
  }
  for (const variable of Object.values(body.globals).flat()) {
    if (variable.segments[0] !== loop.variable) continue
    const read = staticPath(variable.segments)
    if (read !== null)
      state.items.add(read === loop.variable ? item : `${item}${read.slice(loop.variable.length)}`)
  }
  return new Map([...aliases, [loop.variable, item]])
}

function loadPartial(engine: Engine, name: string, node: LiquidTemplate): LiquidTemplate[] {
  const currentFile = (node as unknown as { currentFile?: string }).currentFile
  try {
    return toValueSync(engine.liquid._parsePartialFile(name, true, currentFile)) as LiquidTemplate[]
  } catch (err) {
    // A parse error inside the partial keeps its own position; a lookup failure is reported at
    // the tag that names the partial.
    if (LiquidError.is(err)) throw err
    throw new LocatedError(friendlyMessage(err), node.token, err)
  }
}

/** `{% include name %}` with a variable (or a quoted name with Liquid inside it). */
function hasComputedFile(node: LiquidTemplate): boolean {
  const file = (node as unknown as { file?: unknown }).file
  return file !== undefined && typeof file !== 'string'
}

function markDefaulted(argument: unknown, state: WalkState): void {
  if (!(argument instanceof Value)) return
  if (argument.filters[0]?.name !== 'default') return
  const postfix = argument.initial.postfix
  const only = postfix[0]
  if (postfix.length === 1 && only && TypeGuards.isPropertyAccessToken(only)) {
    state.defaulted.add(tokenKey(only))
  }
}

/** The key of a variable's location, as liquidjs computes it for a property access token. */
function tokenKey(token: Token): string {
  let file = token.file
  if (TypeGuards.isPropertyAccessToken(token)) {
    for (const prop of token.props) file = file || prop.file
  }
  const [row, col] = token.getPosition()
  return locationKey({ row: row!, col: col!, file })
}

function locationKey(location: VariableLocation): string {
  return `${location.file ?? ''}:${location.row}:${location.col}`
}

/**
 * The dotted path a use needs: string segments up to the first index, computed key
 * (`items[i]`), or accessor (`size`, `first`, `last`). `items[0].name` needs `items`.
 */
export function staticPath(segments: ReadonlyArray<unknown>): string | null {
  const out: string[] = []
  for (const segment of segments) {
    if (typeof segment !== 'string' || segment === '' || segment.includes('.')) break
    if (out.length > 0 && ACCESSORS.has(segment)) break
    out.push(segment)
  }
  return out.length > 0 ? out.join('.') : null
}

/**
 * `Template.variables` and `Template.requiredPaths` from the analysis and the front matter:
 * - a path is optional when every use passes `default`, or front matter says `required: false`
 *   for it or for a path above it;
 * - a declared name the analysis never sees is required (unless `required: false`); a declared
 *   `required: true` is required even when only used with `default`;
 * - a path implied by a longer required one (`order` by `order.id`) is dropped.
 */
export function resolveVariables(
  analysis: Pick<TemplateAnalysis, 'names' | 'paths'>,
  declared: Record<string, DeclaredVariable>,
): { variables: string[]; requiredPaths: string[] } {
  const under = (path: string, name: string) => path === name || path.startsWith(`${name}.`)
  const optional = Object.entries(declared)
    .filter(([, d]) => d.required === false)
    .map(([name]) => name)
  const required = new Set<string>()
  for (const [path, defaulted] of analysis.paths) {
    if (!defaulted && !optional.some((name) => under(path, name))) required.add(path)
  }
  const analysed = [...analysis.paths.keys()]
  for (const [name, d] of Object.entries(declared)) {
    if (d.required === false) continue
    const used = analysed.some((path) => under(path, name))
    if (!used || d.required === true) required.add(name)
  }
  const all = [...required]
  const requiredPaths = all.filter((p) => !all.some((q) => q.startsWith(`${p}.`))).sort()
  const variables = new Set(analysis.names)
  for (const name of Object.keys(declared)) variables.add(name.split('.')[0]!)
  return { variables: [...variables].sort(), requiredPaths }
}

/**
 * `Template.paths`: every dotted path the template reads (analysed, or declared in front
 * matter), required or not, sorted.
 *
 * @example readPaths({ paths: new Map([['a.b', true]]) }, { c: {} }, ['c']) // ['a.b', 'c']
 */
export function readPaths(
  analysis: Pick<TemplateAnalysis, 'paths'>,
  declared: Record<string, DeclaredVariable>,
  requiredPaths: readonly string[],
): string[] {
  return [...new Set([...analysis.paths.keys(), ...Object.keys(declared), ...requiredPaths])].sort()
}

/**
 * The required paths of `template` that `variables` does not supply: each dotted segment must
 * lead through objects to a value that is neither undefined nor null. Sorted, unique.
 */
export function missingVariables(template: Template, variables: Record<string, unknown>): string[] {
  const missing = new Set<string>()
  for (const path of template.requiredPaths) {
    if (!resolves(variables, path)) missing.add(path)
  }
  return [...missing].sort()
}

function resolves(variables: unknown, path: string): boolean {
  let current: unknown = variables
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) {
      return false
    }
    current = (current as Record<string, unknown>)[segment]
    if (current === undefined || current === null) return false
  }
  return true
}

/** Top-level keys supplied that the template never reads (a warning, not an error). */
export function unusedVariables(template: Template, variables: Record<string, unknown>): string[] {
  const used = new Set(template.variables)
  return Object.keys(variables ?? {})
    .filter((key) => !used.has(key))
    .sort()
}
