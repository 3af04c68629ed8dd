import type { AnyNode, Element } from 'domhandler'
import { MAX_RULES } from './css.js'
import type { ParsedHtml } from './html.js'
import { type Box, blend, computeBoxes, contrast, hex, phoneMediaOf, type Rgba } from './styles.js'
import type { Finding } from './types.js'

/**
 * The email's own accessibility: what a screen reader, a zoomed or low-vision reader, and a
 * reader with images off meet. Every finding points at its element (line and column of its start
 * tag in the rendered HTML) and is a warning: `sendbox check --fail-on-accessibility` makes them
 * fail CI. Image alt, link names, `lang`, the title and contrast follow axe-core's rules, so the
 * two agree on the same HTML (test/browser/a11y-agreement.test.ts).
 */

/** A link text that says nothing out of context (normalised: lower case, no punctuation). */
const VAGUE: ReadonlySet<string> = new Set([
  'click here',
  'click',
  'here',
  'read more',
  'more',
  'link',
  'this link',
  'learn more',
  'more info',
  'more information',
  'details',
  'go',
  'this',
  'continue',
  'tap here',
  'see more',
  'continue reading',
  'keep reading',
  'read on',
  'view more',
  'find out more',
  'see all',
  'view all',
  'more details',
])

/** WCAG 2.x (SC 1.4.3): 4.5:1, or 3:1 for large text (18 pt, or 14 pt bold). */
const NORMAL_RATIO = 4.5
const LARGE_RATIO = 3
const LARGE_PX = 24
const LARGE_BOLD_PX = (14 * 4) / 3
/** Under this, body text is hard to read on a phone without zooming. */
const SMALL_PX = 14

/**
 * How much of a name or a quote is read: a link's name decides only "empty", "vague" (a few
 * words) or neither, and a finding quotes a few words.
 */
const READ_CHARS = 200
/** A finding quotes about this many characters of its element's text, in whole words. */
const QUOTE_CHARS = 60

/** A piece of text as read: its spaces squashed, cut at `READ_CHARS`. */
const clip = (s: string) => {
  const short = s.length > READ_CHARS && /\s\s/.test(s) ? s.replace(/\s+/g, ' ') : s
  return short.length > READ_CHARS ? short.slice(0, READ_CHARS) : short
}

/**
 * The text under a node, in document order, its first `READ_CHARS` or so: `piece` says what an
 * element adds in place of its children (its `aria-label`, an image's alt) or `null` to read
 * them, `''` to skip them; pieces are joined by `joiner` (and with `''`, a block starts with a
 * space: words of two blocks are apart even when the markup has none between them). Each
 * element's text is worked out once and kept, from its children's: the text under every link of
 * a link nested in a link…, or under every element of text nested in text, was read anew for
 * each, up to 400 nodes each (100,000 nested links, 40 million nodes), and a name deeper than
 * that was missed. Without recursion: an email nests deeper than the call stack.
 */
function textReader(
  piece: (el: Element) => string | null,
  joiner: ' ' | '',
): (node: AnyNode) => string {
  const known = new Map<AnyNode, string>()
  interface Frame {
    node: Element
    next: number
    text: string
  }
  const frames: Frame[] = []
  /** A node's text when known at once; otherwise its frame is pushed, to read its children. */
  const enter = (node: AnyNode): string | undefined => {
    const kept = known.get(node)
    if (kept !== undefined) return kept
    if (node.type === 'text') return clip((node as unknown as { data: string }).data)
    const said = node.type === 'tag' ? piece(node as Element) : node.type === 'root' ? null : ''
    if (said !== null) return clip(said)
    const lead = joiner === '' && BLOCKS.has((node as Element).name) ? ' ' : ''
    frames.push({ node: node as Element, next: 0, text: lead })
    return undefined
  }
  return (root) => {
    let done = enter(root)
    while (frames.length) {
      const frame = frames.at(-1)!
      if (done) frame.text = frame.text && joiner ? `${frame.text} ${done}` : frame.text + done
      const { children } = frame.node
      if (frame.text.length >= READ_CHARS || frame.next >= children.length) {
        frames.pop()
        done = frame.text.length > READ_CHARS ? frame.text.slice(0, READ_CHARS) : frame.text
        known.set(frame.node, done)
      } else done = enter(children[frame.next++]!)
    }
    return done ?? ''
  }
}

const BLOCKS: ReadonlySet<string> = new Set(
  'p div td th tr li h1 h2 h3 h4 h5 h6 br table tbody ul ol blockquote center section'.split(' '),
)
const text = (node: AnyNode): string => textReader(() => null, ' ')(node)
const squash = (s: string) => s.replace(/\s+/g, ' ').trim()
/**
 * JavaScript's `\s` (what `quote` cuts words at), as a character code: ASCII looked up at once,
 * the rest by the regular expression.
 */
const isSpace = (c: number) =>
  c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)))
/**
 * `"Some words…"`: the start of a text, cut at a word, to find it by in the template. Its spaces
 * squashed as far as the cut only: squashing the whole of each text quoted was a third of the
 * check of 30,000 grey nested paragraphs (1 MiB), a finding each. Its words found by a loop over
 * the characters: `matchAll(/\S+/g)` took 4.9 µs a quote, a match array a word.
 */
const quote = (s: string) => {
  let short = ''
  for (let i = 0; i < s.length && short.length <= QUOTE_CHARS; ) {
    while (i < s.length && isSpace(s.charCodeAt(i))) i++
    const start = i
    while (i < s.length && !isSpace(s.charCodeAt(i))) i++
    if (i > start) short = short ? `${short} ${s.slice(start, i)}` : s.slice(start, i)
  }
  if (short.length <= QUOTE_CHARS) return `"${short}"`
  const cut = short.slice(0, QUOTE_CHARS)
  const word = cut.lastIndexOf(' ')
  return `"${(word > QUOTE_CHARS / 2 ? cut.slice(0, word) : cut).replace(/[\s,;:.-]+$/, '')}…"`
}
/** Letters or digits: text with none (a "|", a "-" between links) is not read as words. */
const WORDY = /[\p{L}\p{N}]/u
const isPresentation = (el: Element) => /^(?:presentation|none)$/i.test(el.attribs.role ?? '')
const nonBlank = (s: string | undefined) => s !== undefined && s.trim() !== ''
/** `aria-labelledby` names a few ids; a longer list is read as far as this. */
const MAX_LABEL_IDS = 16

/** How the rules read an email: each element's look, and the text a reader meets. */
interface Reader {
  box(el: Element): Box
  /** What a screen reader reads for a node: text, image alts, labels; hidden parts left out. */
  spoken(node: AnyNode): string
  /** What shows of an element: its text, hidden parts left out (for a finding's quote). */
  visible(el: Element): string
  byId(id: string): Element | undefined
}

function readerOf(elements: Element[], boxes: Map<Element, Box>): Reader {
  const box = (el: Element) => boxes.get(el)!
  // Ids indexed once, the first of each winning as in getElementById: a lookup per id of an
  // aria-labelledby list scanned the whole email (10,000 ids on a 28 KB email took 5.9 s).
  let ids: Map<string, Element> | undefined
  const byId = (id: string) => {
    if (!ids) {
      ids = new Map()
      for (const el of elements)
        if (el.attribs.id && !ids.has(el.attribs.id)) ids.set(el.attribs.id, el)
    }
    return ids.get(id)
  }
  const spoken = textReader((el) => {
    if (box(el).ariaHidden) return ''
    if (nonBlank(el.attribs['aria-label'])) return el.attribs['aria-label']!
    if (el.name === 'img') return el.attribs.alt ?? ''
    return null
  }, ' ')
  const visible = textReader((child) => (box(child).hidden ? '' : null), '')
  return { box, spoken, visible, byId }
}

/**
 * Runs the accessibility rules on one parsed email, in time linear in its size.
 *
 * @example
 * checkAccessibility(parseHtml('<html><body><img src="a.png"></body></html>'))
 * // [{ code: 'missing_lang', … }, { code: 'missing_title', … }, { code: 'img_missing_alt', line: 1, column: 13, … }]
 */
export function checkAccessibility(parsed: ParsedHtml): Finding[] {
  const { elements } = parsed
  const reader = readerOf(elements, computeBoxes(parsed))
  const findings: Finding[] = []
  const adder =
    (suffix: string): Add =>
    (el, code, message, fix) => {
      const place = el ? parsed.placeOf(el.startIndex) : null
      findings.push({
        check: 'accessibility',
        code,
        severity: 'warning',
        line: place?.line ?? null,
        column: place?.column ?? null,
        message: suffix ? `${message}${suffix}` : message,
        fix,
      })
    }
  const add = adder('')
  document(parsed, add)
  unreadStyles(parsed, add)
  elementRules(elements, reader, add, parsed, () => true)
  phoneOnly(parsed, reader, adder)
  headings(
    elements.filter((el) => /^h[1-6]$/.test(el.name) && !reader.box(el).hidden),
    add,
  )
  return findings
}

/** The rules about each element, on those `which` picks, as `reader` sees them. */
function elementRules(
  elements: Element[],
  reader: Reader,
  add: Add,
  parsed: ParsedHtml,
  which: (el: Element) => boolean,
): void {
  const looks: Looks = { small: new Map(), pair: pairMemo(), reader }
  for (const el of elements) {
    if (!which(el)) continue
    const b = reader.box(el)
    if (el.name === 'img' && !b.ariaHidden) image(el, add)
    else if (el.name === 'a' && el.attribs.href !== undefined && !b.ariaHidden)
      link(el, add, reader)
    else if (el.name === 'table' && !b.hidden) table(el, add, reader)
    if (!b.hidden && el.children.some((c) => c.type === 'text' && /\S/.test(c.data)))
      textLook(el, b, add, looks)
  }
  smallText(looks.small, add, (el) => parsed.placeOf(el.startIndex)?.line ?? null)
}

/**
 * Content a phone-width `@media` rule shows that the base design hides (a mobile menu, a
 * phone-only banner): checked as a phone shows it, its findings saying so. Only when the email
 * has such a rule: then its boxes are worked out a second time.
 */
function phoneOnly(parsed: ParsedHtml, base: Reader, adder: (suffix: string) => Add): void {
  const { elements } = parsed
  const media = phoneMediaOf(parsed)
  if (!media) return
  const phone = readerOf(elements, computeBoxes(parsed, { phone: true }))
  const shownOnPhone = (el: Element) => base.box(el).hidden && !phone.box(el).hidden
  if (!elements.some(shownOnPhone)) return
  const add = adder(` (Shown only on a phone-width screen, by ${media}.)`)
  elementRules(elements, phone, add, parsed, shownOnPhone)
}

type Add = (el: Element | null, code: string, message: string, fix: string) => void

function document(parsed: ParsedHtml, add: Add): void {
  const html = parsed.elements.find((el) => el.name === 'html') ?? null
  if (!nonBlank(html?.attribs.lang) && !nonBlank(html?.attribs['xml:lang']))
    add(
      html,
      'missing_lang',
      'The <html> element has no lang attribute: a screen reader guesses the language, and may read the email with the wrong voice and pronunciation.',
      'Add the language of the text, e.g. <html lang="en">.',
    )
  const title = parsed.elements.find((el) => el.name === 'title')
  if (!title || text(title).trim() === '')
    add(
      title ?? parsed.elements.find((el) => el.name === 'head') ?? html,
      'missing_title',
      `The email has ${title ? 'an empty' : 'no'} <title>: a screen reader announces the document without a name, and a browser's "view online" tab shows none.`,
      'Put a <title> in the <head> that says what the email is, e.g. <title>Your receipt</title>.',
    )
}

/**
 * An email whose `<style>` blocks hold more rules than the checks read (`MAX_RULES`): said
 * once, at its first `<style>`, since the contrast and size findings it would have are missing.
 */
function unreadStyles({ stylesRead, styleRules, styles }: ParsedHtml, add: Add): void {
  if (stylesRead) return
  add(
    styles[0] ?? null,
    'styles_not_read',
    `The email's <style> blocks hold ${styleRules} rules, more than the ${MAX_RULES} sendbox reads: none of them is applied, so the colours and text sizes they set are unknown and no contrast or small-text finding is made, and the client support of their CSS is not looked up.`,
    'Keep the <style> to the rules the email uses (real emails hold a few hundred at most): leave out the unused rules of a CSS framework, as Maizzle and MJML do.',
  )
}

function image(el: Element, add: Add): void {
  const { attribs } = el
  if (isPresentation(el)) return
  // alt=" " is neither a text nor the empty alt of a decorative image: some screen readers then
  // read the file name. axe-core flags it whatever label or title the image has, and so does
  // this (2 images of the 242 emails of the corpus, docs/checks.md).
  if (attribs.alt !== undefined && /^\s+$/.test(attribs.alt)) {
    add(
      el,
      'img_missing_alt',
      `An image (${attribs.src || 'no src'}) has an alt of only spaces: some screen readers then read its file name, where alt="" would tell them to skip it.`,
      'Write alt="" for a decorative image, or alt="…" saying what it shows.',
    )
    return
  }
  if (attribs.alt !== undefined) return
  if (nonBlank(attribs['aria-label']) || nonBlank(attribs['aria-labelledby'])) return
  if (nonBlank(attribs.title)) return
  add(
    el,
    'img_missing_alt',
    `An image (${attribs.src || 'no src'}) has no alt attribute: a screen reader reads its file name, and with images off the reader sees nothing in its place.`,
    'Add alt="…" saying what the image shows (or the text it contains), or alt="" for a decorative one.',
  )
}

/**
 * What the elements an `aria-labelledby` names say, each id once and only the first few: the
 * list is the author's, of any length.
 */
function labelledByText(el: Element, { spoken, byId }: Reader): string {
  const list = el.attribs['aria-labelledby']
  if (list === undefined) return ''
  return [...new Set(list.split(/\s+/))]
    .filter((id) => id !== '')
    .slice(0, MAX_LABEL_IDS)
    .map((id) => byId(id))
    .map((target) => (target ? spoken(target) : ''))
    .join(' ')
}

/**
 * A link's accessible name, its spaces squashed: its `aria-label`, else what its
 * `aria-labelledby` names, else its text, else its `title`; each read only when the one before
 * is blank (24,000 links of 1 MiB read their labels and squashed their names twice).
 */
function linkName(el: Element, reader: Reader): string {
  const { attribs } = el
  if (nonBlank(attribs['aria-label'])) return squash(attribs['aria-label']!)
  const labelledBy = labelledByText(el, reader)
  if (nonBlank(labelledBy)) return squash(labelledBy)
  return squash(reader.spoken(el)) || squash(attribs.title ?? '')
}

function link(el: Element, add: Add, reader: Reader): void {
  const name = linkName(el, reader)
  const href = el.attribs.href || 'no href'
  if (name === '')
    add(
      el,
      'link_missing_text',
      `A link (${href}) has no text a screen reader can read: it is announced as "link", or as its address.`,
      'Give it visible text, or alt text on the image inside it (alt="Acme home"), or an aria-label.',
    )
  else if (
    VAGUE.has(
      name
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s]/gu, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
  )
    add(
      el,
      'vague_link_text',
      `A link (${href}) says only ${quote(name)}: screen reader users skim the list of links, where it says nothing of where it goes.`,
      'Say where the link leads in its own text, e.g. "Read the March release notes" instead of "read more".',
    )
}

/** A table's own rows (those of a table inside it are its own), each its cells. */
function ownRows(table: Element): Element[][] {
  const rows: Element[][] = []
  const stack: Element[] = [table]
  while (stack.length) {
    const el = stack.pop()!
    for (const child of el.children) {
      if (child.type !== 'tag') continue
      const tag = child as Element
      if (tag.name === 'tr')
        rows.push(
          tag.children.filter(
            (c): c is Element => c.type === 'tag' && /^t[dh]$/.test((c as Element).name),
          ),
        )
      else if (/^(?:thead|tbody|tfoot)$/.test(tag.name)) stack.push(tag)
    }
  }
  return rows
}

/** Whether a table has a header cell or a caption of its own (not in a table inside it). */
function hasHeader(table: Element): boolean {
  const stack: Element[] = [table]
  while (stack.length) {
    for (const child of stack.pop()!.children) {
      if (child.type !== 'tag') continue
      const el = child as Element
      if (el.name === 'th' || el.name === 'caption') return true
      if (el.name !== 'table') stack.push(el)
    }
  }
  return false
}

/** A figure: a number, an amount or a price, alone in its cell ("$12.50", "3", "1,204 kg"). */
const FIGURE = /^[^\p{L}\d]{0,3}\d[\d\s.,:%/'-]*(?:[^\p{L}\d\s]{1,3}|\s?[\p{L}]{1,3})?$/u
const TOTAL = /^(?:sub-?\s?)?totals?\b|^(?:grand|order) total\b|^amount due\b/i

/**
 * A table of data rather than layout: rows of the same cells with figures under the same
 * column, or a total row; no table inside a cell (layouts nest). A receipt's items and prices.
 */
function isDataTable(rows: Element[][], visible: (el: Element) => string): boolean {
  const full = rows.filter((cells) => cells.length >= 2)
  if (full.length < 2) return false
  const texts = full.map((cells) =>
    cells.map((cell) =>
      cell.children.some((c) => c.type === 'tag' && (c as Element).name === 'table')
        ? null
        : squash(visible(cell)),
    ),
  )
  if (texts.some((cells) => cells.includes(null))) return false
  const figuresBy = new Map<number, number>()
  let total = false
  for (const cells of texts as string[][]) {
    cells.forEach((t, column) => {
      if (FIGURE.test(t)) figuresBy.set(column, (figuresBy.get(column) ?? 0) + 1)
    })
    if (TOTAL.test(cells[0]!) && cells.slice(1).some((t) => FIGURE.test(t))) total = true
  }
  return total || [...figuresBy.values()].some((n) => n >= 2)
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`

/**
 * A table with no header cell and no caption: a layout, to mark as one, or a table of data
 * (figures under columns, a total), to give header cells. Either way it is said with its size.
 */
function table(el: Element, add: Add, { visible }: Reader): void {
  if (isPresentation(el) || hasHeader(el)) return
  const rows = ownRows(el)
  const columns = Math.max(
    0,
    ...rows.map((cells) =>
      cells.reduce(
        (n, cell) => n + Math.max(1, Number.parseInt(cell.attribs.colspan ?? '1', 10) || 1),
        0,
      ),
    ),
  )
  const size = `${count(rows.length, 'row')}, ${count(columns, 'column')}`
  if (isDataTable(rows, visible))
    add(
      el,
      'data_table_without_headers',
      `A table of data (${size}, with figures under its columns) has no header cell: a screen reader reads each figure without the heading of its column, and cannot tell the reader which is the price and which the quantity.`,
      'Make the cells of its heading row <th scope="col"> (and a row\'s label <th scope="row">), or give it a <caption>. Not role="presentation": it is a table, and should be read as one.',
    )
  else
    add(
      el,
      'layout_table_without_role',
      `A table lays out the email (it has no header cell and no caption) but does not say so: a screen reader announces "table, ${size}" and reads it cell by cell.`,
      'Add role="presentation" to layout tables (keep <th> or a <caption> on tables of data).',
    )
}

/** Text set under 14 px, by size: a count and the first places, said once per size. */
interface SmallText {
  /** The element that set the size where it was first met: the finding points at it. */
  first: Element
  quote: string
  count: number
  places: Element[]
}

/** What the text checks keep over one email. */
interface Looks {
  /** Small text by its size in px (rounded to hundredths). */
  small: Map<number, SmallText>
  pair: (fg: Rgba, bg: Rgba) => Pair
  reader: Reader
}

/** Two colours' contrast, and what a `low_contrast` finding says of it, once written. */
interface Pair {
  ratio: number
  /** For normal text, then for large text. */
  said: [string?, string?]
}

/**
 * `contrast`, once per pair of colours in an email: its text is a few colours on a few
 * backgrounds (the colours are shared objects, see `parseColor`), and the ratio was a tenth of
 * the accessibility check's time. With what a finding says of them, written once: colord's
 * `hex` took 1.5 µs, two a finding.
 */
function pairMemo(): (fg: Rgba, bg: Rgba) => Pair {
  const pairs = new Map<Rgba, Map<Rgba, Pair>>()
  return (fg, bg) => {
    let row = pairs.get(fg)
    if (!row) pairs.set(fg, (row = new Map()))
    let pair = row.get(bg)
    if (pair === undefined) row.set(bg, (pair = { ratio: contrast(fg, bg), said: [] }))
    return pair
  }
}

/** What a `low_contrast` finding says after its quote. */
function contrastSaid(fg: Rgba, bg: Rgba, ratio: number, large: boolean): string {
  const needed = large ? LARGE_RATIO : NORMAL_RATIO
  return `is ${hex(fg)} on ${hex(bg)}, a contrast of ${(Math.floor(ratio * 100) / 100).toFixed(2)}:1, under the ${needed}:1 ${large ? 'large ' : ''}text needs: readers with low vision, or in sunlight, cannot make it out.`
}

/** Contrast and size of the text directly inside an element. */
function textLook(el: Element, b: Box, add: Add, looks: Looks): void {
  const { small, reader } = looks
  // Said only in a finding: quoting every text of every email would cost more than the check.
  const words = () => quote(reader.visible(el))
  if (b.fontPx !== null && b.fontPx > 0 && b.fontPx < SMALL_PX) {
    const px = round(b.fontPx)
    const seen = small.get(px)
    if (seen) {
      seen.count++
      if (seen.places.length < SMALL_PLACES) seen.places.push(el)
    } else small.set(px, { first: b.fontSetBy ?? el, quote: words(), count: 1, places: [el] })
  }
  if (!b.color || !b.background || b.fontPx === null) return
  // Punctuation alone (a "|" or "-" between links) is not text to read: axe-core skips it too.
  // Of its own texts, one with a letter is enough (`WORDY` matches one character): not joined.
  if (!el.children.some((c) => c.type === 'text' && WORDY.test(c.data))) return
  const fg = b.color.a < 1 ? blend(b.color, b.background) : b.color
  const pair = looks.pair(fg, b.background)
  const { ratio } = pair
  const large = b.fontPx >= LARGE_PX || (b.bold && b.fontPx >= LARGE_BOLD_PX)
  const needed = large ? LARGE_RATIO : NORMAL_RATIO
  // Text the colour of its background is hidden on purpose (a spacer, a preheader trick), not
  // hard to read: axe-core calls under 1.01:1 "incomplete" too.
  if (ratio >= needed || ratio < 1.01) return
  add(
    el,
    'low_contrast',
    `Text (${words()}) ${(pair.said[Number(large)] ??= contrastSaid(fg, b.background, ratio, large))}`,
    large ? FIX_LARGE : FIX_NORMAL,
  )
}

/** What `low_contrast` says to do, one sentence for each ratio: not written anew a finding. */
const FIX_LARGE = `Darken the text or lighten its background (or the reverse) to at least ${LARGE_RATIO}:1.`
const FIX_NORMAL = `Darken the text or lighten its background (or the reverse) to at least ${NORMAL_RATIO}:1 (3:1 for text of 24 px, or 18.66 px bold, and larger).`

/** How many places a `small_text` finding lists. */
const SMALL_PLACES = 3

/**
 * One `small_text` per size: inlined and MJML HTML set the size on every element, which was one
 * finding per element (29 on one email). It points at the element that set the size first.
 */
function smallText(
  small: Map<number, SmallText>,
  add: Add,
  lineOf: (el: Element) => number | null,
): void {
  for (const [px, { first, quote: words, count: n, places }] of small) {
    const lines = [...new Set(places.map(lineOf).filter((l): l is number => l !== null))]
    const where =
      n === 1
        ? `Text (${words}) is set at ${px} px`
        : `Text is set at ${px} px in ${n} places (first ${words}, on line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}${n > places.length ? ', …' : ''})`
    add(
      first,
      'small_text',
      `${where}: under 14 px it is hard to read on a phone, and some clients enlarge it unevenly.`,
      'Set body text at 14 px or more (16 px reads best on a phone).',
    )
  }
}

const round = (n: number) => Math.round(n * 100) / 100

function headings(list: Element[], add: Add): void {
  let previous = 0
  for (const h of list) {
    const level = Number(h.name[1])
    if (previous && level > previous + 1)
      add(
        h,
        'heading_order',
        `An <${h.name}> follows an <h${previous}>: a screen reader user who jumps from heading to heading thinks a level is missing.`,
        `Use <h${previous + 1}> here (style it as you like), or fill in the level between.`,
      )
    previous = level
  }
}
