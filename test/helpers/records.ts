import { initialRecipients } from '../../src/store/recipients.js'
import type { MessageRecord } from '../../src/store/types.js'

/**
 * A message record as a send to `address` stores it, for tests that drive a store or the domain
 * without the HTTP API.
 *
 * @example
 * await store.append(messageRecord('ada@example.com'))
 */
export function messageRecord(address: string, at = new Date().toISOString()): MessageRecord {
  const to = [{ name: null, address }]
  return {
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
}
