import { readFile, rm } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { join } from 'node:path'
// Imported the way a user does: the package's own name, through its `exports` (dist/).
import {
  startSendbox,
  StartError,
  WaitTimeoutError,
  type MessageRecord,
  type Sendbox,
} from 'sendbox'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { tempDir, writeFiles } from '../helpers/sandbox.js'
import { onEachStore } from '../helpers/stores.js'

let dir: string
let templates: string
beforeAll(async () => {
  dir = await tempDir('sendbox-api-')
  templates = join(dir, 'templates')
  await writeFiles(templates, {
    'welcome.liquid': '<p>Welcome, {{ name }}!</p>',
    'receipt.liquid': '<p>Order {{ order.id }}</p>',
  })
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const open: Sendbox[] = []
async function start(options: Parameters<typeof startSendbox>[0] = {}): Promise<Sendbox> {
  const sandbox = await startSendbox({ port: 0, memory: true, templates, ...options })
  open.push(sandbox)
  return sandbox
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

function send(
  sandbox: Sendbox,
  to: string,
  template = 'welcome',
  templateVariables: Record<string, unknown> = { name: 'Ada' },
) {
  return fetch(`${sandbox.url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template,
      from: 'Acme <hello@acme.test>',
      to,
      subject: `Hello ${to}`,
      templateVariables,
    }),
  })
}

/** Whether a TCP port can be bound right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

describe('startSendbox', () => {
  it('resolves once the server answers, with its url and a token it accepts', async () => {
    const sandbox = await start()
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`)
    expect(sandbox.inboxUrl).toBe(`${sandbox.url}/_sandbox/`)
    const health = await fetch(`${sandbox.url}/_sandbox/api/health`)
    expect(await health.json()).toMatchObject({ status: 'ok', templates: 2, messages: 0 })
    const response = await send(sandbox, 'ada@example.com')
    expect(response.status).toBe(201)
  })

  it('options mirror the flags: token, tokenPrefix, lenient, maxMessages', async () => {
    const sandbox = await start({ token: 'sandbox_exact_one', lenient: true, maxMessages: 2 })
    expect(sandbox.token).toBe('sandbox_exact_one')
    expect(sandbox.config).toMatchObject({
      tokens: ['sandbox_exact_one'],
      lenient: true,
      maxMessages: 2,
      open: false,
      dbFile: null,
    })
    for (const to of ['a@example.com', 'b@example.com', 'c@example.com'])
      expect((await send(sandbox, to, 'welcome', {})).status).toBe(201)
    expect((await sandbox.messages()).map((m) => m.to[0]!.address)).toEqual([
      'c@example.com',
      'b@example.com',
    ])
    const other = await fetch(`${sandbox.url}/messages`, {
      method: 'POST',
      headers: { authorization: 'token sandbox_other', 'content-type': 'application/json' },
      body: '{}',
    })
    expect(other.status).toBe(403)
  })

  it('a list by recipient after many more sends than it keeps finds what a scan finds', async () => {
    // The index finds a `to` or `recipient` list's candidates in columns it extends at such a
    // list: 80 sends between two lists drop past all it held (a 500 once, from a gone record).
    const sandbox = await start({ maxMessages: 3, lenient: true })
    const list = async (query: string) => {
      const response = await fetch(`${sandbox.url}/_sandbox/api/messages?${query}`)
      expect(response.status).toBe(200)
      const { messages } = (await response.json()) as { messages: { to: { address: string }[] }[] }
      return messages.map((m) => m.to[0]!.address)
    }
    expect((await send(sandbox, 'ada@example.com', 'welcome', {})).status).toBe(201)
    expect(await list('to=ada')).toEqual(['ada@example.com'])
    for (let i = 0; i < 80; i++)
      expect((await send(sandbox, `n${i % 2}@example.com`, 'welcome', {})).status).toBe(201)
    expect(await list('to=ada')).toEqual([])
    expect(await list('to=n1%40')).toEqual(['n1@example.com', 'n1@example.com'])
    expect(await list('recipient=N0%40example.com')).toEqual(['n0@example.com'])
  })

  it('a bad option is a ConfigError naming the flag', async () => {
    await expect(
      startSendbox({ port: 0, memory: true, templates, maxBody: 'lots' }),
    ).rejects.toThrow(/--max-body/)
    // A folder that does not exist is no error (test/init.test.ts); a file is.
    await expect(
      startSendbox({ port: 0, memory: true, templates: join(templates, 'welcome.liquid') }),
    ).rejects.toThrow(/--templates/)
  })

  it('runs several instances in one process without interference: ports, logs and messages are their own', async () => {
    const [a, b] = await Promise.all([
      start({ memory: false, db: join(dir, 'a', 'log.jsonl') }),
      start({ memory: false, db: join(dir, 'b', 'log.jsonl') }),
    ])
    expect(a.port).not.toBe(b.port)
    expect((await send(a, 'ada@example.com')).status).toBe(201)
    expect((await send(b, 'bob@example.com')).status).toBe(201)
    expect((await a.messages()).map((m) => m.to[0]!.address)).toEqual(['ada@example.com'])
    expect((await b.messages()).map((m) => m.to[0]!.address)).toEqual(['bob@example.com'])
    await expect(b.waitForMessage({ to: 'ada@example.com', timeout: 200 })).rejects.toThrow(
      WaitTimeoutError,
    )
    await a.fail({ status: 503 })
    expect((await send(b, 'bob@example.com')).status).toBe(201)
    expect((await send(a, 'ada@example.com')).status).toBe(503)
    await a.clear()
    expect(await a.messages()).toEqual([])
    expect(await b.messages()).toHaveLength(2)
    const logA = await readFile(join(dir, 'a', 'log.jsonl'), 'utf8')
    const logB = await readFile(join(dir, 'b', 'log.jsonl'), 'utf8')
    expect(logA).toContain('ada@example.com')
    expect(logA).not.toContain('bob@example.com')
    expect(logB).toContain('bob@example.com')
    expect(logB).not.toContain('ada@example.com')
  })

  it('starts many at once on port 0', async () => {
    const many = await Promise.all(Array.from({ length: 6 }, () => start()))
    expect(new Set(many.map((s) => s.port)).size).toBe(6)
  })

  it('close() is idempotent and frees the port', async () => {
    const sandbox = await start()
    await Promise.all([sandbox.close(), sandbox.close()])
    await sandbox.close()
    expect(await portIsFree(sandbox.port)).toBe(true)
    await expect(fetch(`${sandbox.url}/_sandbox/api/health`)).rejects.toThrow()
  })

  it('close() ends pending waits and open event streams instead of hanging', async () => {
    const sandbox = await start()
    const waiting = sandbox.waitForMessage({ to: 'never@example.com', timeout: 30_000 })
    const events = await fetch(`${sandbox.url}/_sandbox/api/events`)
    const started = Date.now()
    // Handled from the start: the wait rejects while close() runs.
    const rejected = expect(waiting).rejects.toThrow(/closed/)
    await sandbox.close()
    await rejected
    await events.body?.cancel().catch(() => {})
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('close() does not wait on a client that asks again on its kept-alive connection (an EventSource reconnecting)', async () => {
    const sandbox = await start()
    const socket = connect(sandbox.port, '127.0.0.1')
    let received = ''
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk))
    const ended = new Promise((resolve) => socket.once('close', resolve))
    const request = `GET /_sandbox/api/events HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\n\r\n`
    /** Resolves once `part` has been received (now or later). */
    const seen = (part: string) =>
      new Promise<void>((resolve) => {
        const check = () => received.includes(part) && (socket.off('data', check), resolve())
        socket.on('data', check)
        check()
      })
    socket.write(request)
    await seen('200 OK')
    const closed = sandbox.close()
    // The stream ends (the last chunk of a chunked body); the client asks again at once.
    await seen('\r\n0\r\n\r\n')
    socket.write(request)
    const asked = Date.now()
    await closed
    await ended
    // The connection closed once the stream ended, not when Node's keep-alive timeout (5 s)
    // would have ended it, and the request that came after got no endless stream to keep it open.
    expect(Date.now() - asked).toBeLessThan(4000)
  })

  it('a file-backed instance frees its lock on close: the next one reopens the same log', async () => {
    const db = join(dir, 'shared', 'messages.jsonl')
    const first = await start({ memory: false, db })
    expect((await send(first, 'ada@example.com')).status).toBe(201)
    await expect(startSendbox({ port: 0, templates, db })).rejects.toThrow(/lock|already|in use/i)
    await first.close()
    const second = await start({ memory: false, db })
    const [kept] = await second.messages()
    expect(kept?.to[0]?.address).toBe('ada@example.com')
    expect((await send(second, 'bob@example.com')).status).toBe(201)
    expect(await second.messages()).toHaveLength(2)
  })

  it('a port browsers and fetch refuse (6000, X11) is a StartError saying so', async () => {
    const error = await startSendbox({ port: 6000, memory: true, templates }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StartError)
    expect((error as StartError).code).toBe('listen_failed')
    expect((error as Error).message).toMatch(/port 6000 .*refuse/)
  })

  it('close() does not wait on connections that sent nothing, or half a request', async () => {
    const sandbox = await start()
    const silent = connect(sandbox.port, '127.0.0.1')
    const half = connect(sandbox.port, '127.0.0.1')
    for (const socket of [silent, half]) socket.on('error', () => {})
    await Promise.all(
      [silent, half].map((socket) => new Promise((resolve) => socket.once('connect', resolve))),
    )
    half.write(`GET /_sandbox/api/health HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\n`)
    const gone = Promise.all(
      [silent, half].map((socket) => new Promise((resolve) => socket.once('close', resolve))),
    )
    const started = Date.now()
    await sandbox.close()
    await gone
    // Not after the grace given to answers in progress (3 s): these had none.
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('close() cuts an upload that stalls, after a grace of a few seconds', async () => {
    const sandbox = await start()
    const socket = connect(sandbox.port, '127.0.0.1')
    socket.on('error', () => {})
    const gone = new Promise((resolve) => socket.once('close', resolve))
    // Node answers `Expect: 100-continue` once the request is in the server's hands.
    const continued = new Promise((resolve) => socket.once('data', resolve))
    socket.write(
      `POST /messages HTTP/1.1\r\nHost: 127.0.0.1:${sandbox.port}\r\nAuthorization: token sandbox_x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`,
    )
    expect(String(await continued)).toMatch(/^HTTP\/1\.1 100 /)
    socket.write('{"template":')
    const started = Date.now()
    await sandbox.close()
    await gone
    expect(Date.now() - started).toBeGreaterThanOrEqual(2500)
    expect(Date.now() - started).toBeLessThan(10_000)
  }, 15_000)

  it('a busy fixed port is a StartError naming it', async () => {
    const sandbox = await start()
    const error = await startSendbox({ port: sandbox.port, memory: true, templates }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(StartError)
    expect((error as StartError).code).toBe('port_in_use')
    expect((error as Error).message).toContain(String(sandbox.port))
  })
})

onEachStore((store) => {
  describe('messages, waitForMessage, clear', () => {
    let sandbox: Sendbox
    beforeAll(async () => {
      sandbox = await startSendbox({ port: 0, memory: true, templates, ...(await store.options()) })
    })
    afterAll(() => sandbox.close())

    it('messages(filter) are records, newest first', async () => {
      await sandbox.clear()
      await send(sandbox, 'Ada <ada@example.com>')
      await send(sandbox, 'bob@example.com', 'receipt', { order: { id: 7 } })
      await send(sandbox, 'carol@example.com')
      const all = await sandbox.messages()
      expect(all.map((m) => m.to[0]!.address)).toEqual([
        'carol@example.com',
        'bob@example.com',
        'ada@example.com',
      ])
      const receipts = await sandbox.messages({ template: 'receipt' })
      expect(receipts).toHaveLength(1)
      expect(receipts[0]).toMatchObject({
        template: 'receipt',
        subject: 'Hello bob@example.com',
        html: '<p>Order 7</p>',
        text: 'Order 7',
      })
      await sandbox.clear({ to: 'bob@' })
      expect(await sandbox.messages()).toHaveLength(2)
      await sandbox.clear()
      expect(await sandbox.messages()).toEqual([])
    })

    it('waitForMessage resolves with a message already there, or the first to arrive', async () => {
      await send(sandbox, 'dora@example.com')
      expect((await sandbox.waitForMessage({ to: 'dora@example.com' })).to[0]!.address).toBe(
        'dora@example.com',
      )
      // The wait counts from its call: a send made right after it is the first to arrive.
      const later = sandbox.waitForMessage({ to: 'erin@example.com', timeout: 5000 })
      await send(sandbox, 'erin@example.com')
      const record: MessageRecord = await later
      expect(record).toMatchObject({
        status: 'sent',
        template: 'welcome',
        html: '<p>Welcome, Ada!</p>',
      })
    })

    it('waitForMessage rejects on timeout with an error naming the filter', async () => {
      const started = Date.now()
      const error = await sandbox
        .waitForMessage({ to: 'nobody@example.com', template: 'welcome', timeout: 300 })
        .catch((e: unknown) => e)
      expect(Date.now() - started).toBeGreaterThanOrEqual(290)
      expect(error).toBeInstanceOf(WaitTimeoutError)
      expect((error as Error).message).toContain('nobody@example.com')
      expect((error as Error).message).toContain('"template":"welcome"')
      expect((error as Error).message).toContain('300 ms')
      expect((error as WaitTimeoutError).filter).toEqual({
        to: 'nobody@example.com',
        template: 'welcome',
      })
    })
  })

  describe('fail()', () => {
    let sandbox: Sendbox
    beforeAll(async () => {
      sandbox = await startSendbox({ port: 0, memory: true, templates, ...(await store.options()) })
    })
    afterAll(() => sandbox.close())

    it('fail({ status: 503, count: 2 }): two sends get 503 simulated_fault, the third succeeds; none is stored', async () => {
      const fault = await sandbox.fail({ status: 503, count: 2 })
      expect(fault).toMatchObject({ status: 503, remaining: 2 })
      for (let i = 0; i < 2; i++) {
        const response = await send(sandbox, 'ada@example.com')
        expect(response.status).toBe(503)
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
          'simulated_fault',
        )
      }
      expect(await sandbox.messages()).toEqual([])
      expect((await send(sandbox, 'ada@example.com')).status).toBe(201)
      expect(await sandbox.messages()).toHaveLength(1)
    })

    it('fail() with a match and a 429 with retryAfter', async () => {
      await sandbox.fail({ status: 429, match: { template: 'receipt' }, retryAfter: 7 })
      expect((await send(sandbox, 'ada@example.com')).status).toBe(201)
      const limited = await send(sandbox, 'ada@example.com', 'receipt', { order: { id: 1 } })
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toBe('7')
    })

    it('an invalid fault rejects with what is wrong', async () => {
      await expect(sandbox.fail({ status: 418 as 503 })).rejects.toThrow(
        /status must be one of 429, 500, 502, 503/,
      )
      await expect(sandbox.fail({ status: 500, count: 0 })).rejects.toThrow(/count/)
    })
  })
})
