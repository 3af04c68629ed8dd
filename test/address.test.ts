import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseAddress, parseAddressFully } from '../src/api/address.js'

const chars = fc.constantFrom(...'aZ09 .-_+@<>"\'(),;:\\[]é!#%'.split(''))
const text = fc.array(chars, { maxLength: 30 }).map((a) => a.join(''))
const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/)
const likely = fc.oneof(
  fc.tuple(word, word, word).map(([l, d, t]) => `${l}@${d}.${t}`),
  fc.tuple(fc.array(word, { minLength: 1, maxLength: 3 }), word, word).map(([name, l, d]) => `${name.join(' ')} <${l}@${d}.test>`),
  fc.tuple(word, word).map(([l, d]) => ` ${l}.x+tag@${d}-mail.co `),
)

describe('parseAddress', () => {
  it('its fast path answers exactly what the full RFC 5322 parser answers', () => {
    fc.assert(
      fc.property(fc.oneof(text, likely), (input) => {
        expect(parseAddress(input)).toEqual(parseAddressFully(input))
      }),
      { numRuns: 3000 },
    )
  })

  it.each([
    ['Ada Lovelace <ada@example.com>', { name: 'Ada Lovelace', address: 'ada@example.com' }],
    ['ada@example.com', { name: null, address: 'ada@example.com' }],
    ['"Ada, L." <ada@example.com>', { name: 'Ada, L.', address: 'ada@example.com' }],
    ['Zoë <zoe@exämple.com>', { name: 'Zoë', address: 'zoe@exämple.com' }],
    ['nope', null],
    ['a@b.c, d@e.f', null],
    ['Ada <ada@example.com>\r\nBcc: x@y.z', null],
  ])('%s', (input, expected) => {
    expect(parseAddress(input)).toEqual(expected)
  })
})
