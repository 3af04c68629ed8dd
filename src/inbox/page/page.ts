import { signal, type Signal } from '@preact/signals'
import type { LiveState } from './live.js'
import type { Timing } from './burst.js'

/**
 * What every view of the page shares, as signals and plain services: the live region's words,
 * the toast, the confirmation dialog, the clock relative times follow, the system's colour
 * scheme and the stream's state. Made once by app.tsx (no module state: a component test makes
 * its own), handed to the views, drawn by the shell's components (shell.tsx).
 */

export interface ConfirmOptions {
  title: string
  text: string
  confirm: string
}

/** The dialog on screen: what it asks, and how it answers. */
export interface ConfirmRequest extends ConfirmOptions {
  answer(yes: boolean): void
}

export interface Page {
  /** What the polite live region says (announce() sets it). */
  readonly announcement: Signal<string>
  /** The visible, assertive notice for failures; null: none. */
  readonly toastText: Signal<string | null>
  readonly confirmation: Signal<ConfirmRequest | null>
  /** Now, to the half minute: relative times ("3 min. ago") follow it. */
  readonly clock: Signal<number>
  /** The system prefers dark: then "Light" must be asked of a frame explicitly. */
  readonly systemDark: Signal<boolean>
  readonly live: Signal<LiveState>
  readonly timing: Timing
  /** Says something to screen readers through the polite live region. */
  announce(text: string): void
  /** A visible notice for a request that did not go through. */
  toast(text: string): void
  /** Asks in the page's modal dialog; true when confirmed. */
  confirm(options: ConfirmOptions): Promise<boolean>
}

/** How long a toast stays. */
const TOAST_MS = 6000
/** The live region is emptied this long before it speaks: a repeated sentence is read again. */
const ANNOUNCE_GAP_MS = 50

/**
 * @example
 * const page = createPage(browserTiming())
 * page.announce('Message deleted')
 */
export function createPage(timing: Timing): Page {
  const announcement = signal('')
  const toastText = signal<string | null>(null)
  const confirmation = signal<ConfirmRequest | null>(null)
  let announceTimer = 0
  let toastTimer = 0
  return {
    announcement,
    toastText,
    confirmation,
    clock: signal(Date.now()),
    systemDark: signal(false),
    live: signal<LiveState>('connecting'),
    timing,
    announce(text) {
      announcement.value = ''
      timing.clearTimeout(announceTimer)
      announceTimer = timing.setTimeout(() => {
        announcement.value = text
      }, ANNOUNCE_GAP_MS)
    },
    toast(text) {
      toastText.value = text
      timing.clearTimeout(toastTimer)
      toastTimer = timing.setTimeout(() => {
        toastText.value = null
      }, TOAST_MS)
    },
    confirm(options) {
      // One question at a time: an earlier one still open counts as no.
      confirmation.peek()?.answer(false)
      return new Promise((resolve) => {
        const request: ConfirmRequest = {
          ...options,
          answer(yes) {
            if (confirmation.peek() === request) confirmation.value = null
            resolve(yes)
          },
        }
        confirmation.value = request
      })
    },
  }
}
