import { describe, expect, it } from 'vitest'
import { isValidSlug } from '../../src/templates/index.js'
import { slugOfFileName } from '../../src/templates/slug.js'
import { nearest as suggestSlugs } from '../../src/lib/suggest.js'

describe('isValidSlug', () => {
  it('accepts letters, digits, -, _ and .', () => {
    for (const slug of [
      'welcome',
      'order-receipt',
      'a_b',
      'v1.2',
      'A',
      'x'.repeat(128),
      '.x',
      '...',
    ]) {
      expect(isValidSlug(slug), slug).toBe(true)
    }
  })

  it('rejects empty, too long, . and .., separators, NUL and other characters', () => {
    for (const slug of [
      '',
      'x'.repeat(129),
      '.',
      '..',
      'a/b',
      'a\\b',
      '../x',
      'a\0b',
      'a b',
      'a%2Fb',
      'é',
      'a:b',
    ]) {
      expect(isValidSlug(slug), JSON.stringify(slug)).toBe(false)
    }
  })
})

describe('slugOfFileName', () => {
  it('takes .liquid and .html files with valid slugs', () => {
    expect(slugOfFileName('welcome.liquid')).toBe('welcome')
    expect(slugOfFileName('welcome.en.html')).toBe('welcome.en')
  })

  it('leaves out partials, hidden files, other extensions and invalid names', () => {
    for (const name of [
      '_footer.liquid',
      '.welcome.liquid',
      'notes.txt',
      'welcome.liquid~',
      'a b.liquid',
      '..liquid',
    ]) {
      expect(slugOfFileName(name), name).toBeNull()
    }
  })
})

describe('nearest (slug suggestions)', () => {
  const slugs = ['welcome', 'password-reset', 'order-receipt', 'order-shipped', 'invoice']

  it('suggests near slugs by edit distance, nearest first', () => {
    expect(suggestSlugs('welcom', slugs)).toEqual(['welcome'])
    expect(suggestSlugs('Welcome', slugs)).toEqual(['welcome'])
    expect(suggestSlugs('pasword-reset', slugs)).toEqual(['password-reset'])
  })

  it('suggests slugs containing the query', () => {
    expect(suggestSlugs('order', slugs)).toEqual(['order-receipt', 'order-shipped'])
  })

  it('suggests nothing far away, and at most three', () => {
    expect(suggestSlugs('zzzzzzzz', slugs)).toEqual([])
    expect(suggestSlugs('', slugs)).toEqual([])
    expect(suggestSlugs('a', ['a1', 'a2', 'a3', 'a4'])).toHaveLength(3)
  })
})
