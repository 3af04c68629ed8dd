import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ADDRESS_PATTERN, parseAddress, parseAddressFully } from '../src/api/address.js'

const chars = fc.constantFrom(...'aZ09 .-_+@<>"\'(),;:\\[]é!#%'.split(''))
const text = fc.array(chars, { maxLength: 30 }).map((a) => a.join(''))
const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/)
const likely = fc.oneof(
  fc.tuple(word, word, word).map(([l, d, t]) => `${l}@${d}.${t}`),
  fc
    .tuple(fc.array(word, { minLength: 1, maxLength: 3 }), word, word)
    .map(([name, l, d]) => `${name.join(' ')} <${l}@${d}.test>`),
  fc.tuple(word, word).map(([l, d]) => ` ${l}.x+tag@${d}-mail.co `),
)

// fast-check cannot generate from a negated class over all of Unicode; a few non-ASCII
// characters (2-, 3- and 4-byte) stand in for "any non-ASCII character".
const documented = fc.stringMatching(
  new RegExp(ADDRESS_PATTERN.source.replaceAll('[^\\x00-\\x7F]', '[éß߿ࠀ￿😀]'), 'u'),
)

describe('parseAddress', () => {
  it('accepts exactly what the documented pattern matches: its fast path and the full parser agree there', () => {
    fc.assert(
      fc.property(fc.oneof(text, likely), (input) => {
        expect(parseAddress(input)).toEqual(
          ADDRESS_PATTERN.test(input) ? parseAddressFully(input) : null,
        )
      }),
      { numRuns: 3000 },
    )
  })

  it('every string the documented pattern matches is an address the full parser reads', () => {
    fc.assert(
      fc.property(documented, (input) => {
        expect(parseAddressFully(input)).not.toBeNull()
        expect(parseAddress(input)).toEqual(parseAddressFully(input))
      }),
      { numRuns: 3000, seed: 14 },
    )
  })

  it.each([
    ['Ada Lovelace <ada@example.com>', { name: 'Ada Lovelace', address: 'ada@example.com' }],
    ['ada@example.com', { name: null, address: 'ada@example.com' }],
    ['"Ada, L." <ada@example.com>', { name: 'Ada, L.', address: 'ada@example.com' }],
    ['Zoë <zoe@exämple.com>', { name: 'Zoë', address: 'zoe@exämple.com' }],
    ['A. Lovelace <ada@example.com>', { name: 'A. Lovelace', address: 'ada@example.com' }],
    ['Receipts 🧾 <r@example.com>', { name: 'Receipts 🧾', address: 'r@example.com' }],
    ['nope', null],
    ['a@b.c, d@e.f', null],
    ['Ada <ada@example.com>\r\nBcc: x@y.z', null],
    ['ada@example.com (Ada)', null],
    [`${'a'.repeat(990)}@example.com`, null],
  ])('%s', (input, expected) => {
    expect(parseAddress(input)).toEqual(expected)
  })

  it('the pattern stays fast on long near-misses', () => {
    const started = performance.now()
    for (const input of [
      `${'a '.repeat(490)}x`,
      `${'a.'.repeat(495)}@`,
      `"${'\\a'.repeat(490)}`,
      `${'a\t'.repeat(490)}<a@b`,
    ])
      ADDRESS_PATTERN.test(input)
    expect(performance.now() - started).toBeLessThan(200)
  })
})
