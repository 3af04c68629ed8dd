import type { Warning } from './api.js'
import { h, replace } from './dom.js'
import { applyView, frameSrc, type ViewState } from './preview.js'

/** Pieces both views share: tabs, the sandboxed frame, the HTML source, the confirmation dialog. */

export interface TabSpec {
  id: string
  label: string
}

/**
 * An ARIA tab list: one tab in the Tab order, arrows/Home/End move between tabs and select them.
 * The single panel is labelled by the selected tab.
 */
export function tabList(
  prefix: string,
  label: string,
  tabs: TabSpec[],
  selected: string,
  onSelect: (id: string) => void,
): HTMLElement {
  const buttons = tabs.map((tab) =>
    h(
      'button',
      {
        type: 'button',
        role: 'tab',
        id: `${prefix}-tab-${tab.id}`,
        'aria-controls': `${prefix}-panel`,
        'aria-selected': String(tab.id === selected),
        tabindex: tab.id === selected ? '0' : '-1',
        'data-tab': tab.id,
        onclick: () => onSelect(tab.id),
      },
      tab.label,
    ),
  )
  const list = h('div', { class: 'tabs', role: 'tablist', 'aria-label': label }, buttons)
  list.addEventListener('keydown', (event) => {
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement)
    if (index === -1) return
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: buttons.length - 1 }[
      event.key
    ]
    if (next === undefined) return
    event.preventDefault()
    const button = buttons[(next + buttons.length) % buttons.length]!
    button.focus()
    onSelect(button.dataset.tab!)
  })
  return list
}

export function selectTab(list: HTMLElement, selected: string): void {
  for (const button of list.querySelectorAll<HTMLButtonElement>('[role="tab"]')) {
    const on = button.dataset.tab === selected
    button.setAttribute('aria-selected', String(on))
    button.tabIndex = on ? 0 : -1
  }
}

/** A small count on a tab (the checks' errors and warnings), with words for screen readers. */
export function setTabBadge(
  list: HTMLElement | null,
  tab: string,
  count: number | null,
  severity: 'error' | 'warning' | 'ok',
  words: string,
): void {
  const button = list?.querySelector<HTMLElement>(`[data-tab="${tab}"]`)
  if (!button) return
  button.querySelector('.tab-badge')?.remove()
  if (count === null) return
  button.append(
    h(
      'span',
      { class: 'tab-badge', 'data-severity': severity },
      h('span', { 'aria-hidden': 'true' }, String(count)),
      h('span', { class: 'visually-hidden' }, `, ${words}`),
    ),
  )
}

/**
 * The rendered HTML, in an opaque origin without scripts: `sandbox` is set before `src`, and
 * never includes allow-scripts or allow-same-origin. Links may open in a new tab.
 */
export function sandboxedFrame(
  src: string,
  title: string,
  view: ViewState,
): { canvas: HTMLElement; frame: HTMLIFrameElement } {
  const frame = h('iframe', {
    sandbox: 'allow-popups allow-popups-to-escape-sandbox',
    referrerpolicy: 'no-referrer',
    class: 'frame',
    title,
    src: frameSrc(src, view),
  })
  applyView(frame, view)
  return { canvas: h('div', { class: 'canvas' }, frame), frame }
}

/**
 * HTML source, one element per line so a line can be pointed at (`line` is 1-based; the checks
 * link to it). The numbers are CSS counters: copying the source copies no numbers.
 */
export function sourceView(html: string, line: number | null, label: string): HTMLElement {
  const lines = html.split('\n')
  const pre = h('pre', { class: 'code source source-lines', tabindex: '0', 'aria-label': label })
  lines.forEach((text, i) => {
    const n = i + 1
    pre.append(
      h(
        'span',
        { class: n === line ? 'line is-target' : 'line', 'data-line': n },
        text,
        i < lines.length - 1 ? '\n' : '',
      ),
    )
  })
  return pre
}

/** The Source tab: the HTML in the panel, the marked line in sight. */
export function showSource(
  panel: HTMLElement,
  html: string,
  line: number | null,
  label: string,
): void {
  replace(panel, sourceView(html, line, label))
  revealLine(panel.querySelector('pre'), line)
}

/** Brings the marked line of a source view into sight, with the keyboard on the source. */
export function revealLine(pre: Element | null, line: number | null): void {
  if (!pre) return
  for (const marked of pre.querySelectorAll('.line.is-target')) marked.classList.remove('is-target')
  const target = line ? pre.querySelector<HTMLElement>(`.line[data-line="${line}"]`) : null
  if (!target) return
  target.classList.add('is-target')
  ;(pre as HTMLElement).focus({ preventScroll: true })
  target.scrollIntoView({ block: 'center' })
}

/** A modal confirmation in the page's own <dialog>. Resolves true when confirmed. */
export function confirmDialog(options: {
  title: string
  text: string
  confirm: string
}): Promise<boolean> {
  const dialog = document.getElementById('confirm') as HTMLDialogElement
  const ok = document.getElementById('confirm-ok') as HTMLButtonElement
  const cancel = document.getElementById('confirm-cancel') as HTMLButtonElement
  document.getElementById('confirm-title')!.textContent = options.title
  document.getElementById('confirm-text')!.textContent = options.text
  ok.textContent = options.confirm
  const opener = document.activeElement as HTMLElement | null
  return new Promise((resolve) => {
    const finish = (value: boolean) => {
      ok.removeEventListener('click', onOk)
      cancel.removeEventListener('click', onCancel)
      dialog.removeEventListener('close', onClose)
      if (dialog.open) dialog.close()
      if (opener?.isConnected) opener.focus()
      resolve(value)
    }
    const onOk = () => finish(true)
    const onCancel = () => finish(false)
    // Escape closes the dialog natively (a "cancel"), which counts as no.
    const onClose = () => finish(false)
    ok.addEventListener('click', onOk)
    cancel.addEventListener('click', onCancel)
    dialog.addEventListener('close', onClose)
    dialog.showModal()
    cancel.focus()
  })
}

/** A JSON value, pretty-printed, as text. */
export const jsonBlock = (value: unknown): HTMLElement =>
  h('pre', { class: 'code', tabindex: '0' }, JSON.stringify(value, null, 2) ?? 'undefined')

/** Render warnings, as list items: the code, then the message. */
export const warningItems = (warnings: Warning[]): HTMLElement[] =>
  warnings.map((w) => h('li', null, h('code', null, w.code), ' ', w.message))
