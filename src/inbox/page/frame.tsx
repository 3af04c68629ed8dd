import type { RefObject } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { usePage } from './context.js'
import {
  frameLook,
  frameSrc,
  MAX_WIDTH,
  MIN_WIDTH,
  normalizeWidth,
  SCHEMES,
  type ViewState,
  type WidthPreset,
} from './preview.js'

/**
 * The rendered email in its frame, and the row of preview options over it.
 *
 * The frame is an opaque origin without scripts: `sandbox` is set before `src` (Preact sets
 * attributes in the order written), never with allow-scripts or allow-same-origin, and the
 * inspector serves the HTML with a sandboxing CSP too. Links may open in a new tab. The frame
 * element stays across renders: a new document replaces the old one in place, with no flash of
 * an empty pane.
 */

/** What every visible email frame may do: open links in a new tab, nothing else (no scripts, an opaque origin). */
export const FRAME_SANDBOX = 'allow-popups allow-popups-to-escape-sandbox'

export interface FrameProps {
  src: string
  title: string
  view: ViewState
  /**
   * Size the frame to the email's height and let the pane scroll (a template preview): a
   * re-render then keeps the place the designer scrolled to. The height comes from a
   * MeasuringFrame; the frame says how wide it is, for the measuring frame to lay out the same.
   */
  fit?: { height: number | null; onWidth(width: number): void }
}

/**
 * @example
 * <SandboxedFrame src={`/_sandbox/api/messages/${id}/html`} title="The message" view={view} />
 */
export function SandboxedFrame({ src, title, view, fit }: FrameProps) {
  const systemDark = usePage().systemDark.value
  const look = frameLook(view)
  const frame = useRef<HTMLIFrameElement>(null)
  const onWidth = useRef(fit?.onWidth)
  onWidth.current = fit?.onWidth
  const fitted = !!fit
  useLayoutEffect(() => {
    const element = frame.current
    if (!fitted || !element) return
    const observer = new ResizeObserver(() => onWidth.current?.(element.clientWidth))
    observer.observe(element)
    return () => observer.disconnect()
  }, [fitted])
  return (
    // The canvas scrolls (a wide email sideways, a fitted one down): the keyboard can scroll it too.
    <div class={fit ? 'canvas is-fit' : 'canvas'} tabIndex={0} role="region" aria-label={title}>
      <iframe
        ref={frame}
        sandbox={FRAME_SANDBOX}
        referrerpolicy="no-referrer"
        class={look.class}
        title={title}
        src={frameSrc(src, view, systemDark)}
        style={{ ...look.style, ...(fit?.height ? { height: `${fit.height}px` } : {}) }}
      />
    </div>
  )
}

/**
 * The hidden frame that measures an email's height: the same HTML, the same width and view,
 * served with `?frame=measure` (sandboxed, no scripts, but of the page's origin, so its height
 * can be read; the visible frame is opaque). Read when it has loaded (images and all) and again
 * when its width changes; until then the visible frame keeps its height, and the pane its scroll.
 *
 * @example
 * <MeasuringFrame src={preview.url} view={view} width={width} onHeight={setHeight} />
 */
export function MeasuringFrame({
  src,
  view,
  width,
  onHeight,
  onDocument,
}: {
  src: string
  view: ViewState
  width: number
  onHeight(height: number): void
  /** Its document, laid out, after each load and width (the Changes view reads where renders differ). */
  onDocument?(document: Document): void
}) {
  const systemDark = usePage().systemDark.value
  const url = frameSrc(src, view, systemDark)
  const measure = useRef<HTMLIFrameElement>(null)
  const report = useRef(onHeight)
  report.current = onHeight
  const laidOut = useRef(onDocument)
  laidOut.current = onDocument
  useEffect(() => {
    const element = measure.current
    if (!element) return
    const read = () => {
      const root = element.contentDocument?.documentElement
      if (root && element.contentDocument?.URL !== 'about:blank') {
        report.current(Math.ceil(root.scrollHeight))
        laidOut.current?.(element.contentDocument!)
      }
    }
    read()
    element.addEventListener('load', read)
    return () => element.removeEventListener('load', read)
  }, [url, width])
  // In a box of no size that clips it: however wide the email, the page does not scroll sideways.
  return (
    <div class="measure-box">
      <iframe
        ref={measure}
        class="frame-measure"
        aria-hidden="true"
        tabIndex={-1}
        inert
        sandbox="allow-same-origin"
        referrerpolicy="no-referrer"
        title="Measuring frame"
        src={`${url}${url.includes('?') ? '&' : '?'}frame=measure`}
        style={{ width: width ? `${width}px` : frameLook(view).style.width }}
      />
    </div>
  )
}

export interface PreviewControlsProps {
  /** Id prefix: `template` gives `template-width-input`. */
  prefix: string
  presets: readonly WidthPreset[]
  view: ViewState
  onChange(view: ViewState): void
  /** The colour schemes offered (all three by default). */
  schemes?: readonly (typeof SCHEMES)[number][]
  /** Offer "Images off" (by default). */
  imagesToggle?: boolean
}

/**
 * The row of options over the frame: width presets and a free width, the colour scheme,
 * images. Compact enough for one row over a 600 px email at 1280 px, and wrapping (not
 * scrolling) on a phone.
 *
 * @example
 * <PreviewControls prefix="message" presets={MESSAGE_WIDTHS} view={view} onChange={setView} />
 */
export function PreviewControls({
  prefix,
  presets,
  view,
  onChange,
  schemes = SCHEMES,
  imagesToggle = true,
}: PreviewControlsProps) {
  const change = (update: Partial<ViewState>) => onChange({ ...view, ...update })
  const width = useWidthInput(view, change)
  return (
    <div class="viewbar" role="group" aria-label="Preview options">
      <div class="widths" role="group" aria-label="Preview width">
        {presets.map((w) => (
          <button
            key={w.value}
            type="button"
            class="width"
            data-width={w.value}
            aria-pressed={w.value === view.width ? 'true' : 'false'}
            aria-label={w.value ? `${w.value} px, ${w.label.toLowerCase()}` : 'Fit the pane'}
            title={`${w.label}: ${w.hint}`}
            onClick={() => {
              width.reset()
              change({ width: w.value })
            }}
          >
            {w.value || w.label}
          </button>
        ))}
      </div>
      <WidthField prefix={prefix} width={width} />
      <SchemeButtons schemes={schemes} dark={view.dark} onPick={(dark) => change({ dark })} />
      {imagesToggle ? (
        <button
          type="button"
          class="width toggle"
          data-images="off"
          aria-pressed={view.imagesOff ? 'true' : 'false'}
          title="Images off: what a reader who blocks images sees (alt text, layout without pictures)"
          onClick={() => change({ imagesOff: !view.imagesOff })}
        >
          Images off
        </button>
      ) : null}
    </div>
  )
}

function SchemeButtons({
  schemes,
  dark,
  onPick,
}: {
  schemes: readonly (typeof SCHEMES)[number][]
  dark: ViewState['dark']
  onPick: (dark: ViewState['dark']) => void
}) {
  return (
    <div class="widths" role="group" aria-label="Colour scheme">
      {schemes.map((s) => (
        <button
          key={s.value}
          type="button"
          class="width"
          data-dark={s.value}
          aria-pressed={s.value === dark ? 'true' : 'false'}
          title={s.hint}
          onClick={() => onPick(s.value)}
        >
          {s.label}
        </button>
      ))}
    </div>
  )
}

/** The free width as typed: what the box shows, whether it is a width, and what typing does. */
interface WidthInput {
  input: RefObject<HTMLInputElement | null>
  shown: string
  invalid: boolean
  /** Read the box: `committed` on change (Enter, leaving it), not on each key. */
  onWidth(committed: boolean): void
  /** Show the view's width again (a preset was picked, the box left). */
  reset(): void
}

function useWidthInput(view: ViewState, change: (update: Partial<ViewState>) => void): WidthInput {
  const input = useRef<HTMLInputElement>(null)
  const [typed, setTyped] = useState<string | null>(null)
  const [invalid, setInvalid] = useState(false)
  const onWidth = (committed: boolean) => {
    const raw = (input.current?.value ?? '').trim()
    const width = normalizeWidth(raw)
    if (!raw || width) {
      setInvalid(false)
      setTyped(committed ? null : raw)
      if (width !== view.width) change({ width })
      return
    }
    if (!committed) {
      setTyped(raw)
      setInvalid(true)
      return
    }
    const n = Number(raw)
    const clamped = Number.isFinite(n)
      ? String(Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, n))))
      : view.width
    setTyped(null)
    setInvalid(false)
    change({ width: clamped })
  }
  // Not while someone is typing a width: "4" on the way to "480" is not a width yet.
  return { input, shown: typed ?? view.width, invalid, onWidth, reset: () => setTyped(null) }
}

function WidthField({ prefix, width }: { prefix: string; width: WidthInput }) {
  const widthId = `${prefix}-width-input`
  return (
    <div class="field width-field">
      <label for={widthId} class="visually-hidden">
        Width
      </label>
      <input
        ref={width.input}
        id={widthId}
        class="width-input"
        type="number"
        inputMode="numeric"
        min={MIN_WIDTH}
        max={MAX_WIDTH}
        step={1}
        placeholder="Width"
        aria-describedby={`${prefix}-width-hint`}
        aria-invalid={width.invalid ? 'true' : undefined}
        value={width.shown}
        onInput={() => width.onWidth(false)}
        onChange={() => width.onWidth(true)}
        onBlur={width.reset}
      />
      <span class="muted" id={`${prefix}-width-hint`}>
        <span aria-hidden="true">px</span>
        <span class="visually-hidden">
          pixels, {MIN_WIDTH} to {MAX_WIDTH}; empty fits the pane
        </span>
      </span>
    </div>
  )
}
