import { type Selector, SelectorType } from 'css-what'
import type { Element } from 'domhandler'

/**
 * A stylesheet's rules by what their selector's subject (its last compound, the element it
 * styles) requires: an id, a class or a tag, as browsers file them. An element is then tested
 * only against the rules that could match it, not every rule of the sheet: an email with a
 * rule per class (`.c1`, `.c2`, … and an element of each) cost rules × elements, 700 million
 * tests at 1 MiB, where this is one a element.
 */

const COMBINATORS: ReadonlySet<string> = new Set([
  SelectorType.Descendant,
  SelectorType.Child,
  SelectorType.Parent,
  SelectorType.Sibling,
  SelectorType.Adjacent,
  SelectorType.ColumnCombinator,
])

/**
 * What a selector's subject requires, as a key: `#id`, `.class`, `<tag`, or `''` when it
 * requires none of these (`*`, `:first-child`, `[lang]`): such a rule is tested on every
 * element. An id wins over a class, a class over a tag: the rarer, the fewer tests.
 *
 * @example
 * subjectKey(parse('table td.cell:first-child')[0]) // '.cell'
 */
export function subjectKey(tokens: Selector[]): string {
  let tag = ''
  let className = ''
  for (let i = tokens.length - 1; i >= 0 && !COMBINATORS.has(tokens[i]!.type); i--) {
    const token = tokens[i]!
    if (token.type === SelectorType.Tag) tag = `<${token.name.toLowerCase()}`
    // `.a` and `#a` are case-insensitive only in quirks mode, which css-select is not in.
    else if (token.type === SelectorType.Attribute && token.ignoreCase !== true) {
      if (token.name === 'id' && token.action === 'equals') return `#${token.value}`
      if (token.name === 'class' && token.action === 'element') className = `.${token.value}`
    }
  }
  return className || tag
}

/** Rules filed by `subjectKey`. */
export interface RuleIndex<R> {
  byKey: Map<string, R[]>
  /** The rules whose subject requires no id, class or tag. */
  any: R[]
}

/**
 * Files rules by their key, in the order given.
 *
 * @example
 * const index = indexRules(rules, (r) => r.key)
 */
export function indexRules<R>(rules: Iterable<R>, keyOf: (rule: R) => string): RuleIndex<R> {
  const index: RuleIndex<R> = { byKey: new Map(), any: [] }
  for (const rule of rules) {
    const key = keyOf(rule)
    if (key === '') index.any.push(rule)
    else {
      const list = index.byKey.get(key)
      if (list) list.push(rule)
      else index.byKey.set(key, [rule])
    }
  }
  return index
}

/**
 * Calls `test` on each rule that could match the element: those of its id, of each of its
 * classes (once each), of its tag, and those that require none of these.
 *
 * @example
 * candidates(index, td, (rule) => { if (rule.query(td)) … })
 */
export function candidates<R>(index: RuleIndex<R>, el: Element, test: (rule: R) => void): void {
  const each = (list: R[] | undefined) => {
    if (list) for (const rule of list) test(rule)
  }
  each(index.any)
  if (index.byKey.size === 0) return
  each(index.byKey.get(`<${el.name}`))
  const { id, class: classes } = el.attribs
  if (id !== undefined) each(index.byKey.get(`#${id}`))
  if (classes === undefined) return
  const seen = new Set<string>()
  for (const name of classes.split(/[\t\n\f\r ]+/)) {
    if (name === '' || seen.has(name)) continue
    seen.add(name)
    each(index.byKey.get(`.${name}`))
  }
}
