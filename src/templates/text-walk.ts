/**
 * html-to-text's own formatting over a tree read by `parseTextDom`: its builder (line breaks,
 * wrapping, tables) and its formatters, as one compiled converter of html-to-text holds them, with
 * the two steps around them done here. Each element's format is picked by a few property reads
 * where html-to-text asks a decision tree (selderee, a quarter of its time on the `order-receipt`
 * example), and the walk is html-to-text's `recursiveWalk` without limits. The pick agrees with
 * selderee's for every element of every test document (test/templates/text-dom.test.ts).
 */
import type { DomNode, FormatCallback, HtmlToTextOptions, SelectorDefinition } from 'html-to-text'
import type { TextDomElement, TextDomNode } from './text-dom.js'

/** html-to-text's builder of text, as its formatters are handed it (the package names no export of it). */
type BlockTextBuilder = Parameters<FormatCallback>[2]

/** What the converter's formatters get: a builder, which knows its class and the options it was made with. */
export interface TextEngine {
  Builder: new (
    options: HtmlToTextOptions,
    picker: { pick1(el: unknown): unknown },
  ) => BlockTextBuilder
  options: HtmlToTextOptions
}

/**
 * The builder a formatter was handed, as the engine to make more of them with.
 *
 * @example
 * const formatter: FormatCallback = (elem, walk, builder) => { engine ??= engineOf(builder) }
 */
export function engineOf(builder: BlockTextBuilder): TextEngine {
  const { options } = builder as BlockTextBuilder & { options: HtmlToTextOptions }
  return { Builder: builder.constructor as TextEngine['Builder'], options }
}

type Definition = SelectorDefinition
/** A selector of an attribute or class: they outrank tag names, and the later of two wins. */
type Rule = { test(attribs: Record<string, string>): boolean; definition: Definition }

const TAG = /^[a-z][a-z0-9]*$/
const PRESENCE = /^\[([a-z-]+)\]$/
const CONTAINS_ANY_CASE = /^\[([a-z-]+)\*="([^"\\]*)"i\]$/
const CLASS = /^\.([A-Za-z_-][\w-]*)$/

/** One selector as a rule (selderee's predicates), or null for any other form. */
function ruleOf(definition: Definition): Rule | null {
  const { selector } = definition
  let m = PRESENCE.exec(selector)
  if (m) {
    const name = m[1]!
    return { test: (attribs) => Object.hasOwn(attribs, name), definition }
  }
  m = CONTAINS_ANY_CASE.exec(selector)
  if (m) {
    const [name, expected] = [m[1]!, m[2]!.toLowerCase()]
    return {
      test: (a) => a[name]?.toLowerCase().includes(expected) ?? false,
      definition,
    }
  }
  m = CLASS.exec(selector)
  if (m) {
    const name = m[1]!
    return {
      test: (a) => a.class?.split(/[ \t]+/).includes(name) ?? false,
      definition,
    }
  }
  return null
}

/**
 * The format of an element, as selderee picks among `selectors` (html-to-text's, merged): the
 * last attribute or class selector that matches, else its tag's, else `*`'s. Null when a selector
 * is of a form it does not know (a combinator, an id, a pseudo-class, another attribute test).
 *
 * @example
 * formatPicker([{ selector: '*', format: 'inline' }, { selector: 'p', format: 'paragraph' }])!(p) // p's
 */
export function formatPicker(
  selectors: readonly Definition[],
): ((el: TextDomElement) => Definition) | null {
  const tags = new Map<string, Definition>()
  const rules: Rule[] = []
  let anything: Definition | undefined
  for (const definition of selectors) {
    if (definition.selector === '*') anything = definition
    else if (TAG.test(definition.selector)) tags.set(definition.selector, definition)
    else {
      const rule = ruleOf(definition)
      if (!rule) return null
      rules.push(rule)
    }
  }
  if (!anything) return null
  const fallback = anything
  return (el) => {
    for (let i = rules.length - 1; i >= 0; i--)
      if (rules[i]!.test(el.attribs)) return rules[i]!.definition
    return tags.get(el.name) ?? fallback
  }
}

/** The `body` elements html-to-text starts from (its `baseElements`), or the whole document. */
function basesOf(dom: TextDomNode[]): TextDomNode[] {
  const bodies: TextDomNode[] = []
  const find = (nodes: TextDomNode[]) => {
    for (const node of nodes) {
      if (node.type !== 'tag') continue
      if (node.name === 'body') bodies.push(node)
      else find(node.children)
    }
  }
  find(dom)
  return bodies.length > 0 ? bodies : dom
}

/** Whether html-to-text's options are ones this walk follows: no limits, `body` as the base. */
function followed(options: HtmlToTextOptions): boolean {
  const { limits = {}, baseElements = {} } = options
  return (
    limits.maxDepth === undefined &&
    limits.maxChildNodes === undefined &&
    limits.maxBaseElements === undefined &&
    baseElements.returnDomByDefault === true &&
    baseElements.orderBy === 'selectors' &&
    baseElements.selectors?.length === 1 &&
    baseElements.selectors[0] === 'body'
  )
}

/**
 * A converter of trees with `engine`'s builder and formatters, or null when its options are not
 * ones it follows (then html-to-text converts every message itself).
 *
 * @example
 * const convert = treeConverter(engine)
 * const dom = parseTextDom(html)
 * const text = convert && dom ? convert(dom) : slow(html)
 */
export function treeConverter(engine: TextEngine): ((dom: TextDomNode[]) => string) | null {
  const { Builder, options } = engine
  const pick = formatPicker(options.selectors ?? [])
  if (!pick || !followed(options)) return null
  const formatters = options.formatters as Record<string, FormatCallback>
  const walk = (nodes: DomNode[] | undefined, builder: BlockTextBuilder) => {
    if (!nodes) return
    for (const node of nodes as TextDomNode[]) {
      if (node.type === 'text') builder.addInline(node.data)
      else if (node.type === 'tag') {
        const definition = pick(node)
        formatters[definition.format!]!(node as DomNode, walk, builder, definition.options || {})
      }
    }
  }
  const picker = { pick1: (el: unknown) => pick(el as TextDomElement) }
  return (dom) => {
    const builder = new Builder(options, picker)
    walk(basesOf(dom) as DomNode[], builder)
    return builder.toString()
  }
}
