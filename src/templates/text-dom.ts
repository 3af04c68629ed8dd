/**
 * The tree html-to-text walks, built the way htmlparser2 (`parseDocument`, entities decoded)
 * builds it, in a fraction of its time, or `null` where this reader is not sure it would: the
 * text part then comes from html-to-text's own parse (plain-text.ts). htmlparser2 reads HTML a
 * character at a time through a state machine and a handler; this one jumps from `<` to `<` and
 * reads each tag a character code at a time, and decodes entities with the decoders of the
 * library htmlparser2 uses (`entities`: `decodeHTML` and `decodeHTMLAttribute`, handed in, as they
 * load with html-to-text and not with the server). On the `order-receipt` example, 4.4 KB:
 * htmlparser2's parse was 47% of html-to-text's 133 µs, about 60 µs; this one takes 33.
 *
 * What it builds is checked against htmlparser2's own tree (test/templates/text-dom.test.ts: the
 * example templates, the corpus of real emails, and random documents): node for node, with the
 * same types, names, attributes, parents and text. What it gives up on (`null`): a CDATA section,
 * SVG or MathML (where `/>` closes a tag), `</` not followed by
 * a letter or a closing tag with more than its name, a comment that ends where it starts
 * (`<!-->`), a tag, comment or raw-text element (`<script>`, `<style>`, `<title>`, `<textarea>`,
 * `<xmp>`) cut off by the end of the document, a raw-text element written `<style/>`, names with
 * characters other than letters, digits, `-`, `_`, `:` and `.` (and `@` in attribute names), an
 * unquoted value starting with `"'=<\``, and \x0f or \x1c in raw text.
 */

export interface TextDomText {
  type: 'text'
  data: string
}

export interface TextDomElement {
  /** htmlparser2's types: `script` and `style` are elements of their own type, the rest `tag`. */
  type: 'tag' | 'script' | 'style'
  name: string
  attribs: Record<string, string>
  children: TextDomNode[]
  /** The element it is in (none at the top): html-to-text's lists ask whether theirs is an `li`. */
  parent: TextDomElement | null
}

/** A comment, or a declaration or processing instruction (`<!DOCTYPE html>`, `<?xml …?>`). */
export interface TextDomOther {
  type: 'comment' | 'directive'
  data: string
}

export type TextDomNode = TextDomText | TextDomElement | TextDomOther

// htmlparser2's tables (its Parser.ts, MIT): what opening a tag closes, and the void elements.
const P = ['p']
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']
const OPEN_IMPLIES_CLOSE: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    tr: ['tr', 'th', 'td'],
    th: ['th'],
    td: ['thead', 'th', 'td'],
    body: ['head', 'link', 'script'],
    li: ['li'],
    ...Object.fromEntries(
      [
        ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote'],
        ...['details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form'],
        ...['header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'],
      ].map((name) => [name, P]),
    ),
    ...Object.fromEntries(
      ['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((n) => [n, FORM]),
    ),
    option: ['option'],
    optgroup: ['optgroup', 'option'],
    dd: ['dd', 'dt'],
    dt: ['dd', 'dt'],
    rt: ['rt', 'rp'],
    rp: ['rt', 'rp'],
    tbody: ['thead', 'tbody'],
    tfoot: ['thead', 'tbody'],
  }).map(([name, closes]) => [name, new Set(closes)]),
)
const VOID: ReadonlySet<string> = new Set([
  ...['area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img'],
  ...['input', 'isindex', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr'],
])
/** Whether `text` holds \x0f or \x1c, which htmlparser2's search for a raw-text element's end takes for `/` and `<` (its `c | 0x20`). */
const unsure = (text: string) => text.includes('\x0f') || text.includes('\x1c')
/** Elements whose content is text up to their closing tag; only `<title>`'s has entities decoded. */
const RAW_TEXT: ReadonlySet<string> = new Set(['script', 'style', 'title', 'textarea', 'xmp'])
/** Where each raw-text element ends (made once: one per element took 1.4x html-to-text's time on 37,000 `<style>`s). */
const RAW_TEXT_END: ReadonlyMap<string, RegExp> = new Map(
  [...RAW_TEXT].map((name) => [name, new RegExp(`</${name}[ \\t\\n\\f\\r>]`, 'ig')]),
)
/** Foreign content, where htmlparser2 honours `/>`: not read here. */
const FOREIGN: ReadonlySet<string> = new Set(['svg', 'math'])

/** What follows `<` where htmlparser2 starts a tag, a closing tag, a comment or a declaration. */
const TAG_START = /<[a-zA-Z/!?]/g

// Read a character code at a time: a sticky regular expression per attribute took 3x as long
// (its match arrays), and htmlparser2's state machine twice that.
const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === 12
/** Letters, digits, `-`, `_`, `:`, `.`: the names read here (htmlparser2 takes more, and then this reader gives up). */
const isNameChar = (c: number) =>
  (c >= 97 && c <= 122) ||
  (c >= 65 && c <= 90) ||
  (c >= 48 && c <= 58) ||
  c === 45 ||
  c === 95 ||
  c === 46
/** A letter: what starts a tag's name. */
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90)
/** What htmlparser2 ends a tag's name at: a space, `/` or `>`. */
const endsTagName = (c: number) => isSpace(c) || c === 47 || c === 62
/** What may start an unquoted attribute value here (htmlparser2 takes `"'=<\`` too, and then this reader gives up). */
const startsUnquoted = (c: number) =>
  !Number.isNaN(c) &&
  !isSpace(c) &&
  c !== 62 &&
  c !== 34 &&
  c !== 39 &&
  c !== 61 &&
  c !== 60 &&
  c !== 96

/** The end of the name at `from` (`from` when there is none). */
function nameEnd(html: string, from: number, alsoAt = false): number {
  let i = from
  for (let c = html.charCodeAt(i); isNameChar(c) || (alsoAt && c === 64); c = html.charCodeAt(++i));
  return i
}

/** A name as htmlparser2 keeps it: lower-cased. */
const lowered = (name: string) => (/[A-Z]/.test(name) ? name.toLowerCase() : name)

/** The entity decoders htmlparser2 uses: `entities`' `decodeHTML` and `decodeHTMLAttribute`. */
export interface EntityDecoders {
  decodeHTML(text: string): string
  decodeHTMLAttribute(text: string): string
}

/**
 * The open elements, innermost last, and the children of the document; and the text node that
 * text read next joins (domhandler's: only a closing tag that closes nothing comes between them,
 * so `a</b>c` is one text).
 */
interface Tree {
  decode: EntityDecoders
  root: TextDomNode[]
  open: TextDomElement[]
  /**
   * How many elements of each name are open: a closing tag that closes nothing is passed over
   * without a look down the open elements (with 20,000 open, 20,000 such tags took 1.6 s).
   */
  opened: Map<string, number>
  text: TextDomText | null
}

/** Opens `element` (it takes what is read next). */
function push(tree: Tree, element: TextDomElement): void {
  tree.open.push(element)
  tree.opened.set(element.name, (tree.opened.get(element.name) ?? 0) + 1)
}

/** Closes the innermost open element. */
function pop(tree: Tree): void {
  const name = tree.open.pop()!.name
  tree.opened.set(name, tree.opened.get(name)! - 1)
}

const childrenOf = (tree: Tree) => tree.open.at(-1)?.children ?? tree.root

/** An element added where the tree is now (in the innermost open element). */
function addElement(
  tree: Tree,
  type: TextDomElement['type'],
  name: string,
  attribs: Record<string, string>,
) {
  const parent = tree.open.at(-1) ?? null
  const element: TextDomElement = { type, name, attribs, children: [], parent }
  ;(parent?.children ?? tree.root).push(element)
  return element
}

/**
 * The attributes of a tag from `from` to its `>`, put in `attribs` as htmlparser2 does (names
 * lower-cased, values decoded, the first of two with one name kept); the index of that `>` and
 * whether a `/` came last before it, or -1.
 */
function readAttributes(
  html: string,
  from: number,
  attribs: Record<string, string>,
  decode: EntityDecoders,
): { end: number; slash: boolean } | -1 {
  let i = from
  let slash = false
  for (;;) {
    let c = html.charCodeAt(i)
    while (isSpace(c) || c === 47) {
      if (c === 47) slash = true
      c = html.charCodeAt(++i)
    }
    if (c === 62 /* > */) return { end: i, slash }
    slash = false
    const nameAt = i
    i = nameEnd(html, i, true)
    if (i === nameAt) return -1
    const name = lowered(html.slice(nameAt, i))
    let j = i
    while (isSpace(html.charCodeAt(j))) j++
    let value = ''
    if (html.charCodeAt(j) === 61 /* = */) {
      j++
      while (isSpace(html.charCodeAt(j))) j++
      const quote = html.charCodeAt(j)
      if (quote === 34 || quote === 39) {
        const close = html.indexOf(quote === 34 ? '"' : "'", j + 1)
        if (close === -1) return -1
        value = html.slice(j + 1, close)
        i = close + 1
      } else if (quote === 62 /* > */) {
        // `style=>`: htmlparser2 reads an empty value and leaves the `>` to end the tag.
        i = j
      } else {
        if (!startsUnquoted(quote)) return -1
        let k = j
        for (let v = quote; !Number.isNaN(v) && !isSpace(v) && v !== 62; v = html.charCodeAt(++k));
        value = html.slice(j, k)
        i = k
      }
    }
    // After a quoted value, htmlparser2 reads the next name at once: `a="1"b="2"`.
    if (!Object.hasOwn(attribs, name))
      attribs[name] = value.includes('&') ? decode.decodeHTMLAttribute(value) : value
  }
}

/** An opening tag at `at`: its element added where htmlparser2 would; the index after it, or -1. */
function openTag(html: string, at: number, tree: Tree): number {
  const nameAt = at + 1
  const i = nameEnd(html, nameAt)
  // htmlparser2's name runs to a space, `/` or `>`: `<a@b>` is an element named `a@b`.
  if (!endsTagName(html.charCodeAt(i))) return -1
  const name = lowered(html.slice(nameAt, i))
  if (FOREIGN.has(name)) return -1
  tree.text = null
  const attribs: Record<string, string> = {}
  const read = readAttributes(html, i, attribs, tree.decode)
  if (read === -1) return -1
  const closes = OPEN_IMPLIES_CLOSE.get(name)
  if (closes) while (tree.open.length > 0 && closes.has(tree.open.at(-1)!.name)) pop(tree)
  const type = name === 'script' ? 'script' : name === 'style' ? 'style' : 'tag'
  const element = addElement(tree, type, name, attribs)
  if (VOID.has(name)) return read.end + 1
  if (!RAW_TEXT.has(name)) {
    push(tree, element)
    return read.end + 1
  }
  return read.slash ? -1 : rawText(html, read.end + 1, element, tree.decode)
}

/** The text of a raw-text element from `from` to its closing tag; the index after that tag, or -1. */
function rawText(
  html: string,
  from: number,
  element: TextDomElement,
  decode: EntityDecoders,
): number {
  const end = RAW_TEXT_END.get(element.name)!
  end.lastIndex = from
  const found = end.exec(html)
  if (!found) return -1
  const text = html.slice(from, found.index)
  // htmlparser2 looks for the closing tag with `c | 0x20`, which \x0f and \x1c pass as `/` and `<`.
  if (unsure(text) || (element.name === 'title' && text.includes('</'))) return -1
  const data = element.name === 'title' && text.includes('&') ? decode.decodeHTML(text) : text
  if (text !== '') element.children.push({ type: 'text', data })
  const close = html.indexOf('>', found.index)
  return close === -1 ? -1 : close + 1
}

/** A closing tag at `at`, as htmlparser2 closes; the index after it, or -1. */
function closeTag(html: string, at: number, tree: Tree): number {
  if (!isLetter(html.charCodeAt(at + 2))) return -1
  const nameEnds = nameEnd(html, at + 2)
  let i = nameEnds
  while (isSpace(html.charCodeAt(i))) i++
  if (html.charCodeAt(i) !== 62 /* > */) return -1
  const name = lowered(html.slice(at + 2, nameEnds))
  if (FOREIGN.has(name)) return -1
  if (!VOID.has(name) && (tree.opened.get(name) ?? 0) > 0) {
    // htmlparser2 closes the innermost element of that name, and every element inside it.
    while (tree.open.at(-1)!.name !== name) pop(tree)
    pop(tree)
  }
  // `</br>` is a `<br>`, and `</p>` with no `<p>` open an empty one.
  else if (name === (VOID.has(name) ? 'br' : 'p')) addElement(tree, 'tag', name, {})
  else return i + 1
  tree.text = null
  return i + 1
}

/** `<!…>` or `<?…>` at `at`; the index after it, or -1. */
function markup(html: string, at: number, tree: Tree): number {
  tree.text = null
  if (html.startsWith('<!--', at)) {
    if (html.startsWith('>', at + 4) || html.startsWith('->', at + 4)) return -1
    const end = html.indexOf('-->', at + 4)
    if (end === -1) return -1
    childrenOf(tree).push({ type: 'comment', data: html.slice(at + 4, end) })
    return end + 3
  }
  // `<![if !mso]>` and `<![endif]>` are declarations to htmlparser2, as `<!DOCTYPE html>` is; a
  // CDATA section is a comment of its own kind.
  if (html.startsWith('<![CDATA[', at) || html.startsWith('<!-', at)) return -1
  const end = html.indexOf('>', at + 2)
  if (end === -1) return -1
  childrenOf(tree).push({ type: 'directive', data: html.slice(at + 1, end) })
  return end + 1
}

/**
 * The children of the document `html` is, as htmlparser2's `parseDocument` gives them (entities
 * decoded), or `null` where this reader cannot be sure of that.
 *
 * @example
 * parseTextDom('<p class="x">Fish &amp; chips</p>', require('entities'))
 * // [{ type: 'tag', name: 'p', attribs: { class: 'x' }, children: [{ type: 'text', data: 'Fish & chips' }] }]
 */
export function parseTextDom(html: string, decode: EntityDecoders): TextDomNode[] | null {
  const tree: Tree = { decode, root: [], open: [], opened: new Map(), text: null }
  let i = 0
  while (i < html.length) {
    TAG_START.lastIndex = i
    const start = TAG_START.exec(html)?.index ?? html.length
    if (start > i) {
      const raw = html.slice(i, start)
      const data = raw.includes('&') ? decode.decodeHTML(raw) : raw
      if (tree.text) tree.text.data += data
      else {
        tree.text = { type: 'text', data }
        childrenOf(tree).push(tree.text)
      }
    }
    if (start === html.length) break
    const next = html.charCodeAt(start + 1)
    if (next === 47 /* / */) i = closeTag(html, start, tree)
    else if (next === 33 /* ! */ || next === 63 /* ? */) i = markup(html, start, tree)
    else i = openTag(html, start, tree)
    if (i === -1) return null
  }
  return tree.root
}
