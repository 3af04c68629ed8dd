import { describe, expect, it } from 'vitest'
import { copyJson } from '../../src/lib/json.js'

describe('copyJson', () => {
  it('copies every object and array level, and keeps the values', () => {
    const value = { a: [1, { b: 'x' }], c: null, d: { e: true } }
    const copy = copyJson(value)
    expect(copy).toEqual(value)
    expect(copy).not.toBe(value)
    expect(copy.a).not.toBe(value.a)
    expect(copy.a[1]).not.toBe(value.a[1])
    expect(copy.d).not.toBe(value.d)
  })

  it('keeps a "__proto__" key as a key, never as the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>
    const copy = copyJson(value)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__'])
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined()
  })
})
