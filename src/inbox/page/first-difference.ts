/**
 * Where two renders of an email first differ, as a box in the render now's coordinates: what
 * the Changes view marks on its stage and starts its swipe at, so that the change is in sight
 * rather than behind a divider at 50%. Read from the measuring frames, which are of the page's
 * origin and laid out at the stage's width (the shown frames are opaque to the page).
 */

export interface Box {
  left: number
  top: number
  width: number
  height: number
}

/** Elements and text in document order, whitespace-only text left out (indentation is not a change). */
function nodesOf(doc: Document): Node[] {
  const walker = doc.createTreeWalker(doc.body ?? doc.documentElement, 0x1 | 0x4)
  const out: Node[] = []
  for (let node = walker.nextNode(); node; node = walker.nextNode())
    if (node.nodeType !== 3 || node.textContent?.trim()) out.push(node)
  return out
}

/** An element's tag and attributes, a text's words: what a reader or the layout would see differ. */
function signature(node: Node): string {
  if (node.nodeType === 3) return `#text ${node.textContent!.trim().replace(/\s+/g, ' ')}`
  const element = node as Element
  const attributes = [...element.attributes].map((a) => `${a.name}=${a.value}`).sort()
  return `${element.tagName} ${attributes.join(' ')}`
}

function boxOf(node: Node): Box | null {
  const doc = node.ownerDocument!
  let rect: DOMRect
  if (node.nodeType === 3) {
    const range = doc.createRange()
    range.selectNodeContents(node)
    rect = range.getBoundingClientRect()
  } else rect = (node as Element).getBoundingClientRect()
  if (rect.width === 0 && rect.height === 0) return null
  const view = doc.defaultView
  return {
    left: rect.left + (view?.scrollX ?? 0),
    top: rect.top + (view?.scrollY ?? 0),
    width: rect.width,
    height: rect.height,
  }
}

/** The smallest box holding both. */
function union(a: Box | null, b: Box | null): Box | null {
  if (!a || !b) return a ?? b
  const left = Math.min(a.left, b.left)
  const top = Math.min(a.top, b.top)
  return {
    left,
    top,
    width: Math.max(a.left + a.width, b.left + b.width) - left,
    height: Math.max(a.top + a.height, b.top + b.height) - top,
  }
}

/**
 * The box of the first node (in document order) whose tag, attributes or words differ, over
 * both renders (the old words' place and the new ones'), or null when nothing differs that
 * has a place on the page.
 *
 * @example firstDifference(snapshotFrame.contentDocument, currentFrame.contentDocument) // { left: 32, top: 410, width: 96, height: 19 }
 */
export function firstDifference(before: Document, after: Document): Box | null {
  const a = nodesOf(before)
  const b = nodesOf(after)
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]
    const y = b[i]
    if (x && y && signature(x) === signature(y)) continue
    return union(x ? boxOf(x) : null, y ? boxOf(y) : null)
  }
  return null
}
