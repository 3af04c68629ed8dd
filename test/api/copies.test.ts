import type { MessageRecord, Sendbox } from 'sendbox'
import { beforeEach, describe, expect, it } from 'vitest'
import { onEachStore, sendboxForSuite } from '../helpers/stores.js'

/**
 * What the programmatic API hands out is the caller's to change: a test that edits a record
 * must not change what the inspector API, the inbox or the next call serve (the store's caches
 * assume its records never change).
 */

onEachStore((store) => {
  let sandbox: Sendbox
  sendboxForSuite(store, 'copies', (started) => {
    sandbox = started
  })
  beforeEach(() => sandbox.clear())

  async function send(to: string): Promise<string> {
    const response = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'welcome',
        from: 'Acme <hello@acme.test>',
        to,
        subject: 'Welcome',
        templateVariables: { name: 'Ada', nested: { list: [1, 2] } },
      }),
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  /** Changes every level of a record, the way a careless test might. */
  function vandalise(record: MessageRecord): void {
    record.subject = 'changed'
    record.to[0]!.address = 'mallory@example.com'
    record.from.name = 'Mallory'
    ;(record.templateVariables.nested as { list: number[] }).list.push(3)
    record.recipients[0]!.status = 'bounced'
    record.recipients[0]!.events.push({ type: 'clicked', at: record.createdAt })
  }

  async function expectUntouched(id: string): Promise<void> {
    const served = (await (
      await fetch(`${sandbox.url}/_sandbox/api/messages/${id}`)
    ).json()) as MessageRecord
    const [listed] = await sandbox.messages()
    for (const record of [served, listed!]) {
      expect(record.subject).toBe('Welcome')
      expect(record.to[0]!.address).toBe('ada@example.com')
      expect(record.from.name).toBe('Acme')
      expect(record.templateVariables).toEqual({ name: 'Ada', nested: { list: [1, 2] } })
      expect(record.recipients[0]!.status).not.toBe('bounced')
      expect(record.recipients[0]!.events.map((e) => e.type)).not.toContain('clicked')
    }
  }

  describe('records handed out are copies', () => {
    it('messages()', async () => {
      const id = await send('ada@example.com')
      vandalise((await sandbox.messages())[0]!)
      await expectUntouched(id)
    })

    it('waitForMessage(), for a stored match and for one that arrives', async () => {
      const id = await send('ada@example.com')
      vandalise(await sandbox.waitForMessage({ to: 'ada@' }))
      await expectUntouched(id)
      await sandbox.clear()
      const arriving = sandbox.waitForMessage({ to: 'ada@', after: 'now' })
      const second = await send('ada@example.com')
      vandalise(await arriving)
      await expectUntouched(second)
    })

    it('simulate()', async () => {
      const id = await send('ada@example.com')
      await sandbox.waitForMessage({ to: 'ada@', status: 'delivered' })
      vandalise(await sandbox.simulate(id, { type: 'opened' }))
      await expectUntouched(id)
    })
  })
})
