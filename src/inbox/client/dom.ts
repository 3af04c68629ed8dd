/**
 * A tiny element builder. Every string becomes a text node, never markup: message data (a
 * subject, a name, a variable) can only ever show up as text. There is no `innerHTML` here.
 */

export type Child = Node | string | number | null | undefined | false | Child[]
type Listener = (event: never) => void
export type Props = Record<string, string | number | boolean | null | undefined | Listener>

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function')
      element.addEventListener(key.replace(/^on/, ''), value as EventListener)
    else if (key === 'class') element.className = String(value)
    else if (key === 'style')
      throw new Error('inline styles are blocked by the page CSP; use a class')
    else element.setAttribute(key, value === true ? '' : String(value))
  }
  append(element, children)
  return element
}

export function append(parent: Element | DocumentFragment, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(parent, child)
    else parent.append(typeof child === 'number' ? String(child) : child)
  }
}

/** Replaces an element's content with the children (as nodes and text). */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren()
  append(parent, children)
}

export function $(selector: string, root: ParentNode = document): HTMLElement {
  const found = root.querySelector<HTMLElement>(selector)
  if (!found) throw new Error(`missing element ${selector}`)
  return found
}

/** Says something to screen readers through the page's polite live region. */
export function announce(text: string): void {
  const region = $('#announcer')
  // Clearing first makes a repeated message be read again.
  region.textContent = ''
  window.setTimeout(() => {
    region.textContent = text
  }, 50)
}

let toastTimer = 0
/** A visible, assertive notice for failures (a request that did not go through). */
export function toast(text: string): void {
  const box = $('#toast')
  box.textContent = text
  box.hidden = false
  window.clearTimeout(toastTimer)
  toastTimer = window.setTimeout(() => {
    box.hidden = true
  }, 6000)
}

/** Whether an element is rendered (not inside something display:none). */

/** True when the keyboard event happens while typing in a field. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return (
    target.isContentEditable ||
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  )
}

/**
 * Focuses `target` after a route change, unless the user has meanwhile put the focus somewhere
 * outside `within` (a route changes a moment after the key that asked for it: `Esc` then `/`
 * must leave the focus in the search box).
 */
export function refocus(target: HTMLElement | null | undefined, ...within: HTMLElement[]): void {
  const active = document.activeElement
  if (!active || active === document.body || within.some((el) => el.contains(active)))
    target?.focus()
}
