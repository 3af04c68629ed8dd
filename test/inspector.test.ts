import { request } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { errorOf, type TestSandbox } from './helpers/sandbox.js'
import { jsonOf } from './helpers/http.js'
import { onEachStore } from './helpers/stores.js'

onEachStore((store) => {
  let sandbox: TestSandbox
  const send = (to: string, extra: Record<string, unknown> = {}, token?: string) =>
    sandbox.send(
      {
        template: 'welcome',
        from: 'Acme <hello@acme.test>',
        to,
        subject: 'Welcome aboard',
        templateVariables: { name: 'Ada', link: 'https://acme.test/start' },
        ...extra,
      },
      token,
    )

  beforeAll(async () => {
    sandbox = await store.start({
      'welcome.liquid': '<p>Hello {{ name }}</p><p><a href="{{ link }}">Start here</a></p>',
      'reset.liquid': 'Reset, {{ name }}',
    })
  })
  afterAll(() => sandbox?.close())
  beforeEach(async () => {
    await fetch(`${sandbox.url}/_sandbox/api/messages`, { method: 'DELETE' })
  })

  const list = async (query = '') =>
    (await (await fetch(`${sandbox.url}/_sandbox/api/messages${query}`)).json()) as {
      messages: Array<Record<string, any>>
      total: number
    }

  describe('GET /_sandbox/api/messages', () => {
    it('lists newest first with a total, and every filter narrows it', async () => {
      await send('Ada <ada@example.com>')
      await send('bob@example.com', { template: 'reset', subject: 'Reset your password' })
      await send(
        'Carol <carol@other.test>',
        { from: 'Zed <zed@acme.test>' },
        'sandbox_other_project_token',
      )
      const all = await list()
      expect(all.total).toBe(3)
      expect(all.messages.map((m) => m.to[0].address)).toEqual([
        'carol@other.test',
        'bob@example.com',
        'ada@example.com',
      ])

      expect((await list('?to=ADA')).total).toBe(1)
      expect((await list('?to=example.com')).total).toBe(2)
      expect((await list('?from=zed')).total).toBe(1)
      expect((await list('?template=reset')).total).toBe(1)
      expect((await list('?subject=password')).total).toBe(1)
      const project = all.messages[0]!.project
      expect((await list(`?project=${project}`)).total).toBe(1)
      expect(
        (await list(`?since=${encodeURIComponent(all.messages[1]!.createdAt)}`)).total,
      ).toBeGreaterThanOrEqual(2)
      expect((await list('?since=2999-01-01T00:00:00Z')).total).toBe(0)
      const page = await list('?limit=1&offset=1')
      expect(page.total).toBe(3)
      expect(page.messages.map((m) => m.to[0].address)).toEqual(['bob@example.com'])
    })

    it.each([
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['since=yesterday', 'since'],
    ])('a bad value (%s) is 400 naming the parameter', async (query, name) => {
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages?${query}`)
      expect(response.status).toBe(400)
      const error = await errorOf(response)
      expect(error.code).toBe('invalid_parameter')
      expect(error.message).toContain(`"${name}"`)
    })

    it('limit defaults to 50 and goes up to 1000', async () => {
      await Promise.all(Array.from({ length: 55 }, (_, i) => send(`u${i}@example.com`)))
      expect((await list()).messages).toHaveLength(50)
      expect((await list('?limit=1000')).messages).toHaveLength(55)
    })
  })

  describe('one message', () => {
    it('GET the record, its html (sandboxed), text and eml; 404 message_not_found', async () => {
      const location = (await send('Ada <ada@example.com>')).headers.get('location')!
      const record = await jsonOf(fetch(`${sandbox.url}${location}`))
      expect(record.to).toEqual([{ name: 'Ada', address: 'ada@example.com' }])

      const html = await fetch(`${sandbox.url}${location}/html`)
      expect(html.headers.get('content-type')).toContain('text/html')
      expect(html.headers.get('content-security-policy')).toMatch(/(^|; )sandbox/)
      expect(html.headers.get('content-security-policy')).not.toContain('allow-scripts')
      expect(await html.text()).toContain('<p>Hello Ada</p>')

      const text = await fetch(`${sandbox.url}${location}/text`)
      expect(text.headers.get('content-type')).toContain('text/plain')
      expect(await text.text()).toContain('Start here [https://acme.test/start]')

      const eml = await fetch(`${sandbox.url}${location}/eml`)
      expect(eml.headers.get('content-type')).toContain('message/rfc822')
      const source = await eml.text()
      expect(source).toMatch(/^From: Acme <hello@acme\.test>\r$/m)
      expect(source).toMatch(/^To: Ada <ada@example\.com>\r$/m)
      expect(source).toMatch(/^Subject: Welcome aboard\r$/m)
      expect(source).toMatch(/^Message-ID: <msg_\w+@sendbox\.local>\r$/m)
      expect(source).toContain('multipart/alternative')

      for (const suffix of ['', '/html', '/text', '/eml']) {
        const missing = await fetch(`${sandbox.url}/_sandbox/api/messages/msg_nope${suffix}`)
        expect(missing.status).toBe(404)
        expect((await errorOf(missing)).code).toBe('message_not_found')
      }
    })

    it('no header can be injected through the eml', async () => {
      // The subject cannot carry CR/LF (validation), but a display name with odd characters must be encoded, not break lines.
      const location = (await send('"Evil\\" Bcc: x@y.z" <ada@example.com>')).headers.get(
        'location',
      )!
      const source = await (await fetch(`${sandbox.url}${location}/eml`)).text()
      expect(source).not.toMatch(/^Bcc:/m)
    })

    it('DELETE one, DELETE filtered, DELETE all: 204', async () => {
      const a = (await send('ada@example.com')).headers.get('location')!
      await send('bob@example.com')
      await send('bob@other.test')
      const del = await fetch(`${sandbox.url}${a}`, { method: 'DELETE' })
      expect(del.status).toBe(204)
      expect((await fetch(`${sandbox.url}${a}`)).status).toBe(404)
      expect((await fetch(`${sandbox.url}${a}`, { method: 'DELETE' })).status).toBe(404)
      const filtered = await fetch(`${sandbox.url}/_sandbox/api/messages?to=other.test`, {
        method: 'DELETE',
      })
      expect(filtered.status).toBe(204)
      expect((await list()).messages.map((m) => m.to[0].address)).toEqual(['bob@example.com'])
      expect(
        (await fetch(`${sandbox.url}/_sandbox/api/messages`, { method: 'DELETE' })).status,
      ).toBe(204)
      expect((await list()).total).toBe(0)
    })
  })

  describe('GET /_sandbox/api/messages/wait', () => {
    it('answers at once with the newest match', async () => {
      await send('ada@example.com')
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages/wait?to=ada&timeout=100`)
      expect(response.status).toBe(200)
      expect((await jsonOf(response)).to[0].address).toBe('ada@example.com')
    })

    it('answers a stored match even with timeout=0: the look-up comes before the timeout', async () => {
      // On PostgreSQL the look-up is a query: a timer of 0 ms fired first and answered
      // 404 wait_timeout for a message that was there (test/pg/stores-agree.test.ts found it).
      await send('zero@example.com')
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${sandbox.url}/_sandbox/api/messages/wait?to=zero@&timeout=0`)
        expect(response.status).toBe(200)
      }
    })

    it("health's subscribers are the open streams and waits: 0 with none open, on either store", async () => {
      // The sandbox's own listeners (the delivery engine; on PostgreSQL, the publisher to the
      // other processes too) once counted: 1 on the log, 2 on PostgreSQL, so a script that read
      // `subscribers > 0` as "my wait is registered" went on before it was.
      await expect.poll(async () => (await health()).subscribers, { timeout: 5000 }).toBe(0)
    })

    it('waits for a message to arrive', async () => {
      const before = (await health()).subscribers
      const waiting = fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=late@example.com&timeout=5000`,
      )
      // The wait is registered once it subscribes to the bus: then a send can only come after it.
      await expect.poll(async () => (await health()).subscribers).toBe(before + 1)
      await send('other@example.com')
      await send('late@example.com')
      const response = await waiting
      expect(response.status).toBe(200)
      expect((await jsonOf(response)).to[0].address).toBe('late@example.com')
    })

    it('404 wait_timeout when none came', async () => {
      const started = Date.now()
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages/wait?to=never&timeout=300`)
      expect(response.status).toBe(404)
      expect((await errorOf(response)).code).toBe('wait_timeout')
      expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    })

    it('a bad timeout is 400 naming the parameter', async () => {
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages/wait?timeout=60001`)
      expect(response.status).toBe(400)
      expect((await errorOf(response)).message).toContain('"timeout"')
    })

    it('a client that disconnects is cleaned up', async () => {
      const subscribersBefore = await health()
      const url = new URL(`${sandbox.url}/_sandbox/api/messages/wait?to=nobody&timeout=60000`)
      const req = request(url)
      req.on('error', () => {})
      req.end()
      await expect
        .poll(async () => (await health()).subscribers, { timeout: 5000 })
        .toBe(subscribersBefore.subscribers + 1)
      req.destroy()
      await expect
        .poll(async () => (await health()).subscribers, { timeout: 5000 })
        .toBe(subscribersBefore.subscribers)
    })
  })

  async function health() {
    return (await (await fetch(`${sandbox.url}/_sandbox/api/health`)).json()) as {
      subscribers: number
      messages: number
    }
  }

  describe('GET /_sandbox/api/events', () => {
    it('streams message, deleted and cleared events to every client', async () => {
      const readers = await Promise.all([openStream(), openStream()])
      await send('ada@example.com')
      await fetch(`${sandbox.url}/_sandbox/api/messages`, { method: 'DELETE' })
      for (const reader of readers) {
        const events = await reader.until((events) => events.some((e) => e.event === 'cleared'))
        const message = events.find((e) => e.event === 'message')
        expect(JSON.parse(message!.data).to[0].address).toBe('ada@example.com')
        reader.close()
      }
    })
  })

  async function openStream(query = '') {
    const controller = new AbortController()
    const response = await fetch(`${sandbox.url}/_sandbox/api/events${query}`, {
      signal: controller.signal,
    })
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    const events: Array<{ event: string; data: string }> = []
    return {
      async until(done: (events: Array<{ event: string; data: string }>) => boolean) {
        const deadline = Date.now() + 5000
        while (!done(events)) {
          if (Date.now() > deadline) throw new Error(`events so far: ${JSON.stringify(events)}`)
          const { value, done: ended } = await reader.read()
          if (ended) break
          buffer += value
          let end
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const event = /^event: (.*)$/m.exec(block)?.[1]
            const data = /^data: (.*)$/m.exec(block)?.[1]
            if (event && data) events.push({ event, data })
          }
        }
        return events
      },
      close: () => controller.abort(),
    }
  }

  describe('?fields=summary', () => {
    it('lists messages without their bodies', async () => {
      await send('ada@example.com')
      const page = await list('?fields=summary')
      expect(page.total).toBe(1)
      expect(page.messages[0]).toMatchObject({
        subject: 'Welcome aboard',
        to: [{ address: 'ada@example.com' }],
      })
      expect(page.messages[0]).not.toHaveProperty('html')
      expect(page.messages[0]).not.toHaveProperty('text')
      expect(page.messages[0]).not.toHaveProperty('templateVariables')
      expect((await list()).messages[0]).toHaveProperty('html')
    })

    it('streams message events as summaries, the same as the list gives', async () => {
      const [summaries, records] = await Promise.all([openStream('?fields=summary'), openStream()])
      await send('ada@example.com')
      const [summary, record] = await Promise.all(
        [summaries, records].map(async (reader) => {
          const events = await reader.until((events) => events.some((e) => e.event === 'message'))
          reader.close()
          return JSON.parse(events.find((e) => e.event === 'message')!.data)
        }),
      )
      // The same fields as a list summary (its states may have moved on since).
      const listed = (await list('?fields=summary')).messages[0]!
      expect(Object.keys(summary).sort()).toEqual(Object.keys(listed).sort())
      expect(summary).toMatchObject({
        id: listed.id,
        subject: 'Welcome aboard',
        to: [{ address: 'ada@example.com' }],
      })
      expect(summary).not.toHaveProperty('html')
      expect(record.html).toContain('Hello Ada')
    })

    it('refuses an unknown fields value on the event stream', async () => {
      const response = await fetch(`${sandbox.url}/_sandbox/api/events?fields=bodies`)
      expect(response.status).toBe(400)
      expect((await errorOf(response)).code).toBe('invalid_parameter')
    })
  })

  describe('shutting down', () => {
    it('a wait pending at close gets a 503 shutting_down, not a 500', async () => {
      const { startTestSandbox: start } = await import('./helpers/sandbox.js')
      const other = await start({ 'welcome.liquid': 'x' })
      const subscribers = async () =>
        (
          (await (await fetch(`${other.url}/_sandbox/api/health`)).json()) as {
            subscribers: number
          }
        ).subscribers
      const before = await subscribers()
      const waiting = fetch(`${other.url}/_sandbox/api/messages/wait?to=nobody&timeout=10000`)
      await expect.poll(subscribers).toBe(before + 1)
      const closing = other.close()
      const response = await waiting
      expect(response.status).toBe(503)
      expect((await errorOf(response)).code).toBe('shutting_down')
      await closing
    })
  })
})
