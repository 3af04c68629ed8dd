import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WaitTimeoutError } from '../src/index.js'
import { errorOf, type TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

/**
 * The stale match: a wait must not be satisfied by mail sent before it, when asked so. `after:
 * 'now'` (in-process) and `?after=now` (HTTP) take only messages stored after the wait began;
 * without it, a wait answers with the newest stored match, as docs/ci.md#waits-and-old-mail says.
 */

onEachStore((store) => {
  let sandbox: TestSandbox
  let oldId: string
  beforeAll(async () => {
    sandbox = await store.start({ 'reset.liquid': '<p>Reset: {{ url }}</p>' })
    // "A password reset sent 7 minutes earlier", by an earlier test.
    const response = await sandbox.send({
      template: 'reset',
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject: 'Reset',
      templateVariables: { url: 'https://acme.test/old' },
    })
    oldId = ((await response.json()) as { id: string }).id
  })
  afterAll(() => sandbox?.close())

  const sendReset = async (url: string) => {
    const response = await sandbox.send({
      template: 'reset',
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject: 'Reset',
      templateVariables: { url },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }
  const subscribers = async () =>
    ((await (await fetch(`${sandbox.url}/_sandbox/api/health`)).json()) as { subscribers: number })
      .subscribers

  describe("waitForMessage({ after: 'now' })", () => {
    it('is not satisfied by a match sent before the call, and says that one was left out', async () => {
      const error = await sandbox
        .waitForMessage({ to: 'ada@example.com', template: 'reset', after: 'now', timeout: 200 })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(WaitTimeoutError)
      expect((error as Error).message).toContain(
        '1 matching message was already in the log before the wait began',
      )
    })

    it('resolves with the first match stored after the call', async () => {
      const next = sandbox.waitForMessage({ to: 'ada@example.com', after: 'now', timeout: 5000 })
      const id = await sendReset('https://acme.test/new')
      const message = await next
      expect(message.id).toBe(id)
      expect(message.html).toContain('https://acme.test/new')
    })

    it('without after, the newest stored match answers at once (docs/ci.md#waits-and-old-mail)', async () => {
      const message = await sandbox.waitForMessage({ to: 'ada@example.com', timeout: 100 })
      expect(message.id > oldId).toBe(true)
    })

    it('after must be "now" or a cursor', async () => {
      await expect(
        sandbox.waitForMessage({ to: 'ada@example.com', after: 'later' as 'now' }),
      ).rejects.toThrow('after must be "now" or a cursor')
    })
  })

  describe('GET /_sandbox/api/messages/wait?after=now', () => {
    it('is a 404 wait_timeout although an older match is stored, and the message says so', async () => {
      const response = await fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=ada@example.com&after=now&timeout=200`,
      )
      expect(response.status).toBe(404)
      const error = await errorOf(response)
      expect(error.code).toBe('wait_timeout')
      expect(error.message).toMatch(
        /matching messages? (was|were) already in the log before the wait began/,
      )
    })

    it('answers with a message that arrives after it began', async () => {
      const before = await subscribers()
      const waiting = fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=ada@example.com&after=now&timeout=5000`,
      )
      await expect.poll(subscribers, { timeout: 5000 }).toBe(before + 1)
      const id = await sendReset('https://acme.test/newest')
      const response = await waiting
      expect(response.status).toBe(200)
      expect(((await response.json()) as { id: string }).id).toBe(id)
    })

    it('without after, it answers at once with the newest stored match', async () => {
      const response = await fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=ada@example.com&timeout=100`,
      )
      expect(response.status).toBe(200)
    })

    it('a bad after is 400 naming the parameter', async () => {
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages/wait?after=yesterday`)
      expect(response.status).toBe(400)
      const error = await errorOf(response)
      expect(error.code).toBe('invalid_parameter')
      expect(error.message).toContain('"after"')
    })
  })
})
