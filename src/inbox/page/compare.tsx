import type { ComponentChildren, VNode } from 'preact'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { SnapshotCase } from './api.js'
import type { ChangesModel } from './changes-model.js'
import { contentKey, imageVariant, type CompareOptions } from './changes-route.js'
import { usePage } from './context.js'
import { type Box, firstDifference } from './first-difference.js'
import { FRAME_SANDBOX, MeasuringFrame } from './frame.js'
import { frameLook, frameSrc, type ViewState } from './preview.js'

/**
 * A case's two sides compared: as a swipe (the snapshot over the render now, cut at a divider
 * that the pointer drags and the arrow keys move), as an overlay (the render now over the
 * snapshot, at an opacity or by difference), or as the screenshots of `sendbox check --visual`
 * (before, after, the diff image). Both frames are the page's usual email frames (sandboxed,
 * no scripts, an opaque origin), as tall as the taller email, one exactly over the other: the
 * canvas around them scrolls, so the two never drift apart.
 */

/** One side of a case, as a frame shows it. */
export interface Side {
  /** `snapshot` or `current`. */
  id: 'snapshot' | 'current'
  label: string
  /** The frame's URL: the HTML route (it serves the side as it is at the moment, never cached). */
  src: string
  /**
   * A fingerprint of its HTML: the frame's key, so a frame is made anew (and loads again) when
   * what it shows changed, and only then. The route takes no parameter it does not know.
   */
  rev: string
}

/** The sides a case has: the snapshot when there is one, the render now when it renders. */
export function sidesOf(detail: SnapshotCase): Side[] {
  const sides: Side[] = []
  const name = `${detail.template} (${detail.case})`
  if (detail.snapshot.html !== null)
    sides.push({
      id: 'snapshot',
      label: `The snapshot of ${name}`,
      src: detail.html.snapshot,
      rev: `snapshot-${contentKey(detail.snapshot.html)}`,
    })
  if (detail.current)
    sides.push({
      id: 'current',
      label: `The render now of ${name}`,
      src: detail.html.current,
      rev: `current-${contentKey(detail.current.html)}`,
    })
  return sides
}

/** Whether `sendbox check --visual` left any screenshot of the case. */
export const hasImages = (detail: SnapshotCase): boolean =>
  detail.images.some((image) => image.snapshot || image.current || image.diff)

/** Arrow keys move the divider this much (%), with Shift or Page Up/Down ten times as much. */
const STEP = 2
const BIG_STEP = 20
/** Until the emails are measured, the frames are this tall. */
const INITIAL_HEIGHT = 480

export function Compare({ model, detail }: { model: ChangesModel; detail: SnapshotCase }) {
  const options = model.options.value
  const sides = sidesOf(detail)
  if (options.mode === 'images' && hasImages(detail))
    return <Screenshots detail={detail} view={options.view} />
  if (sides.length === 0) return null
  return <Stage model={model} sides={sides} options={options} />
}

type StageMode = 'swipe' | 'overlay' | 'single'

/**
 * How the upper frame (the render now) is drawn. The snapshot is below it, the render now above,
 * in this order in every mode (an iframe moved in the document loads again). Swipe: the render
 * now cut at the divider, so the snapshot shows on its left. Overlay: the render now
 * see-through, or blended by difference.
 *
 * @example upperStyle('swipe', DEFAULT_COMPARE, 30, 50) // { clipPath: 'inset(0 0 0 30%)' }
 */
export function upperStyle(
  mode: StageMode,
  options: CompareOptions,
  split: number,
  opacity: number,
): Record<string, string> {
  if (mode === 'swipe') return { clipPath: `inset(0 0 0 ${split}%)` }
  if (mode !== 'overlay') return {}
  return options.difference ? { mixBlendMode: 'difference' } : { opacity: String(opacity / 100) }
}

/**
 * The stage's size: its width as laid out (the measuring frames lay out the same), and the
 * taller email's height once measured.
 */
function useStageSize(sides: Side[]) {
  const stage = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  const [heights, setHeights] = useState<Record<string, number>>({})
  useLayoutEffect(() => {
    const element = stage.current
    if (!element) return
    const observer = new ResizeObserver(() => setWidth(element.clientWidth))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  const measured = sides.map((s) => heights[s.rev]).filter((h): h is number => !!h)
  return {
    stage,
    width,
    height: measured.length ? Math.max(...measured) : INITIAL_HEIGHT,
    measured: (rev: string, h: number) =>
      setHeights((all) => (all[rev] === h ? all : { ...all, [rev]: h })),
  }
}

const STAGE_NAMES: Record<StageMode, string | null> = {
  swipe: 'The snapshot and the render now, swiped',
  overlay: 'The render now over the snapshot',
  single: null,
}

interface StageProps {
  model: ChangesModel
  sides: Side[]
  options: CompareOptions
}

/**
 * The frames, one over the other, in a box as wide as the view asks and as tall as the taller
 * email (each is measured by its own hidden twin, as a template preview is).
 */
function Stage({ model, sides, options }: StageProps) {
  const systemDark = usePage().systemDark.value
  const { view } = options
  const { stage, width, height, measured } = useStageSize(sides)
  const mode: StageMode =
    sides.length < 2 ? 'single' : options.mode === 'overlay' ? 'overlay' : 'swipe'
  const look = frameLook(view)
  const split = model.split.value
  const above = upperStyle(mode, options, split, model.opacity.value)
  const { mark, laidOut } = useFirstDifference(model, sides, width, mode === 'swipe')
  return (
    <>
      {mode === 'overlay' ? (
        <OverlayControls model={model} difference={options.difference} />
      ) : null}
      <div
        class="canvas compare-canvas"
        tabIndex={0}
        role="region"
        aria-label={STAGE_NAMES[mode] ?? sides[0]!.label}
      >
        <div
          class="stage"
          ref={stage}
          data-mode={mode}
          style={{ width: view.width ? `${view.width}px` : '100%', height: `${height}px` }}
          onPointerDown={mode === 'swipe' ? (event) => dragDivider(event, model) : undefined}
        >
          {sides.map((side) =>
            stageFrame(
              side,
              frameSrc(side.src, view, systemDark),
              look,
              side.id === 'current' ? above : {},
            ),
          )}
          {mark && mode !== 'single' ? <DifferenceMark mark={mark} /> : null}
          {mode === 'swipe' ? <SwipeLabels model={model} split={split} /> : null}
        </div>
        {sides.map((side) => (
          <MeasuringFrame
            key={side.rev}
            src={side.src}
            view={view}
            width={width}
            onHeight={(h) => measured(side.rev, h)}
            onDocument={(doc) => laidOut(side.id, doc)}
          />
        ))}
      </div>
    </>
  )
}

/**
 * One side's frame on the stage (a plain function, not a component: the frames stay children of
 * the stage, in the same order, as an iframe moved in the DOM loads again).
 */
function stageFrame(
  side: Side,
  src: string,
  look: ReturnType<typeof frameLook>,
  above: Record<string, string>,
): VNode {
  return (
    <iframe
      key={side.rev}
      sandbox={FRAME_SANDBOX}
      referrerpolicy="no-referrer"
      class={`${look.class} stage-frame`}
      data-side={side.id}
      title={side.label}
      src={src}
      style={{ colorScheme: look.style.colorScheme, ...above }}
    />
  )
}

/** A box around the first difference, 4 px outside it. */
function DifferenceMark({ mark }: { mark: Box }) {
  return (
    <span
      class="stage-mark"
      aria-hidden="true"
      title="The first difference"
      style={{
        left: `${mark.left - 4}px`,
        top: `${mark.top - 4}px`,
        width: `${mark.width + 8}px`,
        height: `${mark.height + 8}px`,
      }}
    />
  )
}

/** The swipe's two sides named, and its divider. */
function SwipeLabels({ model, split }: { model: ChangesModel; split: number }) {
  return (
    <>
      <span class="stage-label" data-side="snapshot" aria-hidden="true">
        Snapshot
      </span>
      <span class="stage-label" data-side="current" aria-hidden="true">
        Now
      </span>
      <Divider model={model} split={split} />
    </>
  )
}

/**
 * Where the two renders first differ (read from the measuring frames, laid out at the stage's
 * width), to mark on the stage; and, once per case, the swipe's divider put through it, so the
 * change starts in sight, half of it on each side, instead of behind a divider at 50%. A
 * difference as wide as half the stage or more (a whole block) is seen either way: the divider
 * stays where it is.
 */
function useFirstDifference(model: ChangesModel, sides: Side[], width: number, swipe: boolean) {
  const [docs, setDocs] = useState<{ doc: Partial<Record<Side['id'], Document>> }>({ doc: {} })
  const key = sides.map((s) => s.rev).join(' ')
  // Each load or relayout is a new object: the box is read again, the documents being the same.
  const laidOut = (id: Side['id'], doc: Document) =>
    setDocs((all) => ({ doc: { ...all.doc, [id]: doc } }))
  const mark = useMemo<Box | null>(() => {
    const { snapshot, current } = docs.doc
    if (!snapshot || !current || width === 0) return null
    try {
      return firstDifference(snapshot, current)
    } catch {
      return null // a frame navigated away meanwhile: nothing to mark
    }
  }, [docs, width])
  const placed = useRef('')
  useEffect(() => {
    if (!swipe || !mark || placed.current === key) return
    placed.current = key
    if (mark.width < width / 2) model.setSplit(((mark.left + mark.width / 2) / width) * 100)
  }, [mark, key, swipe, width, model])
  return { mark, laidOut }
}

/** A pointer down on the stage puts the divider there, and drags it until it is let go. */
function dragDivider(event: PointerEvent, model: ChangesModel): void {
  if (event.button !== 0) return
  const stage = event.currentTarget as HTMLElement
  const place = (e: PointerEvent) => {
    const box = stage.getBoundingClientRect()
    if (box.width > 0) model.setSplit(((e.clientX - box.left) / box.width) * 100)
  }
  event.preventDefault()
  stage.setPointerCapture(event.pointerId)
  stage.querySelector<HTMLElement>('[role="slider"]')?.focus({ preventScroll: true })
  place(event)
  const end = () => {
    stage.removeEventListener('pointermove', place)
    stage.classList.remove('is-dragging')
  }
  stage.classList.add('is-dragging')
  stage.addEventListener('pointermove', place)
  stage.addEventListener('pointerup', end, { once: true })
  stage.addEventListener('pointercancel', end, { once: true })
}

/**
 * The divider between the two sides: an ARIA slider (its value the share of the width the
 * snapshot shows), moved by ←/→ (Shift, Page Up/Down: further), Home and End.
 */
function Divider({ model, split }: { model: ChangesModel; split: number }) {
  const onKeyDown = (event: KeyboardEvent) => {
    const big = event.shiftKey ? BIG_STEP : STEP
    const next = {
      ArrowLeft: split - big,
      ArrowDown: split - big,
      ArrowRight: split + big,
      ArrowUp: split + big,
      PageDown: split - BIG_STEP,
      PageUp: split + BIG_STEP,
      Home: 0,
      End: 100,
    }[event.key]
    if (next === undefined) return
    event.preventDefault()
    model.setSplit(next)
  }
  return (
    <div
      class="swipe-divider"
      id="swipe-divider"
      role="slider"
      tabIndex={0}
      aria-label="Divider: the snapshot on its left, the render now on its right"
      aria-orientation="horizontal"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={split}
      aria-valuetext={`${split}% snapshot, ${100 - split}% render now`}
      style={{ left: `${split}%` }}
      onKeyDown={onKeyDown}
    >
      <span class="swipe-grip" aria-hidden="true" />
    </div>
  )
}

/** Overlay: how much of the render now shows over the snapshot, or their difference. */
function OverlayControls({ model, difference }: { model: ChangesModel; difference: boolean }) {
  const opacity = model.opacity.value
  return (
    <div class="viewbar overlay-controls" role="group" aria-label="Overlay">
      <div class="field">
        <label for="overlay-opacity">Render now over the snapshot</label>
        <input
          id="overlay-opacity"
          type="range"
          min={0}
          max={100}
          step={5}
          value={opacity}
          disabled={difference}
          aria-valuetext={`${opacity}% render now, ${100 - opacity}% snapshot`}
          onInput={(event) => model.setOpacity(Number((event.target as HTMLInputElement).value))}
        />
        <output for="overlay-opacity" class="muted" aria-hidden="true">
          {opacity}%
        </output>
      </div>
      <button
        type="button"
        class="width toggle"
        id="overlay-difference"
        aria-pressed={difference ? 'true' : 'false'}
        title="Difference: what is the same is black, what changed shows in colour"
        onClick={() => model.setDifference(!difference)}
      >
        Difference
      </button>
    </div>
  )
}

/** The screenshots of the view's width and scheme: the snapshot, the one of the last change, their diff. */
function Screenshots({ detail, view }: { detail: SnapshotCase; view: ViewState }) {
  const variant = imageVariant(view)
  const image = detail.images.find((i) => i.variant === variant)
  const [width, scheme] = variant.split('-')
  const where = `${width} px, ${scheme}`
  const figure = (url: string | undefined, caption: string, children?: ComponentChildren) =>
    url ? (
      <figure class="shot">
        {/* Full size in a tab of its own: a whole email is tall. */}
        <a href={url} target="_blank" rel="noopener noreferrer">
          <img src={url} alt={`${caption} (${where})`} loading="lazy" />
        </a>
        <figcaption>{children ?? caption}</figcaption>
      </figure>
    ) : null
  return (
    <div class="shots" role="region" aria-label={`Screenshots at ${where}`} tabIndex={0}>
      {image?.snapshot || image?.current ? null : (
        <p class="note">No screenshot at {where}: sendbox check --visual takes them.</p>
      )}
      {image?.snapshot && !image.current ? (
        <p class="note">The last sendbox check --visual found no change at {where}.</p>
      ) : null}
      <div class="shot-row">
        {figure(image?.urls.snapshot, 'Snapshot')}
        {figure(image?.urls.current, 'Now')}
        {figure(image?.urls.diff, 'Difference', <>Difference (changed pixels in red)</>)}
      </div>
    </div>
  )
}
