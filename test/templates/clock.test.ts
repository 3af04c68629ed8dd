import { afterEach, describe, expect, it } from 'vitest'
import { renderMessage, snapshotClock } from '../../src/templates/index.js'
import { type Fixture, makeCatalog } from './helpers.js'

/**
 * A render on a fixed clock (src/templates/clock.ts): what snapshots render with. A render
 * without one is untouched, and the process's time zone is put back after every clocked render,
 * a failed one included.
 */

let fixture: Fixture | undefined
afterEach(async () => {
  await fixture?.close()
  fixture = undefined
})

const TEMPLATES = {
  'dated.liquid': '{{ "now" | date: "%Y-%m-%d %H:%M %Z %B" }}|{{ when | date: "%H:%M" }}',
  'runaway.liquid': '{{ "now" | date: "%Y" }}{% for i in (1..100000000) %}{{ i }}{% endfor %}',
}

describe('a render on the snapshot clock', () => {
  it('reads "now" from the clock, in UTC and English, and a zone-less date as UTC', async () => {
    fixture = await makeCatalog(TEMPLATES)
    const outcome = renderMessage(
      fixture.catalog,
      'dated',
      { when: '2026-03-01 10:00' },
      { lenient: false, clock: snapshotClock('2030-06-15T08:00:00Z') },
    )
    expect(outcome.ok && outcome.rendered.html).toBe('2030-06-15 08:00 UTC June|10:00')
  })

  it('leaves a render without a clock on the real one', async () => {
    fixture = await makeCatalog(TEMPLATES)
    const outcome = renderMessage(
      fixture.catalog,
      'dated',
      { when: '2026-03-01 10:00' },
      { lenient: false },
    )
    expect(outcome.ok && outcome.rendered.html).toMatch(new RegExp(`^${new Date().getFullYear()}-`))
    expect(outcome.ok && outcome.rendered.html).not.toContain('2026-01-01 12:00')
  })

  it('puts the time zone back after a render, and after one that fails', async () => {
    fixture = await makeCatalog(TEMPLATES)
    const saved = process.env.TZ
    try {
      for (const zone of [undefined, 'Asia/Tokyo']) {
        if (zone === undefined) delete process.env.TZ
        else process.env.TZ = zone
        const offset = new Date(2026, 0, 1).getTimezoneOffset()
        for (const slug of ['dated', 'runaway']) {
          renderMessage(
            fixture.catalog,
            slug,
            { when: 'x' },
            { lenient: false, clock: snapshotClock() },
          )
          expect(process.env.TZ, `${slug}, TZ ${zone}`).toBe(zone)
          expect(new Date(2026, 0, 1).getTimezoneOffset()).toBe(offset)
        }
      }
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })
})
