import type { CssDeclarationAST, CssMediaAST, CssRuleAST } from '@adobe/css-tools'
import { colord, extend } from 'colord'
import namesPlugin from 'colord/plugins/names'
import { compile } from 'css-select'
import { parse as parseSelector } from 'css-what'
import type { AnyNode, Document, Element } from 'domhandler'
import { DomUtils } from 'htmlparser2'
import type { ParsedCss } from './css.js'
import { type ParsedHtml, styleText } from './html.js'
import { keep } from './memo.js'
import { candidates, indexRules, type RuleIndex, subjectKey } from './rule-index.js'

/**
 * What an email's own markup says about each element's look, as far as reading it needs: its
 * text colour, the colour behind it, its font size and weight, and whether it shows at all.
 * Computed from inline styles, presentational attributes (`bgcolor`, `<font color>`, `<body
 * text>`), the `<style>` rules that match (outside `@media`: the base design every client
 * shows), and Chromium's defaults (links #0000ee, headings' sizes), inherited down the tree.
 * Where a colour cannot be known (an image or a gradient behind the text, an opacity, a colour
 * sendbox cannot parse) it is `null`, and the accessibility check says nothing rather than guess.
 */

extend([namesPlugin])

export interface Rgba {
  r: number
  g: number
  b: number
  a: number
}

export interface Box {
  /** Not rendered: `display:none`, `visibility:hidden`, zero size, the `hidden` attribute, the head. */
  hidden: boolean
  /** Not read by a screen reader: hidden, or under `aria-hidden="true"`. */
  ariaHidden: boolean
  /** The text colour, or null when it cannot be known. */
  color: Rgba | null
  /** The opaque colour behind the element, or null when it cannot be known. */
  background: Rgba | null
  /** The font size in CSS pixels, or null when it cannot be known (`calc()`, `vw`). */
  fontPx: number | null
  /** The element whose declaration set the font size (for pointing at it), null for the default. */
  fontSetBy: Element | null
  bold: boolean
}

const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 }
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 }
/** Chromium's `-webkit-link`. */
const LINK_BLUE: Rgba = { r: 0, g: 0, b: 238, a: 1 }
const ROOT: Box = {
  hidden: false,
  ariaHidden: false,
  color: BLACK,
  background: WHITE,
  fontPx: 16,
  fontSetBy: null,
  bold: false,
}

/** The properties the check reads; every other declaration is skipped as the cascade runs. */
const READ: ReadonlySet<string> = new Set([
  'color',
  'background',
  'background-color',
  'background-image',
  'font',
  'font-size',
  'font-weight',
  'display',
  'visibility',
  'opacity',
  'height',
  'max-height',
  'overflow',
  'overflow-y',
])

/** Chromium's default sizes (em of the parent) and weights. */
const TAG_EM: ReadonlyMap<string, number> = new Map([
  ['h1', 2],
  ['h2', 1.5],
  ['h3', 1.17],
  ['h4', 1],
  ['h5', 0.83],
  ['h6', 0.67],
  ['small', 1 / 1.2],
  ['big', 1.2],
  ['sub', 1 / 1.2],
  ['sup', 1 / 1.2],
])
const BOLD_TAGS: ReadonlySet<string> = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'b',
  'strong',
  'th',
])
const NEVER_SHOWN: ReadonlySet<string> = new Set([
  'head',
  'title',
  'style',
  'script',
  'template',
  'noscript',
])
const KEYWORD_PX: Readonly<Record<string, number>> = {
  'xx-small': 9,
  'x-small': 10,
  small: 13,
  medium: 16,
  large: 18,
  'x-large': 24,
  'xx-large': 32,
  'xxx-large': 48,
}
/** `<font size="1">` … `size="7"`. */
const FONT_SIZE_ATTR = [10, 13, 16, 18, 24, 32, 48]

type Declared = Map<string, { value: string; rank: number }>
type Read = ReadonlyMap<string, { value: string; rank: number }>
const NOTHING: ReadonlyMap<string, { value: string; rank: number }> = new Map()

/**
 * Cascade ranks: presentational attributes 0, then rules by specificity and order (the order of
 * their declarations in the email, under `ORDERS`), then the inline style; `!important` rules
 * above those, inline `!important` above all. The largest, 3e15, is an exact integer in a double.
 */
const ORDERS = 1e6
const INLINE = 1e15
const IMPORTANT = 2e15

/** Declarations of a `style` attribute: `a:b; c:d` (semicolons inside parentheses kept). */
function inlineDeclarations(style: string): Array<{ property: string; value: string }> {
  const out: Array<{ property: string; value: string }> = []
  // A `;` inside parentheses (a data: URL) does not end a declaration; most styles have none.
  for (const part of style.includes('(') ? style.split(/;(?![^(]*\))/) : style.split(';')) {
    const colon = part.indexOf(':')
    if (colon < 0) continue
    out.push({ property: part.slice(0, colon).trim().toLowerCase(), value: part.slice(colon + 1) })
  }
  return out
}

/** A declaration the check reads, its value trimmed and lower-cased, `!important` taken off. */
interface Declaration {
  property: string
  value: string
  important: boolean
}

function normalise(property: string, raw: string): Declaration | null {
  if (!READ.has(property)) return null
  let value = raw.trim()
  const important = /!\s*important$/i.test(value)
  if (important) value = value.replace(/\s*!\s*important$/i, '')
  return { property, value: value.toLowerCase(), important }
}

/** CSS's keywords a colour property takes besides colours (`currentColor` lower-cased). */
const COLOUR_KEYWORDS: ReadonlySet<string> = new Set([
  'inherit',
  'initial',
  'unset',
  'revert',
  'revert-layer',
  'currentcolor',
])

/**
 * A `<style>` or `style` declaration the check reads, or null where CSS drops it: a colour that
 * is one word no browser reads makes the declaration invalid, so what was declared before it
 * shows. SuperTokens' templates set `background-color: #transparent` on their footer, where
 * reading it as an unknown colour hid the grey text on the grey behind it. A value with a
 * function sendbox cannot compute (`var(--brand)`, `color-mix(…)`) is still unknown.
 *
 * @example
 * cssDeclaration('background-color', '#transparent') // null
 * cssDeclaration('background-color', 'var(--brand)') // { property, value: 'var(--brand)', … }
 */
function cssDeclaration(property: string, raw: string): Declaration | null {
  const d = normalise(property, raw)
  if (!d || (d.property !== 'color' && d.property !== 'background-color')) return d
  const invalid =
    /^[^\s(]*$/.test(d.value) && !COLOUR_KEYWORDS.has(d.value) && colourOf(d.value) === null
  return invalid ? null : d
}

function declare(into: Declared, property: string, raw: string, rank: number): void {
  const d = normalise(property, raw)
  if (d) declareRead(into, d, rank)
}

function declareRead(into: Declared, d: Declaration, rank: number): void {
  const ranked = d.important ? rank + IMPORTANT : rank
  const was = into.get(d.property)
  if (!was || ranked >= was.rank) into.set(d.property, { value: d.value, rank: ranked })
}

/**
 * A selector's specificity as one number: ids, then classes/attributes/pseudo-classes, then
 * types, each counted up to 999 (under 1e9 in all, so that `rank` stays under `INLINE`).
 */
function specificity(selector: string): number {
  const bare = selector.replace(/"[^"]*"|'[^']*'/g, '')
  const count = (re: RegExp) => Math.min(999, bare.match(re)?.length ?? 0)
  const ids = count(/#[\w-]+/g)
  const classes = count(/\.[\w-]+|\[[^\]]*\]|(?<!:):[\w-]+/g)
  const types = count(/(?:^|[\s>+~(])[a-z][\w-]*/gi)
  return ids * 1e6 + classes * 1e3 + types
}

type CompiledQuery = ReturnType<typeof compile<AnyNode, Element>>

/** A declaration of a `<style>` rule, with its order in its sheet (base rules, then phone rules). */
interface OrderedDeclaration extends Declaration {
  order: number
}

/**
 * One selector of a sheet, compiled once, with what its rules declare: a selector written in
 * many rules (`td { … }` again and again) is one, with the last declaration of each property
 * (and the last `!important` one), as the cascade keeps no other.
 */
interface SheetRule {
  query: CompiledQuery
  /** Specificity, for the cascade (the declarations' order in the email is added as applied). */
  specificity: number
  /** What its subject requires (`subjectKey`): which elements it is tested on. */
  key: string
  declarations: OrderedDeclaration[]
}

/**
 * What matching a stylesheet's selectors may cost on one email, in steps (a selector tested on
 * an element, a parent or sibling looked at, a descendant tested by `:has()`): past it, the
 * sheet is not applied and the looks it could set are unknown (`computeBoxes`). Every rule on
 * every element is a square of the email's size (20,000 rules on 20,000 elements fit in 1 MiB),
 * and so are a descendant combinator on deep nesting and `:nth-child` among 100,000 siblings.
 * A step is up to 100 ns (a parent walked by a descendant selector, metered): ten million took
 * a second and more, a million a tenth. The 242 emails of the corpus of real emails take 213
 * steps at the median and 10,969 at most (Mailchimp's fancy-2-1-3-leftsidebar), each rule
 * tested only on the elements its subject could match (`candidates`): a million is ninety
 * times that.
 */
const MATCH_STEPS = 1_000_000

/** Thrown by a metered match past its budget. */
class TooCostly extends Error {}

/** The steps left to a sheet's selectors, reset before each email (`computeBoxes`). */
interface Meter {
  left: number
}

/** css-select's view of the DOM (domutils), counting the steps a selector takes. */
function meteredAdapter(meter: Meter) {
  const spend = (steps: number) => {
    meter.left -= steps
    if (meter.left < 0) throw new TooCostly()
  }
  const counted =
    (test: (el: Element) => boolean) =>
    (el: Element): boolean => {
      spend(1)
      return test(el)
    }
  return {
    ...DomUtils,
    getParent: (node: Element) => {
      spend(1)
      return DomUtils.getParent(node) as Element | null
    },
    getSiblings: (node: AnyNode) => {
      const siblings = DomUtils.getSiblings(node)
      spend(siblings.length)
      return siblings
    },
    getChildren: (node: AnyNode) => {
      const children = DomUtils.getChildren(node)
      spend(children.length)
      return children
    },
    getText: (node: AnyNode) => {
      const text = DomUtils.getText(node)
      spend(text.length)
      return text
    },
    existsOne: (test: (el: Element) => boolean, nodes: AnyNode[]) =>
      DomUtils.existsOne(counted(test), nodes),
    findOne: (test: (el: Element) => boolean, nodes: AnyNode[]) =>
      DomUtils.findOne(counted(test), nodes),
    findAll: (test: (el: Element) => boolean, nodes: AnyNode[]) =>
      DomUtils.findAll(counted(test), nodes),
  }
}

/** The width of the phone the phone view of an email is read at, in CSS pixels. */
const PHONE_PX = 375

/**
 * A media query that holds on a phone's screen and not on a desktop's: a `max-width` the phone
 * is within (`(max-width: 600px)`, the usual "mobile" block), for the screen, not print, and
 * nothing else asked of it (a colour scheme, a min-width past the phone's).
 */
const PHONE_MEDIA = (rule: CssMediaAST): boolean => {
  const media = rule.media.toLowerCase()
  const max = /max-(?:device-)?width\s*:\s*(\d+(?:\.\d+)?)px/.exec(media)
  const min = /min-(?:device-)?width\s*:\s*(\d+(?:\.\d+)?)px/.exec(media)
  return (
    max !== null &&
    Number(max[1]) >= PHONE_PX &&
    (min === null || Number(min[1]) <= PHONE_PX) &&
    !/print|prefers-|orientation|hover|resolution|pixel-ratio|,/.test(media)
  )
}

/** A stylesheet's rules, compiled, and the meter of their matching. */
interface Sheet {
  rules: SheetRule[]
  /** The rules inside its phone-width `@media` blocks (`PHONE_MEDIA`), in order. */
  phoneRules: SheetRule[]
  /** The first such block's query, to name in a finding: `@media (max-width: 600px)`. */
  phoneMedia: string | null
  /** How many declarations its rules number (`OrderedDeclaration.order`, base and phone). */
  count: number
  meter: Meter
  /** A block of it was too long to read (`parseCss`). */
  unreadable: boolean
}

/**
 * A stylesheet's rules, compiled once per distinct text. Parsing the CSS and compiling its
 * selectors was 60% of the accessibility check's time (3000 renders of bench/check.js's
 * templates, one `<style>` each, all alike); a project's emails share their layout's
 * `<style>`, so this is a cache that hits. Bounded: a long-running server sees unbounded CSS.
 * Its meter is set anew before each email, and an email's boxes are computed in one go.
 */
const sheets = new Map<string, Sheet>()
/** A project's layouts' sheets, a few KB each; a sheet past 128 KB is compiled for its email only. */
const SHEETS = { entries: 50, keyChars: 128 * 1024 }

function sheetOf(text: string, css: (text: string) => ParsedCss): Sheet {
  let sheet = sheets.get(text)
  if (sheet) return sheet
  const parsed = css(text)
  const meter: Meter = { left: 0 }
  const base = selectorRules(meteredAdapter(meter))
  const phone = selectorRules(meteredAdapter(meter))
  let phoneMedia: string | null = null
  for (const rule of parsed.sheet.stylesheet.rules) {
    if (rule.type === 'rule') base.add(rule as CssRuleAST)
    else if (rule.type === 'media' && PHONE_MEDIA(rule as CssMediaAST)) {
      phoneMedia ??= `@media ${(rule as CssMediaAST).media.trim()}`
      for (const inner of (rule as CssMediaAST).rules)
        if (inner.type === 'rule') phone.add(inner as CssRuleAST)
    }
  }
  // The phone rules come after the base rules in the cascade.
  const phoneRules = phone.done(base.count)
  // A block too long to read: what the sheet sets is unknown (`stylesheetRules` says so).
  sheet = {
    rules: base.done(0),
    phoneRules,
    phoneMedia,
    count: base.count + phone.count,
    meter,
    unreadable: parsed.skipped,
  }
  return keep(sheets, text, sheet, SHEETS)
}

/**
 * Rules, one `SheetRule` per distinct selector, their declarations numbered in order as added:
 * a sheet that repeats one rule 20,000 times (20 KB of `td { color: #777 }`) is one rule to
 * test on each element, not 20,000.
 */
function selectorRules(adapter: ReturnType<typeof meteredAdapter>) {
  const bySelector = new Map<string, { rule: SheetRule; last: Map<string, OrderedDeclaration> }>()
  let count = 0
  const compiled = (selector: string) => {
    const tokens = parseSelector(selector)
    const key = tokens.length === 1 ? subjectKey(tokens[0]!) : ''
    // A selector that is its key alone (`.button`, `td`, `#footer`: most of an email's) matches
    // every element it is tested on (`candidates`): not compiled, a fiftieth of the time
    // (50,000 such rules took 1.8 s to compile and match, warm).
    const alone = key !== '' && tokens[0]!.length === 1
    return {
      rule: {
        query: alone ? () => true : compile<AnyNode, Element>(tokens, { adapter }),
        specificity: specificity(selector),
        key,
        declarations: [],
      },
      last: new Map<string, OrderedDeclaration>(),
    }
  }
  const add = (rule: CssRuleAST) => {
    const declarations = rule.declarations
      .filter((d): d is CssDeclarationAST => d.type === 'declaration')
      .map((d) => cssDeclaration(d.property, d.value))
      .filter((d): d is Declaration => d !== null)
      .map((d) => ({ ...d, order: count++ }))
    if (!declarations.length) return
    for (const selector of rule.selectors) {
      let entry = bySelector.get(selector)
      try {
        if (!entry) bySelector.set(selector, (entry = compiled(selector)))
      } catch {
        // A selector css-select cannot read (a pseudo-element): it styles no element here.
        continue
      }
      for (const d of declarations) entry.last.set(`${d.important ? '!' : ''}${d.property}`, d)
    }
  }
  /** The rules, their declarations' order moved past `offset`'s. */
  const done = (offset: number): SheetRule[] =>
    [...bySelector.values()].map(({ rule, last }) => ({
      ...rule,
      declarations: [...last.values()].map((d) => ({ ...d, order: d.order + offset })),
    }))
  return {
    add,
    done,
    get count() {
      return count
    },
  }
}

/** A sheet's rule in an email: where its declarations' order starts there, and its sheet's meter. */
interface RankedRule {
  rule: SheetRule
  offset: number
  meter: Meter
}

/**
 * The `<style>` rules (outside at-rules, and with `phone` those of phone-width `@media` blocks
 * after them), filed by their subject (`indexRules`); each sheet's meter set anew. Null for an
 * email without rules. Throws `TooCostly` for a sheet too long to read, and for an email whose
 * sheets hold too many rules to read (`ParsedHtml.stylesRead`).
 */
function stylesheetRules(
  { styles, stylesRead, css }: ParsedHtml,
  phone: boolean,
): RuleIndex<RankedRule> | null {
  if (!stylesRead) throw new TooCostly()
  const ranked: RankedRule[] = []
  let offset = 0
  for (const style of styles) {
    const sheet = sheetOf(styleText(style), css)
    // The budget shared by the email's sheets: ten thousand <style> blocks get no more.
    if (sheet.unreadable) throw new TooCostly()
    sheet.meter.left = MATCH_STEPS / styles.length
    for (const rule of phone ? [...sheet.rules, ...sheet.phoneRules] : sheet.rules)
      ranked.push({ rule, offset, meter: sheet.meter })
    offset += sheet.count
  }
  return ranked.length ? indexRules(ranked, ({ rule }) => rule.key) : null
}

/**
 * The first phone-width `@media` block of an email's `<style>`s (`@media (max-width: 600px)`),
 * or null when it has none, or its `<style>`s are not read: then its phone view is its base view.
 *
 * @example
 * phoneMediaOf(parseHtml(html)) // '@media only screen and (max-width: 600px)'
 */
export function phoneMediaOf({ styles, stylesRead, css }: ParsedHtml): string | null {
  if (!stylesRead) return null
  for (const style of styles) {
    const { phoneMedia, phoneRules } = sheetOf(styleText(style), css)
    if (phoneMedia && phoneRules.length) return phoneMedia
  }
  return null
}

/**
 * What the `<style>` rules that match an element declare. Each rule that could match it (of its
 * id, classes or tag: `candidates`) is tested on the element as the walk of `computeBoxes` meets
 * it, what css-select's `selectAll` does from the root once per rule (the same elements, the same
 * test), without a walk of the whole tree per rule.
 */
function matchedRules(element: Element, rules: RuleIndex<RankedRule>): Declared | undefined {
  let declared: Declared | undefined
  candidates(rules, element, ({ rule, offset, meter }) => {
    if (--meter.left < 0) throw new TooCostly()
    if (!rule.query(element)) return
    meter.left -= rule.declarations.length
    declared ??= new Map()
    const rank = rule.specificity * ORDERS
    for (const d of rule.declarations)
      declareRead(declared, d, rank + Math.min(ORDERS - 1, offset + d.order))
  })
  return declared
}

/** An element's declarations: attributes, then matched rules (already in `sheets`), then inline. */
function declaredFor(element: Element, rules: RuleIndex<RankedRule> | null): Read {
  const { attribs } = element
  const fromSheets = rules ? matchedRules(element, rules) : undefined
  const bgcolor = legacyColour(attribs.bgcolor)
  const color = legacyColour(
    element.name === 'font' ? attribs.color : element.name === 'body' ? attribs.text : undefined,
  )
  // Most elements of an email declare nothing the check reads (no attribute, or a style of
  // paddings and fonts): no map for them, so that their box is their parent's (`computeBoxes`).
  const inline = attribs.style ? readInline(attribs.style) : NO_STYLE
  const attributes =
    bgcolor !== undefined || attribs.background !== undefined || color !== undefined
  if (!attributes) {
    if (!fromSheets) return inline.alone
    if (inline.declarations.length === 0) return fromSheets
  }
  const declared: Declared = new Map(fromSheets)
  if (bgcolor !== undefined) declare(declared, 'background-color', bgcolor, 0)
  if (attribs.background !== undefined)
    declare(declared, 'background-image', `url(${attribs.background})`, 0)
  if (color !== undefined) declare(declared, 'color', color, 0)
  for (const d of inline.declarations) declareRead(declared, d, INLINE)
  return declared
}

/**
 * A presentational colour attribute (`bgcolor`, `<font color>`, `<body text>`), or undefined
 * where the browser ignores it: HTML's legacy colour parsing drops an empty value and
 * `transparent`, so `<td bgcolor="">` (as E-Com Plus's templates write it around most of their
 * text) shows its parent's background, where reading it as an unknown colour hid 51 of their
 * low-contrast links.
 *
 * @example
 * legacyColour(' ') // undefined
 * legacyColour('#F7F7F7') // '#F7F7F7'
 */
function legacyColour(value: string | undefined): string | undefined {
  const trimmed = value?.trim()
  return trimmed && trimmed.toLowerCase() !== 'transparent' ? trimmed : undefined
}

/** A `style` attribute as the check reads it. */
interface InlineStyle {
  declarations: readonly Declaration[]
  /**
   * What an element declares when its style is all it declares (no `<style>` rule matches it, no
   * colour attribute): shared by every such element, where each made a map of its own (25,000
   * nested paragraphs of one style, 1 MiB, as many maps for the garbage collector).
   */
  alone: Read
}
const NO_STYLE: InlineStyle = { declarations: [], alone: NOTHING }

/**
 * The declarations of a `style` attribute that the check reads. By their text, bounded like
 * `sheets`: an email's rows and cells repeat a few styles, and a project's emails the same few.
 */
function readInline(style: string): InlineStyle {
  let read = inlineStyles.get(style)
  if (read) return read
  const declarations = inlineDeclarations(style)
    .map((d) => cssDeclaration(d.property, d.value))
    .filter((d): d is Declaration => d !== null)
  const alone: Declared = new Map()
  for (const d of declarations) declareRead(alone, d, INLINE)
  read = { declarations, alone: declarations.length ? alone : NOTHING }
  return keep(inlineStyles, style, read, INLINE_STYLES)
}
const inlineStyles = new Map<string, InlineStyle>()
const INLINE_STYLES = { entries: 5000, keyChars: 2048 }

/**
 * A CSS colour as RGBA; `current` for `currentColor` and `inherit`; undefined when it cannot
 * be read (a `var()`, a typo).
 *
 * @example
 * parseColor('#fff', null) // { r: 255, g: 255, b: 255, a: 1 }
 */
export function parseColor(value: string, current: Rgba | null): Rgba | null | undefined {
  if (value === 'currentcolor' || value === 'inherit') return current
  return colourOf(value) ?? undefined
}

/**
 * Colours read, by their text. An email repeats a handful of colours on every element, and
 * emails of one project the same handful: colord's parse (it tries each of its parsers in turn)
 * was a tenth of the accessibility check's time. Bounded, like `sheets`. The values are frozen:
 * every box that has the colour shares the one object.
 */
const colours = new Map<string, Readonly<Rgba> | null>()
const COLOURS = { entries: 2000, keyChars: 200 }

/** A colour's RGBA, or null when colord cannot read it. */
function colourOf(value: string): Readonly<Rgba> | null {
  let rgba = colours.get(value)
  if (rgba !== undefined) return rgba
  const parsed = colord(value)
  rgba = parsed.isValid() ? Object.freeze(parsed.toRgb()) : null
  return keep(colours, value, rgba, COLOURS)
}

/**
 * `top` drawn over an opaque `bottom`.
 *
 * @example
 * blend({ r: 0, g: 0, b: 0, a: 0.5 }, { r: 255, g: 255, b: 255, a: 1 }) // { r: 127.5, g: 127.5, b: 127.5, a: 1 }
 */
export function blend(top: Rgba, bottom: Rgba): Rgba {
  const mix = (t: number, b: number) => t * top.a + b * (1 - top.a)
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: 1 }
}

/** The first colour among a `background` shorthand's words, or what the words say about images. */
function backgroundOf(declared: Read, parent: Rgba | null): Rgba | null {
  const image = declared.get('background-image')?.value
  const shorthand = declared.get('background')?.value
  const shorthandWins =
    shorthand !== undefined &&
    (declared.get('background')?.rank ?? 0) >= (declared.get('background-color')?.rank ?? -1)
  if ((image && image !== 'none') || (shorthand && /url\(|gradient\(/.test(shorthand))) return null
  let colour: string | undefined = declared.get('background-color')?.value
  if (shorthandWins) {
    colour = 'transparent'
    for (const word of shorthand!.match(/[a-z-]+\([^)]*\)|#[\da-f]+|[a-z-]+/gi) ?? [])
      if (word === 'inherit' || colourOf(word) !== null) {
        colour = word
        break
      }
  }
  if (colour === undefined) return parent
  const rgba = parseColor(colour, parent)
  // An unreadable colour, or a translucent one over an unknown background: unknown.
  if (!rgba || (rgba.a < 1 && parent === null)) return null
  return rgba.a === 1 ? rgba : blend(rgba, parent!)
}

/** A font size in px from a CSS value, relative to the parent's; null when it cannot be known. */
function fontSize(value: string, parent: number | null): number | null {
  if (value in KEYWORD_PX) return KEYWORD_PX[value]!
  if (value === 'inherit') return parent
  if (value === 'smaller') return parent === null ? null : parent / 1.2
  if (value === 'larger') return parent === null ? null : parent * 1.2
  const m = /^(-?\d*\.?\d+)(px|pt|em|rem|%)?$/.exec(value)
  if (!m) return null
  const n = Number(m[1])
  switch (m[2]) {
    case 'px':
      return n
    case 'pt':
      return (n * 4) / 3
    case 'rem':
      return n * 16
    case 'em':
      return parent === null ? null : n * parent
    case '%':
      return parent === null ? null : (n * parent) / 100
    default:
      return n === 0 ? 0 : null
  }
}

/** The size in the `font` shorthand (`bold 14px/20px Arial`), if there is one. */
const fontShorthandSize = (font: string) =>
  /(?:^|\s)((?:\d*\.)?\d+(?:px|pt|em|rem|%)|(?:xx?x?-)?(?:small|large)|medium)(?:\/|\s)/.exec(
    `${font} `,
  )?.[1]

function isBold(value: string, parent: boolean): boolean {
  if (value === 'bold' || value === 'bolder') return true
  if (value === 'inherit') return parent
  const n = Number(value)
  return Number.isFinite(n) ? n >= 700 : false
}

function isHidden(element: Element, declared: Read): boolean {
  const get = (p: string) => declared.get(p)?.value
  if (NEVER_SHOWN.has(element.name) || element.attribs.hidden !== undefined) return true
  if (declared.size === 0) return false
  if (get('display') === 'none') return true
  if (get('visibility') === 'hidden' || get('visibility') === 'collapse') return true
  if (get('opacity') !== undefined && Number.parseFloat(get('opacity')!) === 0) return true
  const clipped = /hidden|clip/.test(`${get('overflow') ?? ''} ${get('overflow-y') ?? ''}`)
  const zero = (v: string | undefined) => v !== undefined && /^0(?:\.0*)?(?:px|em|rem|%)?$/.test(v)
  return clipped && (zero(get('height')) || zero(get('max-height')))
}

/**
 * Whether an element with no declarations looks exactly as its parent: its tag and attributes
 * change nothing of `Box` (a `<b>` in bold text changes nothing either).
 */
function inheritsAll(element: Element, parent: Box): boolean {
  const { name, attribs } = element
  return !(
    NEVER_SHOWN.has(name) ||
    (BOLD_TAGS.has(name) && !parent.bold) ||
    TAG_EM.has(name) ||
    attribs.hidden !== undefined ||
    attribs['aria-hidden'] === 'true' ||
    (name === 'font' && attribs.size !== undefined) ||
    (name === 'a' && attribs.href !== undefined)
  )
}

/** One element's box from its parent's and its own declarations. */
function boxOf(element: Element, declared: Read, parent: Box): Box {
  const get = (p: string) => declared.get(p)?.value
  const hidden = parent.hidden || isHidden(element, declared)
  const ariaHidden = parent.ariaHidden || hidden || element.attribs['aria-hidden'] === 'true'

  let fontPx = parent.fontPx
  let fontSetBy = parent.fontSetBy
  const sizeValue = get('font-size') ?? (get('font') ? fontShorthandSize(get('font')!) : undefined)
  if (sizeValue !== undefined) {
    fontPx = fontSize(sizeValue, parent.fontPx)
    fontSetBy = element
  } else if (element.name === 'font' && element.attribs.size !== undefined) {
    const size = element.attribs.size.trim()
    // `size="+1"` is relative to the default 3.
    const n = Number.parseInt(size, 10) + (/^[+-]/.test(size) ? 3 : 0)
    fontPx = Number.isFinite(n) ? FONT_SIZE_ATTR[Math.min(7, Math.max(1, n)) - 1]! : fontPx
    fontSetBy = element
  } else if (TAG_EM.has(element.name)) {
    fontPx = parent.fontPx === null ? null : parent.fontPx * TAG_EM.get(element.name)!
    fontSetBy = element
  }
  const weight =
    get('font-weight') ??
    (get('font') && /\bbold\b|\b[7-9]00\b/.test(get('font')!) ? 'bold' : undefined)
  const bold =
    weight !== undefined ? isBold(weight, parent.bold) : parent.bold || BOLD_TAGS.has(element.name)

  let color: Rgba | null | undefined = parent.color
  if (get('color') !== undefined) color = parseColor(get('color')!, parent.color)
  else if (element.name === 'a' && element.attribs.href !== undefined) color = LINK_BLUE
  // An opacity between 0 and 1 fades the text into what is behind: not worth guessing.
  const opacity = get('opacity')
  if (opacity !== undefined && Number.parseFloat(opacity) < 1) color = null

  return {
    hidden,
    ariaHidden,
    color: color ?? null,
    background: backgroundOf(declared, parent.background),
    fontPx,
    fontSetBy,
    bold,
  }
}

/**
 * Every element's box, in one walk of the tree; with `phone`, as a phone-width screen shows it
 * (the rules of its phone-width `@media` blocks applied too).
 *
 * @example
 * const boxes = computeBoxes(parseHtml(html))
 * boxes.get(paragraph)?.color // { r: 31, g: 41, b: 51, a: 1 }
 */
export function computeBoxes(parsed: ParsedHtml, { phone = false } = {}): Map<Element, Box> {
  const { document } = parsed
  try {
    return boxesOf(document, stylesheetRules(parsed, phone))
  } catch (error) {
    if (!(error instanceof TooCostly)) throw error
    // The sheet could not be applied in its budget: what it sets (colours, sizes) is unknown,
    // so the check says nothing of them rather than guess from the inline styles alone.
    const boxes = boxesOf(document, null)
    for (const [element, box] of boxes)
      boxes.set(element, { ...box, color: null, background: null, fontPx: null, fontSetBy: null })
    return boxes
  }
}

/**
 * The parent's box where `box` looks the same (a `<b>` in bold text, a cell that sets the colour
 * its row has): one box shared down a tree rather than one an element. 350,000 nested `<b>`s
 * (1 MiB) made as many boxes, 28 MB for the garbage collector to trace.
 */
function sameOr(parent: Box, box: Box): Box {
  return box.hidden === parent.hidden &&
    box.ariaHidden === parent.ariaHidden &&
    box.color === parent.color &&
    box.background === parent.background &&
    box.fontPx === parent.fontPx &&
    box.fontSetBy === parent.fontSetBy &&
    box.bold === parent.bold
    ? parent
    : box
}

/** The boxes with these rules applied, in one walk of the tree. */
function boxesOf(document: Document, rules: RuleIndex<RankedRule> | null): Map<Element, Box> {
  const boxes = new Map<Element, Box>()
  // Depth first with a stack of (element, its parent's box): an email nested deeper than the
  // call stack is still read.
  const isElement = (node: AnyNode): node is Element =>
    node.type === 'tag' || node.type === 'script' || node.type === 'style'
  const nodes: Element[] = document.children.filter(isElement).reverse()
  const parents: Box[] = nodes.map(() => ROOT)
  for (let element = nodes.pop(); element; element = nodes.pop()) {
    const parent = parents.pop()!
    const declared = declaredFor(element, rules)
    // An element that declares nothing and whose tag changes nothing has its parent's box, as
    // `boxOf` would work it out (most cells and rows of a layout table): not worked out again.
    const box =
      declared === NOTHING && inheritsAll(element, parent)
        ? parent
        : sameOr(parent, boxOf(element, declared, parent))
    boxes.set(element, box)
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!
      if (!isElement(child)) continue
      nodes.push(child)
      parents.push(box)
    }
  }
  return boxes
}

/**
 * WCAG 2.x contrast ratio of two opaque colours, unrounded (colord's own rounds the luminance to
 * two decimals, which misjudges ratios near 4.5).
 *
 * @example
 * contrast({ r: 119, g: 119, b: 119, a: 1 }, { r: 255, g: 255, b: 255, a: 1 }) // 4.48…
 */
export function contrast(a: Rgba, b: Rgba): number {
  const channel = (c: number) => {
    const s = c / 255
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }
  const luminance = (c: Rgba) =>
    0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)
  const [la, lb] = [luminance(a), luminance(b)]
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

/**
 * `#rrggbb` of a colour.
 *
 * @example
 * hex({ r: 31, g: 41, b: 51, a: 1 }) // '#1f2933'
 */
export const hex = (c: Rgba) => colord(c).toHex()
