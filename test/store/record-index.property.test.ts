import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { matchesFilter } from '../../src/store/filter.js'
import { createRecordIndex, type RecordIndex } from '../../src/store/record-index.js'
import type { MessageFilter, MessageRecord } from '../../src/store/types.js'
import { makeRecord } from './helpers.js'

/**
 * The message log's index keeps each record's search texts by position, beside its array of
 * records: every change to the array (an add, a new version, a change of state, a removal, a
 * clear, a put-back, the oldest dropped, the dropped prefix cut off) must make the same change to
 * the texts. Random sequences of those changes, with filtered lists between them (so texts are
 * made before the changes that could leave them behind), must list what a filter of the records
 * themselves finds.
 */

const NAMES = ['ada', 'bo', 'cy', 'lovelace-ada']
/** Two recipients for some: a line of the index's columns holds more than one entry. */
const addressesOf = (n: number) => {
  const one = { name: NAMES[n % 4]!.toUpperCase(), address: `${NAMES[n % 4]}@x.test` }
  return n < 4 ? [one] : n === 4 ? [] : [{ name: 'Bo\0Ba', address: 'bo@y.test' }, one]
}
const PROJECTS = ['p1', 'p2']

const FILTERS: MessageFilter[] = [
  {},
  { to: 'ada' },
  { to: 'BO@X' },
  { recipient: 'cy@x.test' },
  { subject: 'second' },
  { from: 'shop' },
  { template: 'welcome', to: 'x.test' },
  { status: 'delivered', to: 'ada' },
  { to: 'ada@x.test', project: 'p1' },
  { recipient: 'ADA@X.test', project: 'p2' },
  { recipient: 'Cy <cy@x.test>', offset: 1, limit: 1 },
  { to: 'bo', limit: 2 },
  { to: 'x.test>', after: '3' },
  { recipient: 'bo@x.test', project: 'p1', after: '5' },
  { to: 'o\0b' },
  { to: 'bo\0' },
  { recipient: 'bo@y.test', project: 'p2', offset: 1 },
  { to: '\0' },
  { to: '@', after: '40' },
]

type Step =
  | { kind: 'add'; to: number; project: number }
  | { kind: 'version'; pick: number; subject: boolean }
  | { kind: 'state'; pick: number }
  | { kind: 'readdress'; pick: number; to: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'unadd'; to: number }
  | { kind: 'clear'; keepEvery: number }
  | { kind: 'putBack' }
  | { kind: 'drop' }
  | { kind: 'normalise' }
  | { kind: 'list'; filter: number }

const n3 = fc.nat({ max: 5 })
const pick = fc.nat({ max: 50 })
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      to: n3,
      project: fc.nat({ max: 1 }),
    }),
  },
  fc.record({ kind: fc.constant('version' as const), pick, subject: fc.boolean() }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('state' as const), pick }) },
  fc.record({ kind: fc.constant('readdress' as const), pick, to: n3 }),
  fc.record({ kind: fc.constant('remove' as const), pick }),
  fc.record({ kind: fc.constant('unadd' as const), to: n3 }),
  fc.record({ kind: fc.constant('clear' as const), keepEvery: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('putBack' as const) }),
  fc.record({ kind: fc.constant('drop' as const) }),
  fc.record({ kind: fc.constant('normalise' as const) }),
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('list' as const),
      filter: fc.nat({ max: FILTERS.length - 1 }),
    }),
  },
)

/** Applies a step as the message log would, remembering what a failed removal would put back. */
function apply(index: RecordIndex, step: Step, removed: MessageRecord[]): void {
  const live = [...index.all()]
  const chosen = live.length > 0 && 'pick' in step ? live[step.pick % live.length]! : undefined
  switch (step.kind) {
    case 'add':
      index.add(makeRecord({ to: addressesOf(step.to), project: PROJECTS[step.project]! }))
      break
    case 'version': {
      if (!chosen) break
      const next = { ...chosen, ...(step.subject ? { subject: 'second' } : {}) }
      const previous = index.add(next)
      if (previous) index.retire(previous)
      break
    }
    case 'state':
      if (chosen) index.replace(chosen, { ...chosen, status: 'delivered' })
      break
    case 'readdress':
      if (chosen) index.replace(chosen, { ...chosen, to: addressesOf(step.to) })
      break
    case 'remove':
      if (chosen) {
        index.remove(chosen)
        removed.push(chosen)
      }
      break
    case 'unadd': {
      const record = makeRecord({ to: addressesOf(step.to) })
      index.unadd(record, index.add(record))
      break
    }
    case 'clear':
      removed.push(...live.filter((_, i) => i % step.keepEvery !== 0))
      index.keepOnly(live.filter((_, i) => i % step.keepEvery === 0))
      break
    case 'putBack':
      index.reinsert(removed.splice(0))
      break
    case 'drop':
      index.dropOverflow()
      break
    case 'normalise':
      index.normalise()
      break
    case 'list':
      index.list(FILTERS[step.filter])
      break
  }
}

/**
 * A filter's page is what the index's scan of every record finds: the page of the same filter
 * without its `to`, `recipient` and paging (which the scan answers; its cursor does not depend
 * on them), filtered by the record, then paged. With `to` or `recipient`, the index finds its
 * candidates in its text columns instead; this holds that to the scan.
 */
function expectAsScanned(index: RecordIndex, filter: MessageFilter): void {
  const { to, recipient, offset = 0, limit = Infinity, ...rest } = filter
  const scanned = index.list(rest)
  const matched = scanned.messages.filter((r) => matchesFilter(r, filter))
  const page = index.list(filter)
  expect(page.messages).toEqual(matched.slice(offset, offset + limit))
  expect(page.total).toBe(matched.length)
  expect(page.cursor).toBe(scanned.cursor)
  expect(index.latest(filter)).toBe(matched[0])
}

describe('record-index, by property', () => {
  it('lists what a filter of the records finds, whatever changes came between lists', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 60, size: 'max' }), (steps) => {
        const index = createRecordIndex([], { maxMessages: 3, maxBytes: Infinity })
        const removed: MessageRecord[] = []
        for (const s of steps) {
          apply(index, s, removed)
          // Checked at a list only (and at the end): between two lists, records come and go
          // unseen by the index's columns, as between two reads of a server.
          if (s.kind === 'list') for (const filter of FILTERS) expectAsScanned(index, filter)
        }
        for (const filter of FILTERS) expectAsScanned(index, filter)
      }),
      { numRuns: 150 },
    )
  })

  it('lists by recipient after more records were dropped than its columns held (a fill between two reads)', () => {
    const index = createRecordIndex([], { maxMessages: 3, maxBytes: Infinity })
    for (let i = 0; i < 3; i++) index.add(makeRecord({ to: addressesOf(i) }))
    expect(index.list({ to: 'ada' }).total).toBe(1)
    for (let i = 0; i < 6; i++) index.add(makeRecord({ to: addressesOf(i % 3) }))
    index.dropOverflow()
    index.normalise()
    for (const filter of FILTERS) expectAsScanned(index, filter)
  })
})
