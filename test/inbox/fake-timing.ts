import type { Timing } from '../../src/inbox/page/burst.js'

/**
 * A clock, timers and animation frames the test moves by hand: `advance(ms)` runs the timers
 * due, `frame()` runs the frames asked for (as the browser does, once per frame).
 */
export function fakeTiming(): Timing & {
  advance(ms: number): void
  frame(): void
  pendingFrames(): number
} {
  let now = 0
  let next = 1
  const timers = new Map<number, { at: number; run: () => void }>()
  let frames = new Map<number, () => void>()
  return {
    now: () => now,
    setTimeout(run, ms) {
      const id = next++
      timers.set(id, { at: now + ms, run })
      return id
    },
    clearTimeout(id) {
      timers.delete(id)
    },
    requestAnimationFrame(run) {
      const id = next++
      frames.set(id, run)
      return id
    },
    cancelAnimationFrame(id) {
      frames.delete(id)
    },
    advance(ms) {
      const until = now + ms
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= until)
          .sort((a, b) => a[1].at - b[1].at)[0]
        if (!due) break
        timers.delete(due[0])
        now = due[1].at
        due[1].run()
      }
      now = until
    },
    frame() {
      const due = frames
      frames = new Map()
      for (const run of due.values()) run()
    },
    pendingFrames: () => frames.size,
  }
}
