import { parseDocument } from 'htmlparser2'
import type { Document, Element } from 'domhandler'

/** The parsed HTML plus a way to turn a character offset into a 1-based line (and column). */
export interface ParsedHtml {
  document: Document
  elements: Element[]
  lineOf(offset: number | null | undefined): number | null
  /** 1-based line and column (in UTF-16 units) of an offset; null for none. */
  placeOf(offset: number | null | undefined): { line: number; column: number } | null
}

/**
 * Parses rendered HTML once for every check.
 *
 * @example
 * parseHtml('<p>\n<b>x</b>').placeOf(4) // { line: 2, column: 1 }
 */
export function parseHtml(html: string): ParsedHtml {
  const document = parseDocument(html, { withStartIndices: true })
  const elements: Element[] = []
  const walk = (nodes: Document['children']) => {
    for (const node of nodes) {
      if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
        elements.push(node as Element)
        walk((node as Element).children)
      }
    }
  }
  walk(document.children)
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
  return { document, elements, lineOf, placeOf }
}
