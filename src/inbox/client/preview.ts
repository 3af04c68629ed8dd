import { h } from './dom.js'

/**
 * How a rendered email is shown in its frame: the width (a preset or any width from 320 to 1600
 * px), the colour scheme (light; the email's own dark-mode rules; or inverted, as mail apps force
 * dark mode), and images on or off. Both views keep it in the URL: `width=600&dark=media&images=off`.
 */

export type Dark = '' | 'media' | 'invert'

export interface ViewState {
  /** '' fills the pane; otherwise px, 320–1600. */
  width: string
  dark: Dark
  imagesOff: boolean
}

export interface WidthPreset {
  value: string
  label: string
  hint: string
}

export const MIN_WIDTH = 320
export const MAX_WIDTH = 1600

export const MESSAGE_WIDTHS: WidthPreset[] = [
  { value: '', label: 'Fit', hint: 'the pane' },
  { value: '375', label: 'Phone', hint: '375 px' },
  { value: '768', label: 'Tablet', hint: '768 px' },
  { value: '1024', label: 'Desktop', hint: '1024 px' },
]

export const TEMPLATE_WIDTHS: WidthPreset[] = [
  { value: '', label: 'Fit', hint: 'the pane' },
  { value: '375', label: 'Phone', hint: '375 px' },
  { value: '600', label: 'Email', hint: '600 px, the usual email width' },
  { value: '1024', label: 'Desktop', hint: '1024 px' },
]

const SCHEMES: { value: Dark; label: string; hint: string }[] = [
  { value: '', label: 'Light', hint: 'Light: how the email looks without dark mode' },
  {
    value: 'media',
    label: 'Dark',
    hint: "Dark: the email's own dark-mode rules, @media (prefers-color-scheme: dark), as Apple Mail applies them",
  },
  {
    value: 'invert',
    label: 'Inverted',
    hint: 'Inverted: colours flipped, as the Gmail and Outlook apps force dark mode on emails',
  },
]

export const DEFAULT_VIEW: ViewState = { width: '', dark: '', imagesOff: false }

export function normalizeWidth(value: string | null): string {
  if (!value || !/^\d{1,5}$/.test(value)) return ''
  const n = Number(value)
  return n >= MIN_WIDTH && n <= MAX_WIDTH ? String(n) : ''
}

const normalizeDark = (value: string | null): Dark =>
  value === 'media' || value === 'invert' ? value : ''

/** The state in the URL; a key that is absent keeps its current value (it carries over between views). */
export function readView(params: URLSearchParams, current: ViewState): ViewState {
  return {
    width: params.has('width') ? normalizeWidth(params.get('width')) : current.width,
    dark: params.has('dark') ? normalizeDark(params.get('dark')) : current.dark,
    imagesOff: params.has('images') ? params.get('images') === 'off' : current.imagesOff,
  }
}

/** The URL parameters for a state (null: leave the key out). */
export function viewParams(state: ViewState): Record<string, string | null> {
  return {
    width: state.width || null,
    dark: state.dark || null,
    images: state.imagesOff ? 'off' : null,
  }
}

export function setViewParams(params: URLSearchParams, state: ViewState): void {
  for (const [key, value] of Object.entries(viewParams(state))) {
    if (value) params.set(key, value)
    else params.delete(key)
  }
}

/** Whether the browser (the system) prefers dark: then "Light" must be asked for explicitly. */
const systemDark = window.matchMedia('(prefers-color-scheme: dark)')

export function onSystemSchemeChange(listener: () => void): void {
  systemDark.addEventListener('change', listener)
}

/**
 * The frame's `src` for an inspector HTML answer: `images=off` when images are off, and, when
 * the colour scheme is not the one the browser would give the frame anyway, `scheme=` so the
 * inspector decides the email's prefers-color-scheme queries (Chromium does not pass the
 * <iframe>'s color-scheme on to the frame's prefers-color-scheme, as the spec says).
 */
export function frameSrc(src: string, state: ViewState): string {
  const url = new URL(src, location.origin)
  if (state.imagesOff) url.searchParams.set('images', 'off')
  const scheme = state.dark === 'media' ? 'dark' : systemDark.matches ? 'light' : null
  if (scheme) url.searchParams.set('scheme', scheme)
  return `${url.pathname}${url.search}`
}

/**
 * Width, colour scheme and filter on the frame element. The <iframe>'s own color-scheme is what
 * the spec passes on to the frame (Firefox, Safari) and decides its backdrop; the inverted view
 * is a CSS filter over the whole frame, as the apps that force dark mode do it.
 */
export function applyView(frame: HTMLIFrameElement | null, state: ViewState): void {
  if (!frame) return
  frame.style.width = state.width ? `${state.width}px` : '100%'
  frame.style.colorScheme = state.dark === 'media' ? 'dark' : 'light'
  frame.classList.toggle('is-fixed', !!state.width)
  frame.classList.toggle('is-dark', state.dark === 'media')
  frame.classList.toggle('is-inverted', state.dark === 'invert')
}

/** Sets a frame's src only when it changes (a new src reloads the frame). */
export function loadFrame(frame: HTMLIFrameElement | null, src: string): void {
  if (frame && frame.getAttribute('src') !== src) frame.src = src
}

/**
 * The row of controls over the frame: width presets and a free width, the colour scheme, images.
 * `onChange` gets the whole new state; `sync` shows a state that changed elsewhere (the URL).
 */
export class PreviewControls {
  readonly root: HTMLElement
  private readonly widthInput: HTMLInputElement
  private state: ViewState

  constructor(
    prefix: string,
    presets: WidthPreset[],
    state: ViewState,
    private readonly onChange: (state: ViewState) => void,
  ) {
    this.state = state
    const widthId = `${prefix}-width-input`
    this.widthInput = h('input', {
      id: widthId,
      class: 'width-input',
      type: 'number',
      inputmode: 'numeric',
      min: MIN_WIDTH,
      max: MAX_WIDTH,
      step: 1,
      placeholder: 'auto',
      'aria-describedby': `${prefix}-width-hint`,
      oninput: () => this.onWidthInput(false),
      onchange: () => this.onWidthInput(true),
    })
    this.root = h(
      'div',
      { class: 'viewbar', role: 'group', 'aria-label': 'Preview options' },
      h(
        'div',
        { class: 'widths', role: 'group', 'aria-label': 'Preview width' },
        presets.map((w) =>
          h(
            'button',
            {
              type: 'button',
              class: 'width',
              'data-width': w.value,
              'aria-pressed': 'false',
              title: `${w.label}: ${w.hint}`,
              onclick: () => this.change({ width: w.value }),
            },
            h('span', null, w.label),
            w.value ? h('span', { class: 'width-px' }, ` ${w.value}`) : null,
          ),
        ),
      ),
      h(
        'div',
        { class: 'field width-field' },
        h('label', { for: widthId }, 'Width'),
        this.widthInput,
        h(
          'span',
          { class: 'muted', id: `${prefix}-width-hint` },
          h('span', { 'aria-hidden': 'true' }, 'px'),
          h(
            'span',
            { class: 'visually-hidden' },
            `pixels, ${MIN_WIDTH} to ${MAX_WIDTH}; empty fits the pane`,
          ),
        ),
      ),
      h(
        'div',
        { class: 'widths', role: 'group', 'aria-label': 'Colour scheme' },
        SCHEMES.map((s) =>
          h(
            'button',
            {
              type: 'button',
              class: 'width',
              'data-dark': s.value,
              'aria-pressed': 'false',
              title: s.hint,
              onclick: () => this.change({ dark: s.value }),
            },
            s.label,
          ),
        ),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'width toggle',
          'data-images': 'off',
          'aria-pressed': 'false',
          title:
            'Images off: what a reader who blocks images sees (alt text, layout without pictures)',
          onclick: () => this.change({ imagesOff: !this.state.imagesOff }),
        },
        'Images off',
      ),
    )
    this.sync(state)
  }

  sync(state: ViewState): void {
    this.state = state
    for (const button of this.root.querySelectorAll<HTMLButtonElement>('[data-width]'))
      button.setAttribute('aria-pressed', String(button.dataset.width === state.width))
    for (const button of this.root.querySelectorAll<HTMLButtonElement>('[data-dark]'))
      button.setAttribute('aria-pressed', String(button.dataset.dark === state.dark))
    this.root.querySelector('[data-images]')?.setAttribute('aria-pressed', String(state.imagesOff))
    // Not while someone is typing a width: "4" on the way to "480" is not a width yet.
    if (document.activeElement !== this.widthInput) {
      this.widthInput.value = state.width
      this.widthInput.removeAttribute('aria-invalid')
    }
  }

  private change(update: Partial<ViewState>): void {
    const next = { ...this.state, ...update }
    this.sync(next)
    this.onChange(next)
  }

  /** A width typed in: applied as soon as it is one; on change (Enter, leaving) clamped or cleared. */
  private onWidthInput(committed: boolean): void {
    const raw = this.widthInput.value.trim()
    const width = normalizeWidth(raw)
    if (!raw || width) {
      this.widthInput.removeAttribute('aria-invalid')
      if (width !== this.state.width) this.change({ width })
      return
    }
    if (!committed) {
      this.widthInput.setAttribute('aria-invalid', 'true')
      return
    }
    const n = Number(raw)
    const clamped = Number.isFinite(n)
      ? String(Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, n))))
      : this.state.width
    this.widthInput.value = clamped
    this.widthInput.removeAttribute('aria-invalid')
    this.change({ width: clamped })
  }
}
