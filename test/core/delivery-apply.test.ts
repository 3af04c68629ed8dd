import { describe, expect, it } from 'vitest'
import { createStepApplier } from '../../src/core/delivery-apply.js'
import { createEventBus } from '../../src/core/events.js'
import type { MessageStore } from '../../src/store/types.js'
import { messageRecord } from '../helpers/records.js'

const at = '2026-11-26T10:00:00.000Z'
const message = messageRecord('bounce@example.com', at)

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
