/**
 * Turn liquidjs errors into `{ file, line, column, message }`: the file relative to the templates
 * folder, the line in the file (front matter included), one short sentence a person can act on
 * (liquidjs messages carry ", file:…, line:…, col:…" and multi-line excerpts; both go).
 */
import path from 'node:path'
import { LiquidError, TagToken, Tokenizer, type Token } from 'liquidjs'
import { LIMITS } from './engine.js'
import { relativeFile } from './template-files.js'

export { relativeFile }
import type { SourcePosition } from './types.js'

export interface Located extends SourcePosition {
  message: string
}

/** Where the file being compiled or rendered is, to resolve positions without a file. */
export interface ErrorContext {
  /** Absolute templates folder. */
  root: string
  /** Absolute path of the template whose parse/render failed. */
  file: string
  /** Lines of front matter above the body of `file`. */
  lineOffset: number
}

/** An error at a known place that liquidjs did not locate (a missing partial, …). */
export class LocatedError extends Error {
  constructor(
    message: string,
    readonly token: Token,
    cause?: unknown,
  ) {
    super(message, { cause })
    this.name = 'LocatedError'
  }
}

/** Locate any error thrown by parse, analysis or render. Never throws. */
export function locateError(err: unknown, ctx: ErrorContext): Located {
  const found = innermost(err)
  const { token, message } = strayEnd(found.token, friendlyMessage(found.base))
  const file = token?.file ? path.resolve(token.file) : ctx.file
  let line = 1
  let column = 1
  if (token) {
    try {
      const [row, col] = token.getPosition()
      line = row ?? 1
      column = col ?? 1
    } catch {
      // A synthetic token without input: keep line 1.
    }
  }
  if (file === ctx.file) line += ctx.lineOffset
  return { file: relativeFile(ctx.root, file), line, column, message }
}

/** liquidjs's tags that take an end tag (`{% if %}` … `{% endif %}`). */
const BLOCK_TAGS: ReadonlySet<string> = new Set([
  'if',
  'unless',
  'for',
  'case',
  'capture',
  'tablerow',
  'block',
  'comment',
  'raw',
])
/** Tags whose body is not Liquid: a tag inside them opens nothing. */
const OPAQUE_TAGS: ReadonlySet<string> = new Set(['comment', 'raw'])

/**
 * A tag left open inside another (an `{% if %}` inside a `{% block %}`) reaches liquidjs as the
 * outer tag's end: parsing the `if`, it meets `{% endblock %}`, which no tag it knows ends, and
 * reports `tag "endblock" not found` there, a line or more below the mistake. The tag to name
 * is the innermost one still open before that end tag; an end tag with none open closes nothing.
 */
function strayEnd(
  token: Token | undefined,
  message: string,
): { token: Token | undefined; message: string } {
  const stray = /^Unknown tag "end(\w+)"\.$/.exec(message)?.[1]
  if (!token || !stray || !BLOCK_TAGS.has(stray)) return { token, message }
  const opener = openTagBefore(token)
  if (opener && opener.name !== stray)
    return {
      token: opener,
      message: `Tag ${clip(opener.getText())} is not closed (missing {% end${opener.name} %} before {% end${stray} %}).`,
    }
  if (!opener)
    return { token, message: `{% end${stray} %} closes nothing: no {% ${stray} %} is open here.` }
  return { token, message }
}

/** The innermost block tag still open where `end` begins, in the same source. */
function openTagBefore(end: Token): TagToken | undefined {
  let tokens: ReturnType<Tokenizer['readTopLevelTokens']>
  try {
    tokens = new Tokenizer(end.input, undefined, end.file).readTopLevelTokens()
  } catch {
    return undefined
  }
  const open: TagToken[] = []
  for (const token of tokens) {
    if (token.begin >= end.begin) break
    if (!(token instanceof TagToken)) continue
    const top = open.at(-1)
    if (top && token.name === `end${top.name}`) open.pop()
    else if (top && OPAQUE_TAGS.has(top.name)) continue
    else if (BLOCK_TAGS.has(token.name)) open.push(token)
  }
  return open.at(-1)
}

/**
 * Walk a chain of wrapped errors (a RenderError for the `include` tag wraps the RenderError inside
 * the partial, which wraps the real cause) to the innermost located token and the root cause.
 */
function innermost(err: unknown): { token: Token | undefined; base: unknown } {
  let token: Token | undefined
  let current: unknown = err
  for (let depth = 0; depth < 50 && current; depth++) {
    if (current instanceof LocatedError) {
      token = current.token
      return { token, base: current }
    }
    if (LiquidError.is(current)) {
      const liquidError = current as LiquidError & { token?: Token; originalError?: unknown }
      if (liquidError.token) token = liquidError.token
      if (!liquidError.originalError) return { token, base: current }
      current = liquidError.originalError
      continue
    }
    return { token, base: current }
  }
  return { token, base: current }
}

const REWRITES: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [
    /^ENOENT: Failed to lookup "(.*)" in .*$/s,
    (m) => `Partial or layout "${m[1]}" was not found in the templates folder.`,
  ],
  [
    /^memory alloc limit exceeded/,
    () =>
      `Memory limit exceeded (${LIMITS.memoryLimit.toLocaleString('en-US')} units): the template builds too much output or too large a range.`,
  ],
  [
    /^template render limit exceeded/,
    () => `Render took longer than ${LIMITS.renderLimit} ms (a runaway loop?).`,
  ],
  [
    /^parse length limit exceeded/,
    () => `Template is longer than ${LIMITS.parseLimit.toLocaleString('en-US')} characters.`,
  ],
  [
    /^output "(.{0,40}).*" not closed/s,
    (m) => `Output ${JSON.stringify(clip(m[1]!))} is not closed (missing "}}").`,
  ],
  [
    /^tag (\{%-?\s*(\w+).*?-?%\}) not closed/s,
    (m) => `Tag ${clip(m[1]!)} is not closed (missing {% end${m[2]} %}).`,
  ],
  [
    /^tag "(.{0,40}).*" not closed/s,
    (m) => `Tag ${JSON.stringify(clip(m[1]!))} is not closed (missing "%}").`,
  ],
  [/^undefined filter: (.*)$/, (m) => `Unknown filter "${m[1]}".`],
  [/^tag "(.*)" not found$/, (m) => `Unknown tag "${m[1]}".`],
  [
    /^Maximum call stack size exceeded/,
    () => 'Partials include each other too deeply (a partial that includes itself?).',
  ],
]

/** One sentence, no liquidjs position suffix, no excerpt. */
export function friendlyMessage(err: unknown): string {
  let message = err instanceof Error ? err.message : String(err)
  // liquidjs appends ", file:/abs/path, line:3, col:5" (possibly more than once when wrapped).
  message = message.replace(/(?:, file:.*?)?, line:\d+, col:\d+/g, '').trim()
  for (const [pattern, rewrite] of REWRITES) {
    const match = message.match(pattern)
    if (match) return rewrite(match)
  }
  message = message.split('\n')[0] ?? ''
  if (message === '') return 'Unknown template error.'
  message = message[0]!.toUpperCase() + message.slice(1)
  return /[.!?]$/.test(message) ? message : `${message}.`
}

/** A source excerpt on one line, at most 40 characters. */
function clip(text: string): string {
  const line = text.replace(/(?:\\n|\s)+/g, ' ').trim()
  return line.length > 40 ? `${line.slice(0, 39)}…` : line
}
