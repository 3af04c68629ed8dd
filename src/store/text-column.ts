/**
 * One text per record position, all in one string, searched with `indexOf`: where the record
 * index finds the records a `to` or `recipient` filter can match without reading them.
 *
 * Why one string: a `?to=` list over 5,000 records read each record's texts, 5,000 small objects
 * scattered over a heap of message bodies. Right after a send (which had just walked a render
 * and its HTML) none of them was in the CPU's caches, and the list's scan took about 1 ms of the
 * 3 ms a send → read round trip took (CPU profile of the read alone: the scan was half of its
 * 0.72 ms). The same texts laid end to end are read front to back: `indexOf` over them took
 * tens of µs, warm or not (bench/maildev.js, send → read; record-index.ts has the figures).
 *
 * Each position's text is its entries joined by `\0`, each entry followed by `\0`, after a `\0`
 * that starts the string: an entry is always between two `\0`. A needle without `\0` that is
 * found lies inside one entry (a substring filter); `\0needle\0` finds a whole entry (an exact
 * one). A needle with `\0` in it is left to the caller's scan (`positions` returns undefined).
 *
 * @example
 * const column = createTextColumn()
 * column.push(['ada <ada@x.test>']); column.push(['bo <bo@x.test>'])
 * column.positions('ada@', 0, false) // [0]
 */
export class TextColumn {
  private text = '\0'
  /** Where each line starts in `text`, by line. */
  private starts: number[] = []
  /** @param base The record position of line 0 (negative once the index cut off a dropped prefix). */
  constructor(private base = 0) {}

  /** Lines held (live or not): the next `push` is the line of position `base + lines`. */
  get lines(): number {
    return this.starts.length
  }

  /** The position the next `push` describes. */
  get next(): number {
    return this.base + this.starts.length
  }

  /** Appends the line of the next position. */
  push(entries: readonly string[]): void {
    this.starts.push(this.text.length)
    for (const entry of entries) this.text += `${entry}\0`
  }

  /** The record positions moved down by `by` (the index cut off as many dropped records). */
  shift(by: number): void {
    this.base -= by
  }

  /** Lines of positions before 0: records gone, still in the string until it is made anew. */
  dead(): number {
    return Math.max(0, Math.min(-this.base, this.starts.length))
  }

  /**
   * Positions from `from` on whose line has `needle` inside one entry (`exact`: as a whole
   * entry), ascending; undefined for a needle with `\0` in it.
   */
  positions(needle: string, from: number, exact: boolean): number[] | undefined {
    if (needle.includes('\0')) return undefined
    const found: number[] = []
    const first = Math.max(0, from - this.base)
    if (first >= this.starts.length) return found
    const sought = exact ? `\0${needle}\0` : needle
    // An exact needle starts at the `\0` before its entry: the one that ends the line before.
    let at = this.text.indexOf(sought, this.starts[first]! - (exact ? 1 : 0))
    while (at !== -1) {
      const line = this.lineAt(exact ? at + 1 : at, first)
      found.push(line + this.base)
      const end = this.starts[line + 1] ?? this.text.length
      at = this.text.indexOf(sought, end - (exact ? 1 : 0))
    }
    return found
  }

  /** The line holding offset `at` (at least `low`): the last whose start is at or before it. */
  private lineAt(at: number, low: number): number {
    let high = this.starts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >>> 1
      if (this.starts[middle]! <= at) low = middle
      else high = middle - 1
    }
    return low
  }
}

/** @example const column = createTextColumn(0) */
export const createTextColumn = (base = 0): TextColumn => new TextColumn(base)
