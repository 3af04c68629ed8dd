/**
 * YAML front matter: a leading `---` … `---` block. Parsed with the `yaml` package only (never
 * gray-matter: it evaluates `---js` blocks, and templates are untrusted-ish files that a
 * sandbox must not execute).
 */
import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml'
import type { DeclaredVariable } from './types.js'

export interface FrontMatter {
  /** The source after the front matter block (the whole source when there is none). */
  body: string
  /** Lines taken by the front matter: add it to a body line to get the file line. */
  lineOffset: number
  description: string | null
  declared: Record<string, DeclaredVariable>
}

/** A problem in the front matter, at a line and column of the file. */
export interface FrontMatterError {
  line: number
  column: number
  message: string
}

export type FrontMatterResult =
  | ({ ok: true } & FrontMatter)
  | { ok: false; error: FrontMatterError; body: string; lineOffset: number }

const OPEN = /^---[ \t]*\r?\n/
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/

/** Dotted names of plain identifiers (Liquid also allows `-` in names). */
const VARIABLE_NAME = /^[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*$/
const VARIABLE_KEYS: ReadonlySet<string> = new Set(['description', 'example', 'required'])

interface Split {
  body: string
  lineOffset: number
  /** The YAML text, or null without front matter. */
  yaml: string | null
  /** True when a block was opened but never closed. */
  unclosed: boolean
}

/** Split the front matter block off the source, without parsing it. */
export function splitFrontMatter(source: string): Split {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source
  const open = OPEN.exec(text)
  if (!open) return { body: text, lineOffset: 0, yaml: null, unclosed: false }
  let pos = open[0].length
  let line = 1
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos)
    const end = nl === -1 ? text.length : nl
    const current = text.slice(pos, end).replace(/\r$/, '')
    line += 1
    if (CLOSE.test(current)) {
      return {
        yaml: text.slice(open[0].length, pos),
        body: nl === -1 ? '' : text.slice(nl + 1),
        // Lines 1..line are front matter, so body line 1 is file line line+1.
        lineOffset: line,
        unclosed: false,
      }
    }
    if (nl === -1) break
    pos = nl + 1
  }
  return { body: text, lineOffset: 0, yaml: null, unclosed: true }
}

/** Split and parse the front matter: `description` and `variables`. Never throws. */
export function parseFrontMatter(source: string): FrontMatterResult {
  const split = splitFrontMatter(source)
  const fail = (line: number, column: number, message: string): FrontMatterResult => ({
    ok: false,
    error: { line, column, message },
    body: split.body,
    lineOffset: split.lineOffset,
  })
  if (split.unclosed) {
    return fail(1, 1, 'Front matter starts with "---" on line 1 but has no closing "---" line.')
  }
  if (split.yaml === null || split.yaml.trim() === '') {
    return {
      ok: true,
      body: split.body,
      lineOffset: split.lineOffset,
      description: null,
      declared: {},
    }
  }

  // The YAML text starts on line 2 of the file.
  const lines = new LineCounter()
  const doc = parseDocument(split.yaml, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
  })
  const at = (node: Node | null | undefined): { line: number; column: number } => {
    const offset = node?.range?.[0] ?? 0
    const pos = lines.linePos(offset)
    return { line: pos.line + 1, column: pos.col }
  }
  const first = doc.errors[0]
  if (first) {
    const pos = lines.linePos(first.pos[0])
    const message = firstSentence(first.message)
    return fail(pos.line + 1, pos.col, `Invalid YAML front matter: ${message}`)
  }
  const root = doc.contents
  if (root === null || (isScalar(root) && root.value === null)) {
    return {
      ok: true,
      body: split.body,
      lineOffset: split.lineOffset,
      description: null,
      declared: {},
    }
  }
  if (!isMap(root)) {
    const { line, column } = at(root)
    return fail(line, column, 'Front matter must be a YAML mapping (key: value lines).')
  }

  const fields = readFields(root, at)
  if ('error' in fields) return fail(fields.error.line, fields.error.column, fields.error.message)
  return { ok: true, body: split.body, lineOffset: split.lineOffset, ...fields }
}

/** `description` and `variables` of the front matter's mapping. */
function readFields(
  root: YAMLMap,
  at: At,
):
  | { description: string | null; declared: Record<string, DeclaredVariable> }
  | { error: FrontMatterError } {
  let description: string | null = null
  let declared: Record<string, DeclaredVariable> = {}
  for (const pair of root.items) {
    const keyNode = pair.key as Node | null
    const key = isScalar(keyNode) ? String(keyNode.value) : ''
    const valueNode = pair.value as Node | null
    if (key === 'description') {
      const value = isScalar(valueNode) ? valueNode.value : valueNode
      if (value === null || value === undefined) continue
      if (typeof value !== 'string')
        return {
          error: {
            ...at(valueNode ?? keyNode),
            message: 'Front matter "description" must be a string.',
          },
        }
      description = value
    } else if (key === 'variables') {
      const result = parseDeclared(valueNode, at)
      if ('error' in result) return result
      declared = result.declared
    }
    // Other keys are left for future use (and for other tools sharing the file).
  }
  return { description, declared }
}

type At = (node: Node | null | undefined) => { line: number; column: number }

/** `variables`: a map of name → {description?, example?, required?} (or a string: the
 * description, or null), or a list of names. */
function parseDeclared(
  node: Node | null,
  at: At,
): { declared: Record<string, DeclaredVariable> } | { error: FrontMatterError } {
  const declared: Record<string, DeclaredVariable> = {}
  const bad = (n: Node | null | undefined, message: string) => ({ error: { ...at(n), message } })
  if (node === null || (isScalar(node) && node.value === null)) return { declared }

  if (isSeq(node)) {
    for (const item of node.items as Array<Node | null>) {
      const name = isScalar(item) ? item.value : undefined
      if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) {
        return bad(item ?? node, 'Each entry of front matter "variables" must be a variable name.')
      }
      declared[name] = {}
    }
    return { declared }
  }
  if (!isMap(node)) {
    return bad(node, 'Front matter "variables" must be a mapping of names (or a list of names).')
  }
  for (const pair of node.items) {
    const keyNode = pair.key as Node | null
    const name = isScalar(keyNode) ? keyNode.value : undefined
    if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) {
      return bad(keyNode, `"${String(name)}" is not a valid variable name.`)
    }
    const entry = declaredVariable(name, pair.value as Node | null, bad)
    if ('error' in entry) return entry
    declared[name] = entry.variable
  }
  return { declared }
}

/** One declared variable: nothing, its description, or {description?, example?, required?}. */
function declaredVariable(
  name: string,
  valueNode: Node | null,
  bad: (n: Node | null | undefined, message: string) => { error: FrontMatterError },
): { variable: DeclaredVariable } | { error: FrontMatterError } {
  const value: unknown = valueNode ? valueNode.toJSON() : null
  if (value === null || value === undefined) return { variable: {} }
  if (typeof value === 'string') return { variable: { description: value } }
  if (typeof value !== 'object' || Array.isArray(value)) {
    return bad(valueNode, `Variable "${name}" must have description, example or required.`)
  }
  const entry = value as Record<string, unknown>
  for (const key of Object.keys(entry)) {
    if (!VARIABLE_KEYS.has(key)) {
      return bad(
        valueNode,
        `Unknown key "${key}" for variable "${name}" (use description, example or required).`,
      )
    }
  }
  const result: DeclaredVariable = {}
  if (entry.description !== undefined && entry.description !== null) {
    if (typeof entry.description !== 'string') {
      return bad(valueNode, `The description of variable "${name}" must be a string.`)
    }
    result.description = entry.description
  }
  if ('example' in entry) result.example = entry.example
  if (entry.required !== undefined && entry.required !== null) {
    if (typeof entry.required !== 'boolean') {
      return bad(valueNode, `"required" of variable "${name}" must be true or false.`)
    }
    result.required = entry.required
  }
  return { variable: result }
}

/** The first line of a library message, without its trailing position ("at line 3, column 1"). */
function firstSentence(message: string): string {
  const line = message.split('\n')[0] ?? message
  const trimmed = line.replace(/ at line \d+, column \d+:?\s*$/, '').trim()
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`
}
