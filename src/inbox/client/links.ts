import type { MessageRecord } from './api.js'
import { clickableLinks, simulateEvent } from './delivery.js'
import { announce, type Child, h, replace, toast } from './dom.js'

/**
 * The Links tab of a message: what a test reads in it (CONTRACT §9), as the server read it: the
 * record's `links` (text, URL, copy, simulate a click) and `codes` (copy). Nothing is parsed
 * here: one extraction, on the server (src/core/links.ts, codes.ts).
 */

/** How long a Copy button says "Copied" (long enough to be seen, short enough to copy again). */
const COPIED_MS = 2000

/**
 * A link's text as the panel shows it: the text, or words for "none" (`""`: an anchor without
 * text or alt; `null`: a URL only the text part has).
 *
 * @example
 * linkLabel({ href: 'https://x.test', text: null }) // '(from the text part)'
 */
export function linkLabel(link: MessageRecord['links'][number]): string {
  if (link.text === null) return '(from the text part)'
  return link.text === '' ? '(no text)' : link.text
}

/** A Copy button: its name says what it copies; it says "Copied", visibly and to screen readers. */
function copyButton(value: string, name: string): HTMLButtonElement {
  const label = `Copy ${name}`
  let timer = 0
  const button: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'btn btn-small copy',
      'aria-label': label,
      onclick: () => void copy(),
    },
    'Copy',
  )
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(value)
    } catch (error) {
      toast(`Could not copy: ${(error as Error).message}`)
      return
    }
    button.textContent = 'Copied'
    button.dataset.copied = ''
    button.setAttribute('aria-label', `Copied ${name}`)
    announce(`Copied ${name}`)
    window.clearTimeout(timer)
    timer = window.setTimeout(() => {
      button.textContent = 'Copy'
      delete button.dataset.copied
      button.setAttribute('aria-label', label)
    }, COPIED_MS)
  }
  return button
}

/** How many simulated or real clicks each URL has had, over all recipients. */
function clickCounts(record: MessageRecord): Map<string, number> {
  const counts = new Map<string, number>()
  for (const recipient of record.recipients ?? [])
    for (const event of recipient.events)
      if (event.type === 'clicked' && event.url)
        counts.set(event.url, (counts.get(event.url) ?? 0) + 1)
  return counts
}

function clicksText(count: number): string {
  return count ? `Clicked ${count === 1 ? 'once' : `${count} times`}` : ''
}

/** A row's "Clicked 2 times" badge (empty: hidden): kept in step by `updateLinkClicks` without re-rendering the panel. */
function clicksTag(href: string, count: number): HTMLElement {
  return h(
    'span',
    { class: 'link-clicks status-badge', 'data-status': 'clicked', 'data-href': href },
    clicksText(count),
  )
}

function linkRow(
  record: MessageRecord,
  link: MessageRecord['links'][number],
  clickable: Set<string>,
  recipient: () => string | undefined,
  counts: Map<string, number>,
): HTMLElement {
  const label = linkLabel(link)
  const named = link.text ? `“${link.text}”` : link.href
  return h(
    'li',
    { class: 'link-row' },
    h(
      'span',
      { class: 'link-head' },
      h('span', { class: link.text ? 'link-text' : 'link-text muted' }, label),
      clicksTag(link.href, counts.get(link.href) ?? 0),
    ),
    h('code', { class: 'link-href' }, link.href),
    h(
      'span',
      { class: 'link-actions' },
      copyButton(link.href, link.href),
      clickable.has(link.href)
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small',
              'data-simulate-link': link.href,
              'aria-label': `Simulate a click on ${named}`,
              onclick: () =>
                void simulateEvent(record.id, {
                  type: 'clicked',
                  url: link.href,
                  ...(recipient() ? { recipient: recipient() } : {}),
                }),
            },
            'Simulate a click',
          )
        : null,
    ),
  )
}

/** With more than one recipient, whose click a simulated click is (the first by default). */
function recipientPicker(record: MessageRecord): {
  field: HTMLElement | null
  value: () => string | undefined
} {
  const recipients = record.recipients ?? []
  if (recipients.length < 2) return { field: null, value: () => undefined }
  const select = h(
    'select',
    { id: 'links-recipient' },
    recipients.map((r) => h('option', { value: r.address }, r.address)),
  )
  const field = h(
    'p',
    { class: 'field' },
    h('label', { for: 'links-recipient' }, 'Clicks by'),
    select,
  )
  return { field, value: () => select.value }
}

/** The codes, each with its Copy button; or a line saying there is none. */
function codesSection(codes: string[]): Child[] {
  return [
    h('h3', { id: 'codes-heading' }, `Codes (${codes.length})`),
    codes.length
      ? h(
          'ul',
          { class: 'code-list', 'aria-labelledby': 'codes-heading' },
          codes.map((code) =>
            h(
              'li',
              { class: 'code-row' },
              h('code', { class: 'otp' }, code),
              copyButton(code, `code ${code}`),
            ),
          ),
        )
      : h(
          'p',
          { class: 'muted' },
          'No one-time code in the text part (order numbers, dates, times and amounts never count).',
        ),
  ]
}

/**
 * The Links tab: every code (Copy) first, the shortest and most often wanted, then every link
 * (text, URL, Copy, Simulate a click).
 *
 * @example
 * replace(panel, linksTab(record))
 */
export function linksTab(record: MessageRecord): HTMLElement {
  const links = record.links ?? []
  const codes = record.codes ?? []
  const clickable = new Set(clickableLinks(record))
  const counts = clickCounts(record)
  const picker = recipientPicker(record)
  return h(
    'div',
    { class: 'details links', id: 'links' },
    codesSection(codes),
    h('h3', { id: 'links-heading' }, `Links (${links.length})`),
    links.length
      ? [
          h(
            'p',
            { class: 'hint' },
            'In document order, then the URLs only the text part has. A simulated click records a ',
            h('code', null, 'clicked'),
            ' event and fires its webhook, as the Delivery tab does.',
          ),
          picker.field,
          h(
            'ol',
            { class: 'link-list', 'aria-labelledby': 'links-heading' },
            links.map((link) => linkRow(record, link, clickable, picker.value, counts)),
          ),
        ]
      : h('p', { class: 'muted' }, 'The message has no links.'),
  )
}

/**
 * After a `status` event: each row's click count, in place (the focus stays on the button that
 * was pressed; a re-render would drop it).
 *
 * @example
 * updateLinkClicks(panel, record)
 */
export function updateLinkClicks(panel: HTMLElement, record: MessageRecord): void {
  const counts = clickCounts(record)
  for (const tag of panel.querySelectorAll<HTMLElement>('.link-clicks')) {
    const text = clicksText(counts.get(tag.dataset.href ?? '') ?? 0)
    if (tag.textContent !== text) replace(tag, text)
  }
}
