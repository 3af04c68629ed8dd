import { describe, expect, it } from 'vitest'
import {
  ANNOUNCE_MS,
  arrivalAnnouncer,
  BURST_MS,
  DRAW_EVERY_MS,
  frameScheduler,
  loneArrivals,
} from '../../src/inbox/page/burst.js'
import { fakeTiming } from './fake-timing.js'

/** The message list's pacing under a burst of live events, without a browser. */

describe('frameScheduler', () => {
  it('draws once at the next frame, however many events come before it', () => {
    const timing = fakeTiming()
    let draws = 0
    const frames = frameScheduler(() => draws++, timing)
    for (let i = 0; i < 50; i++) frames.schedule()
    expect(timing.pendingFrames()).toBe(1)
    timing.frame()
    expect(draws).toBe(1)
  })

  it('while events keep coming, draws at most once per DRAW_EVERY_MS', () => {
    const timing = fakeTiming()
    let draws = 0
    const frames = frameScheduler(() => draws++, timing)
    // 300 events a second for one second, a frame every 16 ms.
    for (let ms = 0; ms < 1000; ms++) {
      if (ms % 3 === 0) frames.schedule()
      if (ms % 16 === 0) timing.frame()
      timing.advance(1)
    }
    timing.frame()
    expect(draws).toBeGreaterThanOrEqual(1000 / DRAW_EVERY_MS - 1)
    expect(draws).toBeLessThanOrEqual(1000 / DRAW_EVERY_MS + 1)
  })

  it('flush draws now, and what was scheduled is not drawn again', () => {
    const timing = fakeTiming()
    let draws = 0
    const frames = frameScheduler(() => draws++, timing)
    frames.schedule()
    frames.flush()
    timing.frame()
    expect(draws).toBe(1)
  })
})

describe('arrivalAnnouncer', () => {
  it('says the first arrival at once, then one sentence for a burst', () => {
    const timing = fakeTiming()
    const said: string[] = []
    const arrivals = arrivalAnnouncer((text) => said.push(text), timing)
    arrivals.arrived('from Acme: One')
    timing.advance(0)
    expect(said).toEqual(['New message from Acme: One'])
    for (let i = 2; i <= 40; i++) arrivals.arrived(`from Acme: Number ${i}`)
    timing.advance(ANNOUNCE_MS - 1)
    expect(said).toHaveLength(1)
    timing.advance(1)
    expect(said).toEqual([
      'New message from Acme: One',
      '39 new messages, the newest from Acme: Number 40',
    ])
  })
})

describe('loneArrivals', () => {
  it('a message alone is highlighted; one in a burst is not', () => {
    const timing = fakeTiming()
    const lone = loneArrivals(timing)
    expect(lone()).toBe(true)
    timing.advance(10)
    expect(lone()).toBe(false)
    timing.advance(BURST_MS + 1)
    expect(lone()).toBe(true)
  })
})
