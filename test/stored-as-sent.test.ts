import { afterAll, beforeAll, expect, it } from 'vitest'
import { jsonOf } from './helpers/http.js'
import type { TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

// JSON allows a NUL character ("\u0000") in any string, and a send may carry one. PostgreSQL's
// text holds none and its jsonb refuses the escape: on that store such a send was a 500.
onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({ 'hello.liquid': '---\nsubject: x\n---\n<p>Hi {{ name }}</p>' })
  })
  afterAll(() => sandbox?.close())
  const send = (subject: string, name: string) =>
    sandbox.send({
      template: 'hello',
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject,
      templateVariables: { name, note: 'a\u0000b' },
    })

  it('a send with NUL characters is stored and read back as sent, and found by its filters', async () => {
    const sent = await send('Re\u0000ceipt', 'A\u0000da')
    expect(sent.status).toBe(201)
    const { id } = await jsonOf(sent)
    const record = await jsonOf(sandbox.api(`/_sandbox/api/messages/${id}`))
    expect(record).toMatchObject({
      subject: 'Re\u0000ceipt',
      templateVariables: { name: 'A\u0000da', note: 'a\u0000b' },
    })
    expect(record.html).toContain('Hi A\u0000da')
    expect(await send('Plain', 'Bob').then((r) => r.status)).toBe(201)
    // A filter holds no NUL (400, below); the text beside one still matches.
    const found = await jsonOf(sandbox.api('/_sandbox/api/messages?subject=ceipt'))
    expect(found.messages.map((m: { id: string }) => m.id)).toEqual([id])
  })

  it('the keys of the variables come back in the order they were sent', async () => {
    const sent = await sandbox.send({
      template: 'hello',
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject: 'Order',
      templateVariables: { zeta: 1, name: 'Ada', alpha: { z: 1, a: 2 }, mid: [3] },
    })
    const record = await jsonOf(sandbox.api(`/_sandbox/api/messages/${(await jsonOf(sent)).id}`))
    expect(Object.keys(record.templateVariables)).toEqual(['zeta', 'name', 'alpha', 'mid'])
    expect(Object.keys(record.templateVariables.alpha)).toEqual(['z', 'a'])
  })

  it('a NUL character in a filter or a suppression lookup is 400; in a fault match it is kept as sent', async () => {
    for (const path of [
      '/_sandbox/api/messages?to=%00',
      '/_sandbox/api/messages?recipient=a%00%40example.com',
      '/_sandbox/api/messages/wait?subject=%00&timeout=0',
      '/_sandbox/api/suppressions?address=a%00%40example.com',
    ]) {
      const response = await sandbox.api(path)
      expect(response.status, path).toBe(400)
      expect((await jsonOf(response)).error.code, path).toBe('invalid_parameter')
    }
    const armed = await sandbox.api('/_sandbox/api/faults', {
      method: 'POST',
      json: { status: 503, match: { to: 'nobody\u0000' } },
    })
    expect(armed.status).toBe(201)
    const listed = await jsonOf(sandbox.api('/_sandbox/api/faults'))
    expect(listed.faults[0].match.to).toBe('nobody\u0000')
    // The fault does not match this send: it goes through.
    expect((await send('After', 'Ada')).status).toBe(201)
  })
})
