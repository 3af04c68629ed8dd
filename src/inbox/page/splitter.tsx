import { useRef, useState } from 'preact/hooks'

/**
 * A splitter between two columns, and what it remembers: drag it, or focus it and use ←/→
 * (Shift for bigger steps), Home and End. An ARIA window splitter: role="separator" with its
 * value in pixels. The width is the caller's (a CSS custom property on the columns' box: the
 * stylesheet decides where it applies) and is remembered in localStorage.
 */

const STEP = 16
const BIG_STEP = 80

/** A number kept in localStorage (null: none, or storage is off). */
function stored(key: string): number | null {
  try {
    const value = Number(localStorage.getItem(key))
    return Number.isFinite(value) && value > 0 ? value : null
  } catch {
    return null
  }
}

function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value)
  } catch {
    // Storage off: not remembered, still applied.
  }
}

/**
 * A width remembered under `key`, clamped to `min`..`max()` when set.
 *
 * @example
 * const [width, setWidth] = useStoredWidth('sendbox.editor.width', 340, 260, () => box.clientWidth - 632)
 */
export function useStoredWidth(
  key: string,
  initial: number,
  min: number,
  max: () => number,
): [number, (next: number, save: boolean) => void] {
  const [width, setWidth] = useState(() => stored(key) ?? initial)
  const set = (next: number, save: boolean) => {
    // Before it is laid out there is no maximum to speak of; the stylesheet caps it anyway.
    const most = max()
    const value = Math.round(Math.max(min, most > min ? Math.min(next, most) : next))
    setWidth(value)
    if (save) store(key, String(value))
  }
  return [width, set]
}

/**
 * A flag remembered under `key` ("Hide list").
 *
 * @example
 * const [hidden, setHidden] = useStoredFlag('sendbox.templates.list', 'hidden')
 */
export function useStoredFlag(key: string, on: string): [boolean, (value: boolean) => void] {
  const [value, setValue] = useState(() => {
    try {
      return localStorage.getItem(key) === on
    } catch {
      return false
    }
  })
  return [
    value,
    (next) => {
      setValue(next)
      store(key, next ? on : `not-${on}`)
    },
  ]
}

export interface SplitterProps {
  /** Id of the column it resizes. */
  controls: string
  label: string
  width: number
  min: number
  max: () => number
  onWidth(next: number, save: boolean): void
}

/**
 * @example
 * <Splitter controls="vars-editor" label="Resize the variables editor" width={w} min={260} max={max} onWidth={setW} />
 */
export function Splitter({ controls, label, width, min, max, onWidth }: SplitterProps) {
  const [dragging, setDragging] = useState(false)
  const drag = useRef<{ x: number; width: number } | null>(null)
  const most = max()
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.shiftKey ? BIG_STEP : STEP
    const next = {
      ArrowLeft: width - step,
      ArrowRight: width + step,
      Home: min,
      End: max(),
    }[event.key]
    if (next === undefined) return
    event.preventDefault()
    onWidth(next, true)
  }
  const onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0) return
    event.preventDefault()
    drag.current = { x: event.clientX, width }
    setDragging(true)
    let last = width
    const move = (e: PointerEvent) => {
      if (!drag.current) return
      last = drag.current.width + e.clientX - drag.current.x
      onWidth(last, false)
    }
    const end = () => {
      document.removeEventListener('pointermove', move)
      drag.current = null
      setDragging(false)
      onWidth(last, true)
    }
    document.addEventListener('pointermove', move)
    document.addEventListener('pointerup', end, { once: true })
    document.addEventListener('pointercancel', end, { once: true })
  }
  return (
    <div
      class={dragging ? 'resizer is-dragging' : 'resizer'}
      role="separator"
      tabIndex={0}
      aria-orientation="vertical"
      aria-label={label}
      aria-controls={controls}
      aria-valuemin={min}
      aria-valuemax={most > min ? Math.round(most) : undefined}
      aria-valuenow={width}
      aria-valuetext={`${width} pixels wide`}
      title={`${label} (drag, or ←/→)`}
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
    />
  )
}
