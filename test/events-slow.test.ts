import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({ 'big.liquid': '<p>{{ filler }}</p>' })
  })
  afterAll(() => sandbox?.close())

  const subscribers = async () =>
    ((await (await fetch(`${sandbox.url}/_sandbox/api/health`)).json()) as { subscribers: number })
      .subscribers

  describe('a slow event-stream client', () => {
    it('never holds up sends, and is dropped once it falls too far behind', async () => {
      const before = await subscribers()
      // A client that connects and then never reads a byte.
      const url = new URL(sandbox.url)
      const socket = connect({ host: url.hostname, port: Number(url.port) })
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
      // The stream's first bytes (its head and `: connected`) come once it is subscribed; from
      // then on the client reads nothing more.
      const subscribed = new Promise<void>((resolve) => socket.once('data', () => resolve()))
      socket.write(`GET /_sandbox/api/events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`)
      await subscribed
      socket.pause()
      expect(await subscribers()).toBe(before + 1)

      // Each event carries ~20 KB of HTML: far more than the socket buffers can hold.
      const filler = 'x'.repeat(20_000)
      const body = {
        template: 'big',
        from: 'a@acme.test',
        to: 'b@example.com',
        subject: 's',
        templateVariables: { filler },
      }
      let sent = 0
      for (let batch = 0; batch < 75; batch++) {
        const responses = await Promise.all(Array.from({ length: 16 }, () => sandbox.send(body)))
        for (const response of responses) {
          expect(response.status).toBe(201)
          await response.arrayBuffer()
          sent++
        }
      }
      expect(sent).toBe(1200)
      // The stream is let go as a frame is queued past its 8 MiB backlog (some 400 sends in),
      // synchronously: with all 1200 answered, it is gone already.
      expect(await subscribers()).toBe(before)
      socket.destroy()
    }, 60_000)
  })
})
