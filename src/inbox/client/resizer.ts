import { h } from './dom.js'

/**
 * A splitter between two columns: drag it, or focus it and use ←/→ (Shift for bigger steps),
 * Home and End. The width lives in a CSS custom property on `target` (the stylesheet decides
 * where it applies: only the wide layout puts the columns side by side) and is remembered in
 * localStorage. An ARIA window splitter: role="separator" with its value in pixels.
 */

export interface ResizerOptions {
  /** Holds the custom property. */
  target: HTMLElement
  /** e.g. `--editor-width`. */
  property: string
  /** Id of the column it resizes. */
  controls: string
  label: string
  min: number
  /** The largest width now (it depends on the window). */
  max: () => number
  initial: number
  storageKey: string
}

const STEP = 16
const BIG_STEP = 80

function stored(key: string): number | null {
  try {
    const value = Number(localStorage.getItem(key))
    return Number.isFinite(value) && value > 0 ? value : null
  } catch {
    return null // storage off: every page starts at the default
  }
}

export function resizer(options: ResizerOptions): HTMLElement {
  const handle = h('div', {
    class: 'resizer',
    role: 'separator',
    tabindex: '0',
    'aria-orientation': 'vertical',
    'aria-label': options.label,
    'aria-controls': options.controls,
    'aria-valuemin': options.min,
    title: `${options.label} (drag, or ←/→)`,
  })
  let width = stored(options.storageKey) ?? options.initial

  const apply = (next: number, save: boolean) => {
    // Before it is laid out there is no maximum to speak of; the stylesheet caps it anyway.
    const max = options.max()
    width = Math.round(Math.max(options.min, max > options.min ? Math.min(next, max) : next))
    options.target.style.setProperty(options.property, `${width}px`)
    handle.setAttribute('aria-valuenow', String(width))
    if (max > options.min) handle.setAttribute('aria-valuemax', String(Math.round(max)))
    handle.setAttribute('aria-valuetext', `${width} pixels wide`)
    if (save) {
      try {
        localStorage.setItem(options.storageKey, String(width))
      } catch {
        // Not remembered; still applied.
      }
    }
  }
  apply(width, false)

  handle.addEventListener('keydown', (event) => {
    const step = event.shiftKey ? BIG_STEP : STEP
    const next = {
      ArrowLeft: width - step,
      ArrowRight: width + step,
      Home: options.min,
      End: options.max(),
    }[event.key]
    if (next === undefined) return
    event.preventDefault()
    apply(next, true)
  })

  handle.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return
    event.preventDefault()
    const startX = event.clientX
    const startWidth = width
    handle.classList.add('is-dragging')
    const move = (e: PointerEvent) => apply(startWidth + e.clientX - startX, false)
    const end = () => {
      document.removeEventListener('pointermove', move)
      handle.classList.remove('is-dragging')
      apply(width, true)
    }
    document.addEventListener('pointermove', move)
    document.addEventListener('pointerup', end, { once: true })
    document.addEventListener('pointercancel', end, { once: true })
  })
  return handle
}
