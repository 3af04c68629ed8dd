import { describe, expect, it } from 'vitest'
import { createStepApplier } from '../../src/core/delivery-apply.js'
import { createEventBus } from '../../src/core/events.js'
import { initialRecipients } from '../../src/store/recipients.js'
import type { MessageRecord, MessageStore } from '../../src/store/types.js'

const at = '2026-11-26T10:00:00.000Z'
const to = [{ name: null, address: 'bounce@example.com' }]
const message: MessageRecord = {
  id: 'msg_01KB0000000000000000000000',
  status: 'sent',
  createdAt: at,
  project: 'default',
  tokenHint: '00000000',
  template: 'hello',
  from: { name: null, address: 'shop@acme.test' },
  to,
  subject: 'Hi',
  templateVariables: {},
  html: '<p>Hi</p>',
  text: 'Hi',
  warnings: [],
  recipients: initialRecipients(to, at),
}

describe('applying a bounce', () => {
  it('writes the suppression before the bounced state: whoever sees the bounce finds the address listed', async () => {
    const writes: string[] = []
    let suppressed: () => void = () => {}
    const log = {
      suppress: () =>
        new Promise<void>((resolve) => {
          writes.push('suppress')
          suppressed = () => {
            writes.push('suppression written')
            resolve()
          }
        }),
      addEvents: async () => {
        writes.push('addEvents')
        return message
      },
    } as unknown as MessageStore
    const apply = createStepApplier(
      { log, events: createEventBus() },
      { enqueue: async () => {} },
      () => false,
    )
    const applied = apply(message, [
      { recipient: 0, type: 'bounced', at, bounce: { type: 'hard' } },
    ])
    await new Promise(setImmediate)
    // The state is not written while the suppression is under way (a store writing both side by
    // side let a reader see the bounce without the suppression).
    expect(writes).toEqual(['suppress'])
    suppressed()
    await applied
    expect(writes).toEqual(['suppress', 'suppression written', 'addEvents'])
  })
})
