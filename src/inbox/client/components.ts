import { h } from './dom.js'

/** Pieces both views share: tabs, width presets, the sandboxed frame, the confirmation dialog. */

export interface TabSpec {
  id: string
  label: string
}

/**
 * An ARIA tab list: one tab in the Tab order, arrows/Home/End move between tabs and select them.
 * The single panel is labelled by the selected tab.
 */
export function tabList(prefix: string, label: string, tabs: TabSpec[], selected: string, onSelect: (id: string) => void): HTMLElement {
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
    const index = buttons.findIndex((b) => b === document.activeElement)
    if (index === -1) return
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: buttons.length - 1 }[event.key]
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

export const WIDTHS = [
  { value: '', label: 'Fit', hint: 'the pane' },
  { value: '375', label: 'Phone', hint: '375 px' },
  { value: '768', label: 'Tablet', hint: '768 px' },
  { value: '1024', label: 'Desktop', hint: '1024 px' },
] as const

export const normalizeWidth = (value: string | null): string => (WIDTHS.some((w) => w.value === value) ? value! : '')

/** Toggle buttons for the preview width. */
export function widthPresets(selected: string, onSelect: (width: string) => void): HTMLElement {
  return h(
    'div',
    { class: 'widths', role: 'group', 'aria-label': 'Preview width' },
    WIDTHS.map((w) =>
      h(
        'button',
        { type: 'button', class: 'width', 'data-width': w.value, 'aria-pressed': String(w.value === selected), title: `${w.label}: ${w.hint}`, onclick: () => onSelect(w.value) },
        h('span', null, w.label),
        w.value ? h('span', { class: 'width-px' }, ` ${w.value}`) : null,
      ),
    ),
  )
}

export function selectWidth(group: Element | null, selected: string): void {
  for (const button of group?.querySelectorAll<HTMLButtonElement>('[data-width]') ?? []) button.setAttribute('aria-pressed', String(button.dataset.width === selected))
}

/** Sets the frame's width; CSSOM changes are allowed by the page's `style-src 'self'`. */
export function applyWidth(frame: HTMLIFrameElement | null, width: string): void {
  if (!frame) return
  frame.style.width = width ? `${width}px` : '100%'
  frame.classList.toggle('is-fixed', !!width)
}

/**
 * The rendered HTML, in an opaque origin without scripts: `sandbox` is set before `src`, and
 * never includes allow-scripts or allow-same-origin. Links may open in a new tab.
 */
export function sandboxedFrame(src: string, title: string, width: string): { canvas: HTMLElement; frame: HTMLIFrameElement } {
  const frame = h('iframe', { sandbox: 'allow-popups allow-popups-to-escape-sandbox', referrerpolicy: 'no-referrer', class: 'frame', title, src })
  applyWidth(frame, width)
  return { canvas: h('div', { class: 'canvas' }, frame), frame }
}

/** A modal confirmation in the page's own <dialog>. Resolves true when confirmed. */
export function confirmDialog(options: { title: string; text: string; confirm: string }): Promise<boolean> {
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
export const jsonBlock = (value: unknown): HTMLElement => h('pre', { class: 'code', tabindex: '0' }, JSON.stringify(value, null, 2) ?? 'undefined')
