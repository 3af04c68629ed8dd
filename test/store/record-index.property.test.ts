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

const NAMES = ['ada', 'bo', 'cy']
const addressOf = (n: number) => ({ name: NAMES[n]!.toUpperCase(), address: `${NAMES[n]}@x.test` })

const FILTERS: MessageFilter[] = [
  {},
  { to: 'ada' },
  { to: 'BO@X' },
  { recipient: 'cy@x.test' },
  { subject: 'second' },
  { from: 'shop' },
  { template: 'welcome', to: 'x.test' },
  { status: 'delivered', to: 'ada' },
]

type Step =
  | { kind: 'add'; to: number }
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

const n3 = fc.nat({ max: 2 })
const pick = fc.nat({ max: 50 })
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), to: n3 }) },
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
      index.add(makeRecord({ to: [addressOf(step.to)] }))
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
      if (chosen) index.replace(chosen, { ...chosen, to: [addressOf(step.to)] })
      break
    case 'remove':
      if (chosen) {
        index.remove(chosen)
        removed.push(chosen)
      }
      break
    case 'unadd': {
      const record = makeRecord({ to: [addressOf(step.to)] })
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

describe('record-index, by property', () => {
  it('lists what a filter of the records finds, whatever changes came between lists', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 60, size: 'max' }), (steps) => {
        const index = createRecordIndex([], { maxMessages: 3, maxBytes: Infinity })
        const removed: MessageRecord[] = []
        for (const s of steps) {
          apply(index, s, removed)
          const newestFirst = [...index.all()].reverse()
          for (const filter of FILTERS) {
            const expected = newestFirst.filter((r) => matchesFilter(r, filter))
            expect(index.list(filter).messages).toEqual(expected)
            expect(index.latest(filter)).toBe(expected[0])
          }
        }
      }),
      { numRuns: 150 },
    )
  })
})
