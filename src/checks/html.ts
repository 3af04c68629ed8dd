import { parseDocument } from 'htmlparser2'
import type { Document, Element } from 'domhandler'

/** The parsed HTML plus a way to turn a character offset into a 1-based line. */
export interface ParsedHtml {
  document: Document
  elements: Element[]
  lineOf(offset: number | null | undefined): number | null
}

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
  return { document, elements, lineOf }
}
