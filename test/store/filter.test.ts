import { describe, expect, it } from 'vitest'
import { compileFilter, isEmptyFilter, matchesFilter } from '../../src/store/index.js'
import { makeRecord } from './helpers.js'

describe('matchesFilter', () => {
  const record = makeRecord({
    template: 'order-Shipped',
    subject: 'Your ORDER #42',
    project: 'deadbeef',
    createdAt: '2026-11-21T10:00:00.000Z',
    from: { name: 'Acme Shop', address: 'shop@acme.test' },
    to: [
      { name: null, address: 'bob@example.com' },
      { name: 'Ada Lovelace', address: 'ada@example.com' },
    ],
  })

  it('matches everything with no or empty criteria', () => {
    expect(matchesFilter(record, {})).toBe(true)
    expect(
      matchesFilter(record, {
        to: '',
        from: '',
        template: '',
        subject: '',
        project: '',
        since: '',
      }),
    ).toBe(true)
    expect(matchesFilter(record, { limit: 0, offset: 5 })).toBe(true)
  })

  it('matches to/from as case-insensitive substrings of "Name <address>"', () => {
    expect(matchesFilter(record, { to: 'ADA@example' })).toBe(true)
    expect(matchesFilter(record, { to: 'ada lovelace <ada@' })).toBe(true)
    expect(matchesFilter(record, { to: 'bob@example.com' })).toBe(true)
    expect(matchesFilter(record, { to: '<bob@' })).toBe(false) // bare address: no angle brackets
    expect(matchesFilter(record, { to: 'carol' })).toBe(false)
    expect(matchesFilter(record, { from: 'acme shop <SHOP' })).toBe(true)
    expect(matchesFilter(record, { from: 'ada' })).toBe(false)
  })

  it('matches template and subject as case-insensitive substrings, project exactly', () => {
    expect(matchesFilter(record, { template: 'shipped' })).toBe(true)
    expect(matchesFilter(record, { template: 'welcome' })).toBe(false)
    expect(matchesFilter(record, { subject: 'order #4' })).toBe(true)
    expect(matchesFilter(record, { project: 'deadbeef' })).toBe(true)
    expect(matchesFilter(record, { project: 'deadbee' })).toBe(false)
    expect(matchesFilter(record, { project: 'DEADBEEF' })).toBe(false)
  })

  it('compares since as a time, inclusive; an unparseable since matches nothing', () => {
    expect(matchesFilter(record, { since: '2026-11-21T10:00:00.000Z' })).toBe(true)
    expect(matchesFilter(record, { since: '2026-11-21T11:00:00+01:00' })).toBe(true) // same instant
    expect(matchesFilter(record, { since: '2026-11-21T10:00:00.001Z' })).toBe(false)
    expect(matchesFilter(record, { since: '2026-11-20' })).toBe(true)
    // Callers refuse one first; taken for "no filter", it once made a clear delete everything.
    expect(matchesFilter(record, { since: 'yesterday-ish' })).toBe(false)
    expect(isEmptyFilter({ since: 'yesterday-ish' })).toBe(false)
    expect(isEmptyFilter({ since: '' })).toBe(true)
  })

  it('requires every criterion', () => {
    expect(matchesFilter(record, { to: 'ada', template: 'order' })).toBe(true)
    expect(matchesFilter(record, { to: 'ada', template: 'welcome' })).toBe(false)
  })

  it('compileFilter gives the same answers', () => {
    const match = compileFilter({ to: 'ada', subject: 'order' })
    expect(match(record)).toBe(true)
    expect(match(makeRecord())).toBe(false)
  })
})
