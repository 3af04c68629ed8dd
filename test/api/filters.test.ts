import type { Sendbox } from 'sendbox'
import { beforeEach, describe, expect, it } from 'vitest'
import { onEachStore, sendboxForSuite } from '../helpers/stores.js'

/**
 * A filter that cannot be read is refused, never taken for "no filter": `clear({ since:
 * 'tomorrow' })` once deleted every message, and so did a misspelt key from plain JavaScript.
 */

onEachStore((store) => {
  let sandbox: Sendbox
  sendboxForSuite(store, 'filters', (started) => {
    sandbox = started
  })

  async function send(to: string): Promise<void> {
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'welcome',
        from: 'Acme <hello@acme.test>',
        to,
        subject: 'Welcome',
        templateVariables: { name: 'Ada' },
      }),
    })
    expect(response.status).toBe(201)
  }

  beforeEach(async () => {
    await sandbox.clear()
    await send('ada@example.com')
    await send('bob@example.com')
  })

  // Plain JavaScript, or TypeScript through `as never`: what the types would have refused.
  const untyped = (filter: Record<string, unknown>) => filter as never

  describe('sandbox.clear(filter) refuses a filter it cannot read, and deletes nothing', () => {
    it.each([
      ['an unreadable since', { since: 'tomorrow' }, /since/],
      ['an impossible date', { since: '2026-13-45' }, /since/],
      [
        'a misspelt key',
        { templte: 'welcome' },
        /Unknown field "templte"\. Did you mean "template"\?/,
      ],
      ['a number where text goes', { to: 42 }, /to must be a string/],
      ['an unknown status', { status: 'gone' }, /status must be one of/],
    ])('%s', async (_, filter, message) => {
      const error = await sandbox.clear(untyped(filter)).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(/^sandbox\.clear\(\): the filter is not valid: /)
      expect((error as Error).message).toMatch(message)
      expect(await sandbox.messages()).toHaveLength(2)
    })

    it('a filter that is not an object', async () => {
      const error = await sandbox.clear('ada' as never).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TypeError)
      expect(await sandbox.messages()).toHaveLength(2)
    })

    it('a valid filter still clears its matches; keys left undefined count as absent', async () => {
      await sandbox.clear({ to: 'bob@', template: undefined })
      expect((await sandbox.messages()).map((m) => m.to[0]!.address)).toEqual(['ada@example.com'])
      await sandbox.clear({ since: '2000-01-01' })
      expect(await sandbox.messages()).toEqual([])
    })
  })

  describe('the other filtered reads refuse the same filters', () => {
    it('messages() and rejections() throw TypeError; waitForMessage() rejects with one', async () => {
      await expect(sandbox.messages(untyped({ since: 'tomorrow' }))).rejects.toThrow(TypeError)
      await expect(sandbox.rejections(untyped({ tempalte: 'x' }))).rejects.toThrow(
        /sandbox\.rejections\(\): .*Did you mean "template"/,
      )
      await expect(
        sandbox.waitForMessage(untyped({ tempalte: 'welcome', timeout: 10 })),
      ).rejects.toThrow(/sandbox\.waitForMessage\(\): .*Did you mean "template"/)
      for (const timeout of ['5000', -1, Number.NaN])
        await expect(sandbox.waitForMessage(untyped({ timeout }))).rejects.toThrow(
          /sandbox\.waitForMessage\(\): timeout must be a number of milliseconds/,
        )
    })
  })

  describe('DELETE /_sandbox/api/messages refuses what it cannot read, and deletes nothing', () => {
    it.each([
      ['since=tomorrow', 'since'],
      ['templte=welcome', 'templte'],
      ['to=ada&sinec=2026-01-01', 'sinec'],
    ])('?%s is a 400 invalid_parameter naming %s', async (query, parameter) => {
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages?${query}`, {
        method: 'DELETE',
      })
      expect(response.status).toBe(400)
      expect(response.headers.get('content-type')).toMatch(/^application\/json/)
      const body = (await response.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('invalid_parameter')
      expect(body.error.message).toContain(`"${parameter}"`)
      expect(await sandbox.messages()).toHaveLength(2)
    })

    it('a misspelt parameter is answered with the nearest one', async () => {
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages?templte=welcome`, {
        method: 'DELETE',
      })
      const body = (await response.json()) as { error: { message: string } }
      expect(body.error.message).toContain('(did you mean "template"?); nothing was deleted')
    })
  })
})
