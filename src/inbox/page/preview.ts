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

export const SCHEMES: { value: Dark; label: string; hint: string }[] = [
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

/**
 * The frame's `src` for an inspector HTML answer: `images=off` when images are off, and, when
 * the colour scheme is not the one the browser would give the frame anyway, `scheme=` so the
 * inspector decides the email's prefers-color-scheme queries (Chromium does not pass the
 * <iframe>'s color-scheme on to the frame's prefers-color-scheme, as the spec says).
 *
 * @example
 * frameSrc('/_sandbox/api/messages/msg_1/html', { width: '', dark: 'media', imagesOff: true }, false)
 * // '/_sandbox/api/messages/msg_1/html?images=off&scheme=dark'
 */
export function frameSrc(src: string, state: ViewState, systemDark: boolean): string {
  const url = new URL(src, 'http://inbox.invalid')
  if (state.imagesOff) url.searchParams.set('images', 'off')
  const scheme = state.dark === 'media' ? 'dark' : systemDark ? 'light' : null
  if (scheme) url.searchParams.set('scheme', scheme)
  return `${url.pathname}${url.search}`
}

/**
 * What the frame element gets for a view: the width, the colour scheme the spec passes on to the
 * frame (Firefox, Safari; it also decides the frame's backdrop), and the classes for the dark
 * backdrop and the inverted view (a CSS filter over the whole frame, as the apps that force dark
 * mode do it).
 *
 * @example
 * frameLook({ width: '600', dark: 'invert', imagesOff: false }).class // 'frame is-fixed is-inverted'
 */
export function frameLook(state: ViewState): {
  class: string
  style: { width: string; colorScheme: string }
} {
  return {
    class: [
      'frame',
      state.width ? 'is-fixed' : '',
      state.dark === 'media' ? 'is-dark' : '',
      state.dark === 'invert' ? 'is-inverted' : '',
    ]
      .filter(Boolean)
      .join(' '),
    style: {
      width: state.width ? `${state.width}px` : '100%',
      colorScheme: state.dark === 'media' ? 'dark' : 'light',
    },
  }
}
