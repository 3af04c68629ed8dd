import { DomHandler, Parser } from 'htmlparser2'
import type { Document, Element } from 'domhandler'
import { countRules, MAX_RULES, type ParsedCss, parseCss } from './css.js'

/** The parsed HTML plus a way to turn a character offset into a 1-based line (and column). */
export interface ParsedHtml {
  document: Document
  elements: Element[]
  lineOf(offset: number | null | undefined): number | null
  /** 1-based line and column (in UTF-16 units) of an offset; null for none. */
  placeOf(offset: number | null | undefined): { line: number; column: number } | null
  /**
   * A `<style>` block's text parsed (`parseCss`), once for every check of this email: the
   * accessibility and client checks each parsed it, and @adobe/css-tools takes about 40 µs a
   * rule (a sheet of 50,000 rules, 2 s each).
   */
  css(text: string): ParsedCss
  /** Its `<style>` elements, in order. */
  styles: Element[]
  /** How many rules its `<style>` blocks hold in all (`countRules`), a text repeated counted once. */
  styleRules: number
  /** Whether the checks read its `<style>` blocks: when they hold `MAX_RULES` rules or fewer. */
  stylesRead: boolean
  /**
   * Where the first node the checks do not read starts (a character offset), and why: past
   * `MAX_NODES` nodes, or deeper than `MAX_DEPTH`. Nothing after it is read. Null when the
   * whole HTML was read.
   */
  unread: Unread | null
}

/** Where, and why, the checks stopped reading an email (`ParsedHtml.unread`). */
export interface Unread {
  from: number
  past: 'nodes' | 'depth'
}

/**
 * How many nodes (elements, runs of text, comments) of an email the checks read: the rest, from
 * the first node past it, is not parsed. Building the tree costs 2 to 3 µs a node before any
 * check runs (htmlparser2 and domhandler, with the garbage collector a third of it), so that
 * the 308,000 `<b>`s of 1 MiB of unclosed tags took 1.2 s to check; the real emails of the
 * corpus hold 1,934 nodes at most (Colorlib's template-01, 93 KB) and 293 at the median, where
 * this is 20 times the most. In a new process the first large email runs mostly unoptimised
 * code: 1,000 tables (11,000 nodes) took 330 ms of CPU, 30 µs a node, and the 40,000 nodes of
 * 1 MiB of them 620 ms, where 50,000 took 730 (thousands of links: 626 and 722 ms).
 */
export const MAX_NODES = 40_000

/**
 * How deep the checks read an email: a node inside more elements than this is not read, nor
 * anything after it. Chromium's HTML parser builds no deeper tree (past 512 it adds elements
 * beside the deepest rather than in it, as its layout tests check), and the real emails of the
 * corpus nest 36 deep at most (E-Com Plus's), 20 at the median. 1 MiB of nested grey text
 * (30,000 `<div>`s, a finding each) took 1,226 ms of CPU, and 69 ms read to this depth.
 */
export const MAX_DEPTH = 512

/**
 * domhandler's tree builder, stopping the parse at the node past `limits.nodes`, or deeper than
 * `limits.depth`: that node and every one after it are left out of the tree.
 */
class CappedHandler extends DomHandler {
  unread: Unread | null = null
  #nodes = 0
  #parser: Parser | null = null

  constructor(private readonly limits: { nodes: number; depth: number }) {
    super(undefined, { withStartIndices: true })
  }

  override onparserinit(parser: Parser): void {
    super.onparserinit(parser)
    this.#parser = parser
  }

  /**
   * A node past a cap joins no parent, and the tokenizer stops: what the parser still says of
   * the tag it is in (a void element's close, text after it) is about nodes outside the tree.
   * Its depth is how many elements are open (the stack holds the document too).
   */
  protected override addNode(node: Parameters<DomHandler['addNode']>[0]): void {
    if (this.unread !== null) return
    const past =
      ++this.#nodes > this.limits.nodes
        ? 'nodes'
        : this.tagStack.length > this.limits.depth
          ? 'depth'
          : null
    if (past) {
      this.unread = { from: this.#parser!.startIndex, past }
      this.#parser!.pause()
      // As domhandler's own does: no text after this joins a text node of the tree.
      this.lastNode = null
      return
    }
    super.addNode(node)
  }
}

/**
 * A `<style>` element's text.
 *
 * @example
 * styleText(parseHtml('<style>p { color: red }</style>').styles[0]) // 'p { color: red }'
 */
export const styleText = (style: Element): string =>
  style.children.map((child) => ('data' in child ? child.data : '')).join('')

/**
 * htmlparser2's stack of open tags, innermost first, in time linear in the document. Its own is
 * an array it `unshift`s on every open tag and `indexOf`s from the innermost on every close, so
 * nesting cost the square of its depth: 80,000 nested `<div>`s (880 KB) took 8.4 s to parse.
 * This one keeps the innermost at the end of an array, and how many of each name are open, so
 * a close tag of a name not open is answered at once. It has what the parser uses of its
 * array (`[0]`, `length`, `shift`, `unshift`, `indexOf`); at the end of a parse the parser reads
 * `stack[i]`, for which `Parser#onend` gets a plain array (see `LinearParser`).
 */
class OpenTags {
  /**
   * The innermost, a plain property kept as it changes (the parser reads it on every tag, and a
   * getter at index 0 is a slow path of V8's), and the counts in a plain object rather than a
   * Map: the 84,000 elements of 12,000 tables (1 MiB) parsed in 1,482 million instructions where
   * they took 1,702 (callgrind, which the machine's load does not move).
   */
  0: string | undefined = undefined
  readonly #items: string[] = []
  readonly #open: Record<string, number> = Object.create(null)

  get length(): number {
    return this.#items.length
  }
  set length(n: number) {
    while (this.#items.length > n) this.shift()
  }
  unshift(name: string): number {
    this.#open[name] = (this.#open[name] ?? 0) + 1
    this[0] = name
    return this.#items.push(name)
  }
  shift(): string | undefined {
    const name = this.#items.pop()
    if (name !== undefined) this.#open[name]!--
    this[0] = this.#items.at(-1)
    return name
  }
  /** How far from the innermost the nearest open `name` is; -1 when none is open. */
  indexOf(name: string): number {
    if (!this.#open[name]) return -1
    for (let i = this.#items.length - 1; i >= 0; i--)
      if (this.#items[i] === name) return this.#items.length - 1 - i
    return -1
  }
  /** Innermost first, as htmlparser2's own array. */
  toArray(): string[] {
    return this.#items.toReversed()
  }
}

interface ParserStacks {
  stack: OpenTags | string[]
  foreignContext: OpenTags | boolean[]
}

/** htmlparser2's parser on `OpenTags`; the end of the parse on plain arrays, as it reads them. */
class LinearParser extends Parser {
  constructor(...args: ConstructorParameters<typeof Parser>) {
    super(...args)
    const self = this as unknown as ParserStacks
    const foreign = new OpenTags()
    for (const open of (self.foreignContext as boolean[]).toReversed())
      foreign.unshift(open as unknown as string)
    self.stack = new OpenTags()
    self.foreignContext = foreign as unknown as OpenTags
  }

  override onend(): void {
    const self = this as unknown as ParserStacks
    if (self.stack instanceof OpenTags) self.stack = self.stack.toArray()
    super.onend()
  }
}

/**
 * Parses rendered HTML once for every check, in time linear in its size, as far as its first
 * `MAX_NODES` nodes and `MAX_DEPTH` levels deep (`limits` other than these: for tests).
 *
 * @example
 * parseHtml('<p>\n<b>x</b>').placeOf(4) // { line: 2, column: 1 }
 */
export function parseHtml(
  html: string,
  limits = { nodes: MAX_NODES, depth: MAX_DEPTH },
): ParsedHtml {
  const handler = new CappedHandler(limits)
  // Past the cap the tokenizer is paused, and `end` then ends nothing: the tree is as built.
  new LinearParser(handler).end(html)
  const document = handler.root
  const elements: Element[] = []
  // Depth first, in document order, with a stack: an email nested deeper than the call stack
  // (a few thousand levels) is still read.
  const stack: Document['children'] = [...document.children].reverse()
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      elements.push(node as Element)
      const { children } = node as Element
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
    }
  }
  const breaks: number[] = []
  for (let i = html.indexOf('\n'); i >= 0; i = html.indexOf('\n', i + 1)) breaks.push(i)
  const lineOf = (offset: number | null | undefined) => {
    if (offset === null || offset === undefined || offset < 0) return null
    let lo = 0
    let hi = breaks.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (breaks[mid]! < offset) lo = mid + 1
      else hi = mid
    }
    return lo + 1
  }
  const placeOf = (offset: number | null | undefined) => {
    const line = lineOf(offset)
    if (line === null) return null
    return { line, column: offset! - (line === 1 ? 0 : breaks[line - 2]! + 1) + 1 }
  }
  const sheets = new Map<string, ParsedCss>()
  const css = (text: string) => {
    let sheet = sheets.get(text)
    if (!sheet) sheets.set(text, (sheet = parseCss(text)))
    return sheet
  }
  const styles = elements.filter((el) => el.type === 'style')
  let styleRules = 0
  for (const text of new Set(styles.map(styleText))) styleRules += countRules(text)
  const stylesRead = styleRules <= MAX_RULES
  const { unread } = handler
  return { document, elements, lineOf, placeOf, css, styles, styleRules, stylesRead, unread }
}
