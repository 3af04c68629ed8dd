import type { AnyNode, Element } from 'domhandler'
import type { ParsedHtml } from './html.js'
import { type Box, blend, computeBoxes, contrast, hex, type Rgba } from './styles.js'
import type { Finding } from './types.js'

/**
 * The email's own accessibility: what a screen reader, a zoomed or low-vision reader, and a
 * reader with images off meet. Every finding points at its element (line and column of its start
 * tag in the rendered HTML) and is a warning: `sendbox check --strict-accessibility` makes them
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
])

/** WCAG 2.x (SC 1.4.3): 4.5:1, or 3:1 for large text (18 pt, or 14 pt bold). */
const NORMAL_RATIO = 4.5
const LARGE_RATIO = 3
const LARGE_PX = 24
const LARGE_BOLD_PX = (14 * 4) / 3
/** Under this, body text is hard to read on a phone without zooming. */
const SMALL_PX = 14

const text = (node: AnyNode): string =>
  node.type === 'text'
    ? (node as unknown as { data: string }).data
    : 'children' in node
      ? (node.children as AnyNode[]).map(text).join('')
      : ''
const squash = (s: string) => s.replace(/\s+/g, ' ').trim()
const quote = (s: string) => {
  const short = squash(s)
  return `"${short.length > 40 ? `${short.slice(0, 39)}…` : short}"`
}
const isPresentation = (el: Element) => /^(?:presentation|none)$/i.test(el.attribs.role ?? '')
const nonBlank = (s: string | undefined) => s !== undefined && s.trim() !== ''

/**
 * Runs the accessibility rules on one parsed email.
 *
 * @example
 * checkAccessibility(parseHtml('<html><body><img src="a.png"></body></html>'))
 * // [{ code: 'missing_lang', … }, { code: 'missing_title', … }, { code: 'img_missing_alt', line: 1, column: 13, … }]
 */
export function checkAccessibility(parsed: ParsedHtml): Finding[] {
  const { elements } = parsed
  const boxes = computeBoxes(parsed.document, elements)
  const box = (el: Element) => boxes.get(el)!
  const findings: Finding[] = []
  const add = (el: Element | null, code: string, message: string, fix: string): void => {
    const place = el ? parsed.placeOf(el.startIndex) : null
    findings.push({
      check: 'accessibility',
      code,
      severity: 'warning',
      line: place?.line ?? null,
      column: place?.column ?? null,
      message,
      fix,
    })
  }
  const byId = (id: string) => elements.find((el) => el.attribs.id === id)
  /** What a screen reader reads for a node: text, image alts, labels; hidden parts left out. */
  const spoken = (node: AnyNode): string => {
    if (node.type === 'text') return text(node)
    if (node.type !== 'tag') return ''
    const el = node as Element
    if (box(el).ariaHidden) return ''
    if (nonBlank(el.attribs['aria-label'])) return el.attribs['aria-label']!
    if (el.name === 'img') return el.attribs.alt ?? ''
    return el.children.map(spoken).join(' ')
  }

  document(parsed, add)
  const looks: Looks = { small: new Set(), ratio: contrastMemo() }
  for (const el of elements) {
    const b = box(el)
    if (el.name === 'img' && !b.ariaHidden) image(el, add)
    else if (el.name === 'a' && el.attribs.href !== undefined && !b.ariaHidden)
      link(el, add, spoken, byId)
    else if (el.name === 'table' && !b.hidden) table(el, add)
    if (!b.hidden && el.children.some((c) => c.type === 'text' && /\S/.test(c.data)))
      textLook(el, b, add, looks)
  }
  headings(
    elements.filter((el) => /^h[1-6]$/.test(el.name) && !box(el).hidden),
    add,
  )
  return findings
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

function link(
  el: Element,
  add: Add,
  spoken: (node: AnyNode) => string,
  byId: (id: string) => Element | undefined,
): void {
  const labelledBy = (el.attribs['aria-labelledby'] ?? '')
    .split(/\s+/)
    .map((id) => (id ? byId(id) : undefined))
    .map((target) => (target ? spoken(target) : ''))
    .join(' ')
  const name = squash(
    nonBlank(el.attribs['aria-label'])
      ? el.attribs['aria-label']!
      : nonBlank(labelledBy)
        ? labelledBy
        : squash(el.children.map(spoken).join(' ')) || (el.attribs.title ?? ''),
  )
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

/** A table with no header cell and no caption lays things out: it should say so. */
function table(el: Element, add: Add): void {
  if (isPresentation(el)) return
  const hasHeader = (nodes: AnyNode[]): boolean =>
    nodes.some(
      (n) =>
        n.type === 'tag' &&
        ((n as Element).name === 'th' ||
          (n as Element).name === 'caption' ||
          ((n as Element).name !== 'table' && hasHeader((n as Element).children))),
    )
  if (hasHeader(el.children)) return
  add(
    el,
    'layout_table_without_role',
    'A table lays out the email (it has no header cell and no caption) but does not say so: a screen reader announces "table, 3 rows, 2 columns" and reads it cell by cell.',
    'Add role="presentation" to layout tables (keep <th> or a <caption> on tables of data).',
  )
}

/** What the text checks keep over one email. */
interface Looks {
  /** The elements already said to set a small size. */
  small: Set<Element>
  ratio: (fg: Rgba, bg: Rgba) => number
}

/**
 * `contrast`, once per pair of colours in an email: its text is a few colours on a few
 * backgrounds (the colours are shared objects, see `parseColor`), and the ratio was a tenth of
 * the accessibility check's time.
 */
function contrastMemo(): (fg: Rgba, bg: Rgba) => number {
  const ratios = new Map<Rgba, Map<Rgba, number>>()
  return (fg, bg) => {
    let row = ratios.get(fg)
    if (!row) ratios.set(fg, (row = new Map()))
    let ratio = row.get(bg)
    if (ratio === undefined) row.set(bg, (ratio = contrast(fg, bg)))
    return ratio
  }
}

/** Contrast and size of the text directly inside an element. */
function textLook(el: Element, b: Box, add: Add, { small, ratio: ratioOf }: Looks): void {
  // Said only in a finding: quoting every text of every email would cost more than the check.
  const words = () => quote(el.children.map((c) => (c.type === 'text' ? c.data : '')).join(' '))
  // Once per element that sets the size: a footer of ten small lines is one thing to fix.
  if (
    b.fontPx !== null &&
    b.fontPx > 0 &&
    b.fontPx < SMALL_PX &&
    b.fontSetBy &&
    !small.has(b.fontSetBy)
  ) {
    small.add(b.fontSetBy)
    add(
      b.fontSetBy,
      'small_text',
      `Text (${words()}) is set at ${round(b.fontPx)} px: under 14 px it is hard to read on a phone, and some clients enlarge it unevenly.`,
      'Set body text at 14 px or more (16 px reads best on a phone).',
    )
  }
  if (!b.color || !b.background || b.fontPx === null) return
  const fg = b.color.a < 1 ? blend(b.color, b.background) : b.color
  const ratio = ratioOf(fg, b.background)
  const large = b.fontPx >= LARGE_PX || (b.bold && b.fontPx >= LARGE_BOLD_PX)
  const needed = large ? LARGE_RATIO : NORMAL_RATIO
  // Text the colour of its background is hidden on purpose (a spacer, a preheader trick), not
  // hard to read: axe-core calls under 1.01:1 "incomplete" too.
  if (ratio >= needed || ratio < 1.01) return
  add(
    el,
    'low_contrast',
    `Text (${words()}) is ${hex(fg)} on ${hex(b.background)}, a contrast of ${(Math.floor(ratio * 100) / 100).toFixed(2)}:1, under the ${needed}:1 ${large ? 'large ' : ''}text needs: readers with low vision, or in sunlight, cannot make it out.`,
    `Darken the text or lighten its background (or the reverse) to at least ${needed}:1${large ? '' : ' (3:1 for text of 24 px, or 18.66 px bold, and larger)'}.`,
  )
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
