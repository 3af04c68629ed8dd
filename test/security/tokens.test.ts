import { describe, expect, it } from 'vitest'
import { matchesExactToken } from '../../src/api/auth.js'
import { startTestSandbox } from '../helpers/sandbox.js'

/**
 * --token: exact tokens, compared in constant time (SHA-256 digests, timingSafeEqual, every
 * token compared). Timing itself is not measured here (HTTP noise dwarfs it); these pin the
 * behaviour the constant-time compare must keep.
 */

describe('exact tokens', () => {
  it('accepts each --token exactly, and nothing near it', async () => {
    const sandbox = await startTestSandbox(
      { 'welcome.liquid': 'Hi' },
      { token: ['sandbox_exact_one', 'ci-token-two'] },
    )
    try {
      const status = async (token: string) =>
        (await sandbox.api('/templates/welcome', { auth: token })).status
      expect(await status('sandbox_exact_one')).toBe(200)
      expect(await status('ci-token-two')).toBe(200)
      for (const near of [
        'sandbox_exact_on',
        'sandbox_exact_one1',
        'SANDBOX_EXACT_ONE',
        'ci-token-tw',
        'sandbox_other',
      ])
        expect(await status(near), near).toBe(403)
    } finally {
      await sandbox.close()
    }
  })

  it('matchesExactToken compares whole tokens of any length', () => {
    expect(matchesExactToken('a', ['a'])).toBe(true)
    expect(matchesExactToken('a', ['b', 'a'])).toBe(true)
    expect(matchesExactToken('a', ['aa'])).toBe(false)
    expect(matchesExactToken('', ['a'])).toBe(false)
    expect(matchesExactToken('x'.repeat(10_000), ['x'.repeat(10_000)])).toBe(true)
    expect(matchesExactToken('a', [])).toBe(false)
  })
})
