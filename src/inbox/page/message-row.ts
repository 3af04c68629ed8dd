import type { MessageSummary } from './api.js'
import { statusWords } from './delivery-model.js'
import { fullAddress, recipients, shortAddress } from './format.js'

/**
 * The inside of a message list row, cloned from a template and filled in. The list and its rows
 * are Preact components like every view; only the ten elements inside a row are not. At 300
 * sends a second a draw mounts thirty rows and drops thirty, and Preact 11 making ten elements a
 * row (createElementNS, a diff of each prop, a text vnode per text) took 547 ms of script in 8 s
 * where the old hand-written list took 346 (CDP profile of bench/inbox.js's page); a clone is
 * one call for all ten, and the fill sets what differs.
 */

/** What a row shows. */
export interface RowContent {
  m: MessageSummary
  /** Apart from `m`: the list's copy of a summary changes in place. */
  status: string
  current: boolean
  /** Arrived live and alone: highlighted. */
  fresh: boolean
  /** Where the row's link goes (the search kept). */
  href: string
  /** Its time as shown ("2 min. ago"). */
  time: string
}

/**
 * Whether two rows show the same: a row is drawn again only when not.
 *
 * @example
 * sameRow(last, next) // false after a status change
 */
export const sameRow = (a: RowContent, b: RowContent): boolean =>
  a.m === b.m &&
  a.status === b.status &&
  a.current === b.current &&
  a.href === b.href &&
  a.time === b.time

/**
 * A row's link and its parts, empty: made once per list, cloned for each row. The markup the rest
 * of the page renders for a message (the status badge as `StatusBadge` makes it), so the
 * keyboard, the tests and the styles see no difference.
 *
 * @example
 * const template = rowTemplate(document)
 */
export function rowTemplate(doc: Document): HTMLAnchorElement {
  const span = (className: string, text?: string) => {
    const element = doc.createElement('span')
    element.className = className
    if (text) element.textContent = text
    return element
  }
  const link = doc.createElement('a')
  const time = doc.createElement('time')
  time.className = 'item-time'
  const to = span('item-to')
  to.append(span('visually-hidden', 'to '), doc.createTextNode(''))
  const tag = span('tag')
  tag.append(span('visually-hidden', 'template '), doc.createTextNode(''))
  link.append(span('item-from'), time, span('item-subject'), to, span('status-badge'), tag)
  return link
}

/**
 * Fills a row's `<li>` (its link cloned from the template the first time) with what it shows.
 *
 * @example
 * fillRow(li, template, { m, status: m.status, current: false, fresh: false, href: '#/messages/…', time: 'just now' })
 */
export function fillRow(item: HTMLElement, template: HTMLAnchorElement, row: RowContent): void {
  const link =
    (item.firstElementChild as HTMLAnchorElement | null) ??
    item.appendChild(template.cloneNode(true) as HTMLAnchorElement)
  // Walked by sibling, and data-* set as attributes: destructuring `children` (its iterator)
  // and the `dataset` proxy were a third of this function's time in a CPU profile.
  const from = link.firstElementChild as HTMLElement
  const time = from.nextElementSibling as HTMLTimeElement
  const subject = time.nextElementSibling as HTMLElement
  const to = subject.nextElementSibling as HTMLElement
  const badge = to.nextElementSibling as HTMLElement
  const tag = badge.nextElementSibling as HTMLElement
  const { m, status } = row
  link.className = row.fresh ? 'item msg is-new' : 'item msg'
  link.setAttribute('href', row.href)
  link.setAttribute('data-id', m.id)
  if (row.current) link.setAttribute('aria-current', 'true')
  else link.removeAttribute('aria-current')
  from.title = fullAddress(m.from)
  from.textContent = shortAddress(m.from)
  time.dateTime = m.createdAt
  time.textContent = row.time
  subject.textContent = m.subject
  to.title = m.to.map(fullAddress).join(', ')
  ;(to.lastChild as Text).data = recipients(m.to)
  const words = statusWords(status)
  badge.setAttribute('data-status', status)
  badge.title = words.title
  badge.textContent = words.label
  ;(tag.lastChild as Text).data = m.template
}
