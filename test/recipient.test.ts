import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { MessageRecord } from '../src/index.js'
import type { TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

/** docs/testing.md#python-or-any-language-recipient-and-links, `recipient=`: an exact, case-insensitive address, where `to` is a substring. */

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({ 'hello.liquid': '<p>Hello</p>' })
  })
  afterAll(() => sandbox?.close())
  beforeEach(() => sandbox.clear())

  async function send(to: string | string[], subject = 'Hi'): Promise<string> {
    const response = await sandbox.send({ template: 'hello', from: 'a@acme.test', to, subject })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  const list = async (query: string) =>
    (await (await sandbox.api(`/_sandbox/api/messages?${query}`)).json()) as {
      messages: MessageRecord[]
      total: number
    }

  describe('recipient=', () => {
    it('matches the address exactly, case-insensitively, where to= matches its substring neighbour too', async () => {
      const ada = await send('Ada <ada@example.com>')
      const neighbour = await send('lovelace-ada@example.com')
      const both = await send(['bob@example.com', 'ADA@EXAMPLE.COM'])
      expect((await list('to=ada@example.com')).total).toBe(3)
      const exact = await list('recipient=Ada@Example.com')
      expect(exact.messages.map((m) => m.id)).toEqual([both, ada])
      expect(exact.total).toBe(2)
      expect((await list('recipient=lovelace-ada@example.com')).messages.map((m) => m.id)).toEqual([
        neighbour,
      ])
      // The Name <address> form counts by its address; a part of an address matches nothing.
      expect((await list(`recipient=${encodeURIComponent('A <ada@example.com>')}`)).total).toBe(2)
      expect((await list('recipient=example.com')).total).toBe(0)
      // The programmatic filter is the same.
      expect((await sandbox.messages({ recipient: 'ada@example.com' })).map((m) => m.id)).toEqual([
        both,
        ada,
      ])
    })

    it('/wait answers only for the exact address, and times out for its neighbour', async () => {
      await send('lovelace-ada@example.com')
      const timedOut = await sandbox.api(
        '/_sandbox/api/messages/wait?recipient=ada@example.com&timeout=50',
      )
      expect(timedOut.status).toBe(404)
      expect(((await timedOut.json()) as { error: { code: string } }).error.code).toBe(
        'wait_timeout',
      )
      const waiting = sandbox.api(
        '/_sandbox/api/messages/wait?recipient=ada@example.com&timeout=10000',
      )
      const waitingInProcess = sandbox.waitForMessage({
        recipient: 'ada@example.com',
        after: 'now',
      })
      await send('lovelace-ada@example.com', 'not this one')
      const id = await send('ada@example.com', 'this one')
      expect(((await (await waiting).json()) as MessageRecord).id).toBe(id)
      expect((await waitingInProcess).id).toBe(id)
    })

    it('DELETE clears only the exact address', async () => {
      await send('ada@example.com')
      const neighbour = await send('lovelace-ada@example.com')
      expect(
        (
          await sandbox.api('/_sandbox/api/messages?recipient=ADA@example.com', {
            method: 'DELETE',
          })
        ).status,
      ).toBe(204)
      expect((await list('')).messages.map((m) => m.id)).toEqual([neighbour])
      await sandbox.clear({ recipient: 'lovelace-ada@example.com' })
      expect((await list('')).total).toBe(0)
    })

    it('is a documented query parameter of the list, /wait and DELETE', async () => {
      const document = (await (await sandbox.api('/_sandbox/api/openapi.json')).json()) as {
        paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>
      }
      for (const [path, method] of [
        ['/_sandbox/api/messages', 'get'],
        ['/_sandbox/api/messages', 'delete'],
        ['/_sandbox/api/messages/wait', 'get'],
      ] as const)
        expect(document.paths[path]![method]!.parameters).toContainEqual(
          expect.objectContaining({ name: 'recipient', in: 'query' }),
        )
    })
  })
})
