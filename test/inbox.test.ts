import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WaitTimeoutError } from '../src/index.js'
import { INBOX_TEMPLATES } from './helpers/inbox-templates.js'
import { startTestSandbox, type TestSandbox } from './helpers/sandbox.js'

/** docs/testing.md#inboxes, inboxes: an address of a test's own, its mail only, waits that name it. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox(INBOX_TEMPLATES)
})
afterAll(() => sandbox?.close())

async function send(to: string, template: string, templateVariables: object = {}) {
  const response = await sandbox.send({
    template,
    from: 'Acme <hello@acme.test>',
    to,
    subject: template,
    templateVariables,
  })
  expect(response.status).toBe(201)
}

describe('sandbox.inbox()', () => {
  it('gives each inbox a unique address, inbox-<id>@example.com or the pattern given', () => {
    const a = sandbox.inbox()
    const b = sandbox.inbox()
    expect(a.address).toMatch(/^inbox-[0-9a-z]{10}@example\.com$/)
    expect(b.address).not.toBe(a.address)
    expect(sandbox.inbox({ address: 'ada+{id}@acme.test' }).address).toMatch(
      /^ada\+[0-9a-z]{10}@acme\.test$/,
    )
    expect(() => sandbox.inbox({ address: 'no-at-sign-{id}' })).toThrow(TypeError)
  })

  it('keeps inboxes apart when tests run side by side', async () => {
    const runs = Array.from({ length: 8 }, async (_, i) => {
      const inbox = sandbox.inbox()
      // Wait first, then act, as a test does; the others send meanwhile.
      const code = inbox.waitForCode({ timeout: 10_000 })
      const link = inbox.waitForLink({ text: 'reset', timeout: 10_000 })
      await send(inbox.address, 'welcome')
      await send(inbox.address, 'sign-in', { code: `${100000 + i}` })
      await send(inbox.address, 'reset', { url: `https://acme.test/reset?run=${i}` })
      expect(await code).toBe(`${100000 + i}`)
      expect(await link).toBe(`https://acme.test/reset?run=${i}`)
      const mine = await inbox.messages()
      expect(mine.map((m) => m.template).sort()).toEqual(['reset', 'sign-in', 'welcome'])
      expect(mine.every((m) => m.to.every((to) => to.address === inbox.address))).toBe(true)
      return inbox
    })
    const inboxes = await Promise.all(runs)
    await inboxes[0]!.clear()
    expect(await inboxes[0]!.messages()).toEqual([])
    expect(await inboxes[1]!.messages()).toHaveLength(3)
  })

  it('waitForLink passes over a newer message without the link, and waits for one that has it', async () => {
    const inbox = sandbox.inbox()
    await send(inbox.address, 'reset', { url: 'https://acme.test/reset?old' })
    await send(inbox.address, 'welcome')
    // Stored ones count: the newest that has a matching link.
    expect(await inbox.waitForLink({ text: /reset/i })).toBe('https://acme.test/reset?old')
    expect(await inbox.waitForLink()).toBe('https://acme.test/app')
    expect(await inbox.waitForLink({ href: 'HELP' })).toBe('https://acme.test/help')
    // after: 'now' leaves them out; a message without the link does not end the wait.
    const next = inbox.waitForLink({ text: 'reset', after: 'now', timeout: 10_000 })
    await send(inbox.address, 'welcome')
    await send(inbox.address, 'reset', { url: 'https://acme.test/reset?new' })
    expect(await next).toBe('https://acme.test/reset?new')
  })

  it('a wait that times out names the address and says nothing arrived', async () => {
    const inbox = sandbox.inbox()
    const error = await inbox.waitForMessage({ timeout: 50 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaitTimeoutError)
    expect((error as Error).message).toContain(inbox.address)
    expect((error as Error).message).toContain(`Nothing arrived for ${inbox.address}.`)
  })

  it('waitForLink and waitForCode time out naming the address, what did arrive and the rejected sends to it', async () => {
    const inbox = sandbox.inbox()
    await send(inbox.address, 'welcome')
    // A send to it that was refused: the sign-in template needs `code`.
    const refused = await sandbox.send({
      template: 'sign-in',
      from: 'a@acme.test',
      to: inbox.address,
      subject: 'Your code',
    })
    expect(refused.status).toBe(422)
    const link = await inbox.waitForLink({ text: 'reset', timeout: 50 }).catch((e: unknown) => e)
    expect(link).toBeInstanceOf(WaitTimeoutError)
    const message = (link as Error).message
    expect(message).toContain(inbox.address)
    // What was waited for, what came, and what it lacked: no sentence says nothing matched.
    expect(message).toContain(
      `No message matching {"recipient":"${inbox.address}"} with a link (text reset) arrived within 50 ms.`,
    )
    expect(message).toContain(
      `${inbox.address} received 1 message, none with a link (text reset): "welcome"`,
    )
    expect(message).toContain('missing_variables')
    const code = await inbox.waitForCode({ timeout: 50 }).catch((e: unknown) => e)
    expect((code as Error).message).toContain('with a code arrived within 50 ms')
    expect((code as Error).message).toContain('none with a code')
    expect((code as Error).message).toContain('missing_variables')
    // Another inbox's rejected sends are not this one's.
    const other = sandbox.inbox()
    const quiet = await other.waitForCode({ timeout: 50 }).catch((e: unknown) => e)
    expect((quiet as Error).message).not.toContain('missing_variables')
  })
})
