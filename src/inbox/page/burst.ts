/**
 * How the message list keeps up with a burst of live events without repainting per event: a
 * draw at most once per animation frame (and while events keep coming, once per DRAW_EVERY_MS at
 * most), one announcement per ANNOUNCE_MS for arrivals (a burst is one sentence, not hundreds),
 * and a highlight only for a message that arrives alone. Plain functions over an injected clock,
 * timers and frames, so test/inbox/burst.test.ts drives them without a browser.
 */

/** While events keep coming, the list is drawn this often at most (a lone event is drawn at the next frame). */
export const DRAW_EVERY_MS = 100
/** At most one announcement for arrivals this often. */
export const ANNOUNCE_MS = 1000
/** Arrivals closer than this are a burst: not highlighted one by one. */
export const BURST_MS = 1000

/** What these functions need of the browser: a clock, timers and animation frames. */
export interface Timing {
  now(): number
  setTimeout(callback: () => void, ms: number): number
  clearTimeout(handle: number): void
  requestAnimationFrame(callback: () => void): number
  cancelAnimationFrame(handle: number): void
}

/** The browser's own (bound: the methods are called off `window`). */
export function browserTiming(): Timing {
  return {
    now: () => performance.now(),
    setTimeout: (callback, ms) => window.setTimeout(callback, ms),
    clearTimeout: (handle) => window.clearTimeout(handle),
    requestAnimationFrame: (callback) => window.requestAnimationFrame(callback),
    cancelAnimationFrame: (handle) => window.cancelAnimationFrame(handle),
  }
}

export interface FrameScheduler {
  /** Draw at the next frame (or after the burst's pause), once however many times this is called before it. */
  schedule(): void
  /** Draw now (a page came in, a search changed): what was scheduled is not drawn twice. */
  flush(): void
}

/**
 * Calls `draw` at the next animation frame, once however many events come before it. A lone
 * event is drawn at once; while they keep coming, a draw follows the last one by `everyMs` at
 * least, so a burst of 300 sends a second costs ten small passes a second, not one per frame.
 *
 * @example
 * const frames = frameScheduler(() => version.value++, browserTiming())
 * frames.schedule()
 */
export function frameScheduler(
  draw: () => void,
  timing: Timing,
  everyMs = DRAW_EVERY_MS,
): FrameScheduler {
  let frame = 0
  let timer = 0
  let lastDraw = Number.NEGATIVE_INFINITY
  const run = () => {
    frame = 0
    timer = 0
    lastDraw = timing.now()
    draw()
  }
  return {
    schedule() {
      if (frame || timer) return
      const wait = lastDraw + everyMs - timing.now()
      if (wait <= 0) frame = timing.requestAnimationFrame(run)
      else
        timer = timing.setTimeout(() => {
          timer = 0
          frame = timing.requestAnimationFrame(run)
        }, wait)
    },
    flush() {
      if (frame) timing.cancelAnimationFrame(frame)
      if (timer) timing.clearTimeout(timer)
      run()
    },
  }
}

/**
 * Announces arrivals to screen readers once per `everyMs` at most: the first at once ("New
 * message from Acme: Welcome"), then how many came meanwhile with the newest ("12 new messages,
 * the newest from Acme: Welcome").
 *
 * @example
 * const arrivals = arrivalAnnouncer(announce, browserTiming())
 * arrivals.arrived('from Acme: Welcome')
 */
export function arrivalAnnouncer(
  say: (text: string) => void,
  timing: Timing,
  format: (n: number) => string = String,
  everyMs = ANNOUNCE_MS,
): { arrived(what: string): void } {
  let count = 0
  let newest = ''
  let at = Number.NEGATIVE_INFINITY
  let timer = 0
  return {
    arrived(what) {
      count++
      newest = what
      if (timer) return
      const wait = Math.max(0, at + everyMs - timing.now())
      timer = timing.setTimeout(() => {
        const n = count
        timer = 0
        count = 0
        at = timing.now()
        say(n === 1 ? `New message ${newest}` : `${format(n)} new messages, the newest ${newest}`)
      }, wait)
    },
  }
}

/**
 * Whether an arrival comes alone (highlighted as it comes) or in a burst (a highlight on every
 * row would say nothing, and repaint the list every frame).
 *
 * @example
 * const lone = loneArrivals(browserTiming())
 * lone() // true for the first, false for one 10 ms later
 */
export function loneArrivals(timing: Timing, burstMs = BURST_MS): () => boolean {
  let last = Number.NEGATIVE_INFINITY
  return () => {
    const now = timing.now()
    const alone = now - last > burstMs
    last = now
    return alone
  }
}
