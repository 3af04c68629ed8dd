/**
 * One text per record position, laid end to end in a few strings, searched with `indexOf`:
 * where the record index finds the records a `to` or `recipient` filter can match without
 * reading them.
 *
 * Why end to end: a `?to=` list over 5,000 records read each record's texts, 5,000 small objects
 * scattered over a heap of message bodies. Right after a send (which had just walked a render
 * and its HTML) none of them was in the CPU's caches, and the list's scan took about 1 ms of the
 * 3 ms a send → read round trip took (CPU profile of the read alone: the scan was half of its
 * 0.72 ms). An `indexOf` over 5,000 lines laid end to end takes about 2 µs.
 *
 * Why chunks of CHUNK_LINES lines, not one string: a string grown by `+=` is flattened (copied
 * whole) by the next `indexOf`, and one of 5,000 lines (175 KB) is a large object for V8: an add
 * then a search took 0.65 ms, four times the old scan, in a loop of 200. Only the last chunk
 * grows; the others are copied once, and a removal rewrites one chunk.
 *
 * Each line is its entries, each followed by `\0`, after a `\0` that starts its chunk: an entry
 * is always between two `\0`. A needle without `\0` that is found lies inside one entry (a
 * substring filter); `\0needle\0` finds a whole entry (an exact one). A needle with `\0` in it
 * is left to the caller's scan (`positions` returns undefined).
 *
 * @example
 * const column = createTextColumn()
 * column.push(['ada <ada@x.test>']); column.push(['bo <bo@x.test>'])
 * column.positions('ada@', 0, false) // [0]
 */
export class TextColumn {
  private chunks: Chunk[] = []
  private count = 0

  /** @param base The record position of line 0 (negative once the index cut off a dropped prefix). */
  constructor(private base = 0) {}

  /** The position the next `push` describes. */
  get next(): number {
    return this.base + this.count
  }

  /** Appends the line of the next position. */
  push(entries: readonly string[]): void {
    let last = this.chunks[this.chunks.length - 1]
    if (!last || last.starts.length >= CHUNK_LINES) {
      last = { text: '\0', starts: [], first: this.count }
      this.chunks.push(last)
    }
    last.starts.push(last.text.length)
    last.text += lineOf(entries)
    this.count++
  }

  /** The record positions moved down by `by` (the index cut off as many dropped records). */
  shift(by: number): void {
    this.base -= by
    // Chunks whose every line is a gone record's go: what is held of them is one chunk at most.
    const gone = this.chunks.findIndex((c) => this.base + c.first + c.starts.length > 0)
    this.chunks.splice(0, gone === -1 ? this.chunks.length : gone)
  }

  /** The line of `position` taken out: the lines after it move down one. */
  cut(position: number): void {
    this.rewrite(position, null)
  }

  /** The line of `position` made anew from `entries`. */
  set(position: number, entries: readonly string[]): void {
    this.rewrite(position, entries)
  }

  /**
   * Positions from `from` on whose line has `needle` inside one entry (`exact`: as a whole
   * entry), ascending; undefined for a needle with `\0` in it.
   */
  positions(needle: string, from: number, exact: boolean): number[] | undefined {
    if (needle.includes('\0')) return undefined
    const found: number[] = []
    const sought = exact ? `\0${needle}\0` : needle
    // An exact needle starts at the `\0` before its entry: the one that ends the line before.
    const back = exact ? 1 : 0
    const firstLine = from - this.base
    for (const chunk of this.chunks) {
      const low = Math.max(0, firstLine - chunk.first)
      if (low >= chunk.starts.length) continue
      const { text, starts } = chunk
      let at = text.indexOf(sought, starts[low]! - back)
      while (at !== -1) {
        const line = lineAt(starts, at + back, low)
        found.push(this.base + chunk.first + line)
        at = text.indexOf(sought, (starts[line + 1] ?? text.length) - back)
      }
    }
    return found
  }

  /** Replaces (or with null takes out) the line of `position`, in its chunk alone. */
  private rewrite(position: number, entries: readonly string[] | null): void {
    const line = position - this.base
    const at = this.chunks.findIndex((c) => line >= c.first && line < c.first + c.starts.length)
    if (at === -1) return
    const chunk = this.chunks[at]!
    const local = line - chunk.first
    const start = chunk.starts[local]!
    const end = chunk.starts[local + 1] ?? chunk.text.length
    const next = entries === null ? '' : lineOf(entries)
    chunk.text = chunk.text.slice(0, start) + next + chunk.text.slice(end)
    const moved = next.length - (end - start)
    for (let i = local + 1; i < chunk.starts.length; i++) chunk.starts[i]! += moved
    if (entries !== null) return
    chunk.starts.splice(local, 1)
    for (let i = at + 1; i < this.chunks.length; i++) this.chunks[i]!.first--
    if (chunk.starts.length === 0) this.chunks.splice(at, 1)
    this.count--
  }
}

/** Lines per chunk: the last, growing one is copied whole at each search after a push (9 KB of receipts' `to`). */
const CHUNK_LINES = 256

interface Chunk {
  text: string
  /** Where each of its lines starts in `text`. */
  starts: number[]
  /** The column's line number of its first line. */
  first: number
}

const lineOf = (entries: readonly string[]): string => {
  let line = ''
  for (const entry of entries) line += `${entry}\0`
  return line
}

/** The line holding offset `at` (at least `low`): the last whose start is at or before it. */
function lineAt(starts: readonly number[], at: number, low: number): number {
  let high = starts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >>> 1
    if (starts[middle]! <= at) low = middle
    else high = middle - 1
  }
  return low
}

/** @example const column = createTextColumn(0) */
export const createTextColumn = (base = 0): TextColumn => new TextColumn(base)
