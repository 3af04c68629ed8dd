import type { TabSpec } from './detail-route.js'
import {
  DEFAULT_VIEW,
  normalizeWidth,
  SCHEMES,
  type ViewState,
  type WidthPreset,
} from './preview.js'

/**
 * What the Changes view keeps in its URL, and the small decisions it makes without a DOM: the
 * comparison (swipe, overlay, the screenshots), its width and colour scheme, the difference
 * blend, which screenshot a view shows, how a case is named in a link, and a unified diff read
 * line by line.
 *
 *   #/changes                                          the cases to review
 *   #/changes/<template>?case=<case>&mode=overlay&width=600&dark=media&blend=difference
 */

/** A case: a template and one of its fixture cases. */
export interface CaseKey {
  template: string
  case: string
}

export type CompareMode = 'swipe' | 'overlay' | 'images'

export interface CompareOptions {
  mode: CompareMode
  /** Width and colour scheme, as the template preview has them (Light and Dark only; images on). */
  view: ViewState
  /** Overlay: the render now blended over the snapshot by difference (what is the same is black). */
  difference: boolean
}

/** The ways to compare, as tabs; the screenshots only when `sendbox check --visual` made some. */
export const COMPARE_MODES: readonly (TabSpec & { id: CompareMode })[] = [
  { id: 'swipe', label: 'Swipe' },
  { id: 'overlay', label: 'Overlay' },
  { id: 'images', label: 'Screenshots' },
]

export const CHANGE_WIDTHS: WidthPreset[] = [
  { value: '', label: 'Fit', hint: 'the pane' },
  { value: '375', label: 'Phone', hint: '375 px' },
  { value: '600', label: 'Email', hint: '600 px, the usual email width' },
]

/** Light and dark: what `?scheme=` decides, and what the screenshots were taken in. */
export const CHANGE_SCHEMES = SCHEMES.filter((s) => s.value !== 'invert')

export const DEFAULT_COMPARE: CompareOptions = {
  mode: 'swipe',
  view: DEFAULT_VIEW,
  difference: false,
}

const MODES = COMPARE_MODES.map((m) => m.id) as readonly string[]

/**
 * The options a route asks for; a key it leaves out keeps its current value (they carry over
 * from one case to the next).
 *
 * @example
 * readCompare(new URLSearchParams('mode=overlay&dark=media'), DEFAULT_COMPARE)
 * // { mode: 'overlay', view: { width: '', dark: 'media', imagesOff: false }, difference: false }
 */
export function readCompare(params: URLSearchParams, current: CompareOptions): CompareOptions {
  const mode = params.get('mode')
  return {
    mode: params.has('mode')
      ? MODES.includes(mode!)
        ? (mode as CompareMode)
        : 'swipe'
      : current.mode,
    view: {
      width: params.has('width') ? normalizeWidth(params.get('width')) : current.view.width,
      dark: params.has('dark')
        ? params.get('dark') === 'media'
          ? 'media'
          : ''
        : current.view.dark,
      imagesOff: false,
    },
    difference: params.has('blend') ? params.get('blend') === 'difference' : current.difference,
  }
}

/**
 * The URL parameters of some options, defaults left out (null).
 *
 * @example compareParams({ ...DEFAULT_COMPARE, mode: 'overlay' }) // { mode: 'overlay', width: null, dark: null, blend: null }
 */
export function compareParams(options: CompareOptions): Record<string, string | null> {
  return {
    mode: options.mode === 'swipe' ? null : options.mode,
    width: options.view.width || null,
    dark: options.view.dark === 'media' ? 'media' : null,
    blend: options.difference ? 'difference' : null,
  }
}

export const sameCompare = (a: CompareOptions, b: CompareOptions): boolean =>
  a.mode === b.mode &&
  a.difference === b.difference &&
  a.view.width === b.view.width &&
  a.view.dark === b.view.dark

/** A case as one string, for a list row's `data-id` (names never hold a `/`). */
export const caseId = (key: CaseKey): string => `${key.template}/${key.case}`

/**
 * @example parseCaseId('welcome/default') // { template: 'welcome', case: 'default' }
 */
export function parseCaseId(id: string): CaseKey | null {
  const at = id.indexOf('/')
  return at > 0 && at < id.length - 1 ? { template: id.slice(0, at), case: id.slice(at + 1) } : null
}

export const sameCase = (a: CaseKey | null, b: CaseKey | null): boolean =>
  a === b || (!!a && !!b && a.template === b.template && a.case === b.case)

/**
 * The screenshot variant a view shows: 375 px at the phone width, 600 px otherwise; light or dark.
 *
 * @example imageVariant({ width: '375', dark: 'media', imagesOff: false }) // '375-dark'
 */
export function imageVariant(view: ViewState): string {
  return `${view.width === '375' ? 375 : 600}-${view.dark === 'media' ? 'dark' : 'light'}`
}

export type DiffLineKind = 'header' | 'hunk' | 'add' | 'del' | 'same' | 'note'

export interface DiffLine {
  kind: DiffLineKind
  /** The line without its marker (+, -, space). */
  text: string
  /** Its number in the snapshot and in the render now, where it has one. */
  before: number | null
  after: number | null
  /**
   * A removed or added line paired with one on the other side: where, in `text`, the part that
   * differs starts and ends (what the two share before and after it is left unmarked).
   */
  changed?: [start: number, end: number]
}

/**
 * The lines of a diff made to read in a narrow column: the indentation every line of a hunk
 * shares taken off (a template's HTML is often 20 spaces deep, which wrapped each line onto
 * several rows), and each removed line paired with the added line in the same place of its
 * run, the part that differs marked on both.
 *
 * @example
 * readable(diffLines('@@ -1 +1 @@\n-    <td>Total</td>\n+    <td>Grand total</td>\n'))
 * // [hunk, { kind: 'del', text: '<td>Total</td>', changed: [4, 9] }, { kind: 'add', text: '<td>Grand total</td>', changed: [4, 15] }]
 */
export function readable(lines: readonly DiffLine[]): DiffLine[] {
  const out: DiffLine[] = []
  let start = 0
  while (start < lines.length) {
    let end = start + 1
    while (end < lines.length && lines[end]!.kind !== 'hunk') end++
    const hunk = lines.slice(start, end)
    const body = hunk.filter((l) => l.kind === 'add' || l.kind === 'del' || l.kind === 'same')
    const indent = Math.min(
      ...body.filter((l) => l.text.trim()).map((l) => /^[ \t]*/.exec(l.text)![0].length),
    )
    const cut = Number.isFinite(indent) ? indent : 0
    out.push(
      ...markPairs(hunk.map((l) => (body.includes(l) ? { ...l, text: l.text.slice(cut) } : l))),
    )
    start = end
  }
  return out
}

/** Each run of removed lines then added ones, paired in order, the differing middle marked. */
function markPairs(lines: DiffLine[]): DiffLine[] {
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.kind !== 'del') continue
    let dels = i
    while (dels < lines.length && lines[dels]!.kind === 'del') dels++
    let adds = dels
    while (adds < lines.length && lines[adds]!.kind === 'add') adds++
    for (let k = 0; k < Math.min(dels - i, adds - dels); k++) {
      const [a, b] = [lines[i + k]!, lines[dels + k]!]
      let head = 0
      while (head < a.text.length && head < b.text.length && a.text[head] === b.text[head]) head++
      let tail = 0
      while (
        tail < a.text.length - head &&
        tail < b.text.length - head &&
        a.text[a.text.length - 1 - tail] === b.text[b.text.length - 1 - tail]
      )
        tail++
      // Whole words: "Total" → "Grand total" marks both words, not "T" and "Grand t".
      const word = (c: string | undefined) => c !== undefined && /\w/.test(c)
      while (head > 0 && word(a.text[head - 1])) head--
      while (
        tail > 0 &&
        word(a.text[a.text.length - tail]) &&
        (word(a.text[a.text.length - tail - 1]) || word(b.text[b.text.length - tail - 1]))
      )
        tail--
      lines[i + k] = { ...a, changed: [head, a.text.length - tail] }
      lines[dels + k] = { ...b, changed: [head, b.text.length - tail] }
    }
    i = adds - 1
  }
  return lines
}

/**
 * A unified diff (as jsdiff writes it) read line by line, with each line's numbers on both
 * sides; a line of text starting `--` is told from the file header by where it is.
 *
 * @example
 * diffLines('--- a\n+++ b\n@@ -1,1 +1,1 @@\n-Hi\n+Hello\n').map((l) => l.kind) // ['header', 'header', 'hunk', 'del', 'add']
 */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = []
  let before = 0
  let after = 0
  let inHunk = false
  for (const line of diff.replace(/\n$/, '').split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line)
    if (hunk) {
      inHunk = true
      before = Number(hunk[1])
      after = Number(hunk[2])
      out.push({ kind: 'hunk', text: line, before: null, after: null })
    } else if (!inHunk) out.push({ kind: 'header', text: line, before: null, after: null })
    else if (line.startsWith('+'))
      out.push({ kind: 'add', text: line.slice(1), before: null, after: after++ })
    else if (line.startsWith('-'))
      out.push({ kind: 'del', text: line.slice(1), before: before++, after: null })
    else if (line.startsWith('\\'))
      out.push({ kind: 'note', text: line, before: null, after: null })
    else out.push({ kind: 'same', text: line.slice(1), before: before++, after: after++ })
  }
  return out
}

/** How many lines a diff adds and removes. */
export function diffStat(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const line of lines) {
    if (line.kind === 'add') added++
    else if (line.kind === 'del') removed++
  }
  return { added, removed }
}

/**
 * A short fingerprint of a text (FNV-1a, 32 bits): a frame is keyed by it, so a frame is made
 * anew, and loads again, when what it shows changed, and only then (its URL stays the same: the
 * route serves the render of the moment, uncached, and takes no parameter it does not know).
 *
 * @example contentKey('<p>Hi</p>') // 'b2c5f0ea' (8 hex digits)
 */
export function contentKey(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16).padStart(8, '0')
}
