import { createServer, type Server, Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { connectSendbox } from '../src/index.js'
import type { TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

/**
 * Where a wait counts from (issue 31): `after: 'now'` is the moment of the call, a cursor is a
 * position the log hands out, and neither lets an older message in, whether it is stored or
 * only has its delivery settle later.
 */

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start(
      { 'code.liquid': '<p>{{ text }}</p>' },
      // A delivery that settles well after the send: the window the stale status event came in.
      { deliveryDelay: 300 },
    )
  })
  afterAll(() => sandbox?.close())

  const send = async (to: string, text = 'Hello') => {
    const response = await sandbox.send({
      template: 'code',
      from: 'a@acme.test',
      to,
      subject: 'Hi',
      templateVariables: { text },
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }
  const statusOf = async (id: string) => (await sandbox.messages()).find((m) => m.id === id)?.status
  const subscribers = async () =>
    ((await (await fetch(`${sandbox.url}/_sandbox/api/health`)).json()) as { subscribers: number })
      .subscribers

  describe("after: 'now' and an older message whose delivery settles later", () => {
    it('in-process: the older one settling does not answer the wait; the next one sent does', async () => {
      const older = await send('settle@example.com')
      const next = sandbox.waitForMessage({ to: 'settle@example.com', after: 'now', timeout: 5000 })
      await expect.poll(() => statusOf(older), { timeout: 5000 }).toBe('delivered')
      const newer = await send('settle@example.com')
      expect((await next).id).toBe(newer)
    })

    it('GET …/wait?after=now: the same', async () => {
      const older = await send('settle-http@example.com')
      const before = await subscribers()
      const waiting = fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=settle-http@example.com&after=now&timeout=5000`,
      )
      await expect.poll(subscribers, { timeout: 5000 }).toBe(before + 1)
      await expect.poll(() => statusOf(older), { timeout: 5000 }).toBe('delivered')
      const newer = await send('settle-http@example.com')
      expect(((await (await waiting).json()) as { id: string }).id).toBe(newer)
    })
  })

  describe('a cursor the server hands out', () => {
    it('a list answers its cursor; ?after= lists only what was stored since; a wait after it answers at once', async () => {
      const older = await send('cursor@example.com')
      const listed = (await (
        await fetch(`${sandbox.url}/_sandbox/api/messages?to=cursor@example.com&limit=1`)
      ).json()) as { messages: Array<{ id: string }>; cursor: string }
      expect(listed.messages[0]?.id).toBe(older)
      const newer = await send('cursor@example.com')
      const since = (await (
        await fetch(
          `${sandbox.url}/_sandbox/api/messages?to=cursor@example.com&after=${listed.cursor}`,
        )
      ).json()) as { messages: Array<{ id: string }>; total: number }
      expect(since.messages.map((m) => m.id)).toEqual([newer])
      // The wait is sent after the send, and still finds it: it counts from the cursor.
      const waited = await fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=cursor@example.com&after=${listed.cursor}&timeout=100`,
      )
      expect(((await waited.json()) as { id: string }).id).toBe(newer)
    })

    it('sandbox.cursor(): a wait after it takes only what came since', async () => {
      await send('mark@example.com')
      const from = await sandbox.cursor()
      const newer = await send('mark@example.com')
      expect((await sandbox.waitForMessage({ to: 'mark@example.com', after: from })).id).toBe(newer)
    })
  })

  /**
   * A TCP relay that holds what the client sends until `release()`: the test's client reaching the
   * sandbox over a slower path than the app's (a container, a shared sandbox), made certain: its
   * request arrives after the app's send, whatever the load.
   */
  async function slowPath(target: string) {
    const { hostname, port } = new URL(target)
    const sockets = new Set<Socket>()
    let held: Array<() => void> | null = []
    const server: Server = createServer((client) => {
      const upstream = new Socket()
      sockets.add(client).add(upstream)
      upstream.connect(Number(port), hostname)
      client.on('data', (chunk) => {
        if (held) held.push(() => upstream.write(chunk))
        else upstream.write(chunk)
      })
      upstream.on('data', (chunk) => client.write(chunk))
      const end = () => {
        client.destroy()
        upstream.destroy()
      }
      client.on('close', end).on('error', end)
      upstream.on('close', end).on('error', end)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address() as { port: number }
    return {
      url: `http://127.0.0.1:${address.port}`,
      /** Whether a request is being held (the client has sent it). */
      holding: () => (held?.length ?? 0) > 0,
      release() {
        for (const write of held ?? []) write()
        held = null
      },
      close: () => {
        for (const socket of sockets) socket.destroy()
        return new Promise<void>((resolve) => server.close(() => resolve()))
      },
    }
  }

  describe('connectSendbox over a path slower than the app’s', () => {
    const closers: Array<() => Promise<void>> = []
    afterEach(async () => {
      for (const close of closers.splice(0)) await close()
    })

    it("start the wait, then send: after: 'now' counts from the call, not from the request's arrival", async () => {
      const path = await slowPath(sandbox.url)
      const client = connectSendbox(path.url)
      closers.push(path.close, () => client.close())
      const next = client.waitForMessage({ to: 'slow@example.com', after: 'now', timeout: 3000 })
      await expect.poll(path.holding).toBe(true)
      const id = await send('slow@example.com')
      // Settled too before the wait arrives: no later event of it can stand in for the message.
      await expect.poll(() => statusOf(id), { timeout: 5000 }).toBe('delivered')
      path.release()
      expect((await next).id).toBe(id)
    })

    it('cursor(), act, then wait: exact whatever the clocks', async () => {
      const path = await slowPath(sandbox.url)
      path.release()
      const client = connectSendbox(path.url)
      closers.push(path.close, () => client.close())
      await send('slow-cursor@example.com')
      const from = await client.cursor()
      const id = await send('slow-cursor@example.com')
      expect((await client.waitForMessage({ to: 'slow-cursor@example.com', after: from })).id).toBe(
        id,
      )
    })

    it('an inbox: start waitForCode, then send', async () => {
      const path = await slowPath(sandbox.url)
      const client = connectSendbox(path.url)
      closers.push(path.close, () => client.close())
      const inbox = client.inbox()
      await send(inbox.address, 'no code here')
      const code = inbox.waitForCode({ after: 'now', timeout: 3000 })
      await expect.poll(path.holding).toBe(true)
      await send(inbox.address, 'Your code: 482913')
      path.release()
      expect(await code).toBe('482913')
    })
  })

  describe('an inbox and two messages of the same millisecond', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('waitForCode finds the second one (its cursor is the log’s position, not createdAt + 1 ms)', async () => {
      // Every message of this test is stored in the same millisecond.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
      const inbox = sandbox.inbox()
      await send(inbox.address, 'no code here')
      const before = await subscribers()
      const code = inbox.waitForCode({ timeout: 3000 })
      // The inbox has looked at the first one (and found no code) once its wait is registered.
      await expect.poll(subscribers).toBe(before + 1)
      await send(inbox.address, 'Your code: 482913')
      expect(await code).toBe('482913')
    })
  })
})
