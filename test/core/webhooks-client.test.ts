import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { join } from 'node:path'
import { tempDir } from '../helpers/sandbox.js'
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createPoster, type Poster } from '../../src/server/webhooks-client.js'
import { closedPort, startOnePerReadReceiver } from '../helpers/receiver.js'

/** The webhook client against the kinds of servers receivers really are. */

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function client(options?: Parameters<typeof createPoster>[0]): Poster {
  const poster = createPoster(options)
  cleanups.push(() => poster.close())
  return poster
}

async function listen<T extends HttpServer | NetServer>(server: T): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  cleanups.push(
    () =>
      new Promise((resolve) => {
        ;(server as HttpServer).closeAllConnections?.()
        server.close(resolve)
      }),
  )
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`
}

/** A raw server: `answer` gets each request's text and the socket. */
async function rawServer(
  answer: (request: string, socket: Socket, n: number) => void,
): Promise<string> {
  let n = 0
  const sockets = new Set<Socket>()
  const server = createNetServer((socket) => {
    sockets.add(socket)
    let buffer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      buffer += chunk
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n')
        if (end === -1) return
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0)
        if (buffer.length < end + 4 + length) return
        const request = buffer.slice(0, end + 4 + length)
        buffer = buffer.slice(end + 4 + length)
        answer(request, socket, n++)
      }
    })
    socket.on('error', () => {})
  })
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy()
  })
  return listen(server)
}

const opts = (timeoutMs = 2000) => ({
  headers: { 'content-type': 'application/json', 'x-test': 'yes' },
  timeoutMs,
  bodyLimit: 16,
})

describe('the webhook client', () => {
  it('posts to a Node server over keep-alive: status, body start, headers and body as sent, answers in order', async () => {
    const seen: Array<{ body: string; headers: Record<string, unknown>; url: string }> = []
    const server = createHttpServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        seen.push({ body, headers: req.headers, url: req.url! })
        const n = Number(JSON.parse(body).n)
        // Later requests answer sooner: the responses must still pair with their requests.
        setTimeout(
          () => {
            res.writeHead(n % 5 === 0 ? 500 : 200, { 'content-type': 'text/plain' })
            res.end(`answer ${n} ${'é'.repeat(20)}`)
          },
          20 - (n % 20),
        )
      })
    })
    const url = await listen(server)
    const poster = client()
    const results = await Promise.all(
      Array.from(
        { length: 100 },
        (_, n) => poster.post(`${url}/hooks?x=1`, JSON.stringify({ n, name: 'Zoë' }), opts()).done,
      ),
    )
    results.forEach((result, n) => {
      expect(result.error).toBeNull()
      expect(result.status).toBe(n % 5 === 0 ? 500 : 200)
      expect(result.body).toBe(`answer ${n} ${'é'.repeat(20)}`.slice(0, 16))
    })
    expect(seen).toHaveLength(100)
    expect(seen[0]!.url).toBe('/hooks?x=1')
    expect(seen[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-test': 'yes' })
    expect(seen.map((s) => JSON.parse(s.body).name)).toEqual(Array(100).fill('Zoë'))
  })

  it('never pipelines: a receiver that answers one request per read answers all 60 at once', async () => {
    const receiver = await startOnePerReadReceiver()
    cleanups.push(() => receiver.close())
    const poster = client()
    const results = await Promise.all(
      Array.from(
        { length: 60 },
        (_, n) =>
          poster.post(receiver.url, '{}', { ...opts(), headers: { 'webhook-id': `evt_${n}` } })
            .done,
      ),
    )
    expect(results.filter((r) => r.status !== 200)).toEqual([])
    expect(receiver.dropped).toBe(0)
    expect(new Set(receiver.answered).size).toBe(60)
  })

  it('reads chunked bodies, interim 1xx answers and bodies without a length (then closes)', async () => {
    const url = await rawServer((request, socket, n) => {
      if (n === 0)
        socket.write(
          'HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\nHTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nx-trailer: 1\r\n\r\n',
        )
      else if (n === 1) socket.write('HTTP/1.1 202 Accepted\r\ncontent-length: 2\r\n\r\nok')
      else socket.end('HTTP/1.1 201 Created\r\n\r\nuntil the end')
    })
    const poster = client()
    const first = await poster.post(`${url}/`, '{}', opts()).done
    expect(first).toMatchObject({ status: 200, body: 'hello world', error: null })
    expect((await poster.post(`${url}/`, '{}', opts()).done).status).toBe(202)
    expect(await poster.post(`${url}/`, '{}', opts()).done).toMatchObject({
      status: 201,
      body: 'until the end',
      error: null,
    })
  })

  it('a server that closes after every answer (Connection: close, HTTP/1.0) gets every request, one per connection', async () => {
    for (const reply of [
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok',
      'HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok',
    ]) {
      const answered: number[] = []
      const url = await rawServer((request, socket) => {
        answered.push(JSON.parse(request.slice(request.indexOf('\r\n\r\n') + 4)).n)
        socket.end(reply)
      })
      const poster = client()
      const results = await Promise.all(
        Array.from(
          { length: 20 },
          (_, n) => poster.post(`${url}/`, JSON.stringify({ n }), opts()).done,
        ),
      )
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200))
      expect(answered.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n))
    }
  })

  it('a keep-alive connection the server closed as idle is replaced; the request goes through', async () => {
    const server = createHttpServer((req, res) => {
      req.resume()
      req.on('end', () => res.end('ok'))
    })
    server.keepAliveTimeout = 50
    const closedByServer = new Promise<void>((resolve) =>
      server.once('connection', (socket) => socket.once('close', () => resolve())),
    )
    const url = await listen(server)
    const poster = client()
    expect((await poster.post(`${url}/`, '{}', opts()).done).status).toBe(200)
    // Idle past the server's keep-alive timeout: it closed the socket.
    await closedByServer
    expect((await poster.post(`${url}/`, '{}', opts()).done).status).toBe(200)
  })

  it('https: a certificate it trusts works; one it does not is an error that says why', async () => {
    const dir = await tempDir('sendbox-tls-')
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
      ],
      { stdio: 'ignore' },
    )
    const cert = readFileSync(join(dir, 'cert.pem'))
    const server = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert },
      (req, res) => {
        req.resume()
        req.on('end', () => res.end('secure'))
      },
    )
    const url = (await listen(server)).replace('http://127.0.0.1', 'https://localhost')
    expect(await client({ ca: cert }).post(`${url}/hooks`, '{}', opts()).done).toMatchObject({
      status: 200,
      body: 'secure',
      error: null,
    })
    const untrusted = await client().post(`${url}/hooks`, '{}', opts()).done
    expect(untrusted).toMatchObject({
      status: null,
      error: expect.stringMatching(/self[- ]signed certificate/),
    })
  })

  it('refused: an error that says so', async () => {
    const port = await closedPort()
    const result = await client().post(`http://127.0.0.1:${port}/`, '{}', opts()).done
    expect(result).toMatchObject({
      status: null,
      error: expect.stringContaining('connection refused'),
    })
  })

  it('a request that never gets an answer times out; those behind it on the connection still go through', async () => {
    // Like a real server, it answers a connection's requests in order: stuck on one, it answers none after it there.
    const stuck = new WeakSet<Socket>()
    const url = await rawServer((request, socket) => {
      if (request.includes('"hang"')) stuck.add(socket)
      if (stuck.has(socket)) return
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok')
    })
    const poster = client({ connections: 1 })
    const hang = poster.post(`${url}/`, '"hang"', opts(200)).done
    const others = Array.from(
      { length: 5 },
      () => poster.post(`${url}/`, '"fine"', opts(2000)).done,
    )
    expect(await hang).toMatchObject({ status: null, error: expect.stringContaining('timed out') })
    expect((await hang).durationMs).toBeGreaterThanOrEqual(190)
    for (const result of await Promise.all(others))
      expect(result).toMatchObject({ status: 200, error: null })
  })

  it('a receiver that drops the connection on a request: sent once more, then an error that says so', async () => {
    let seen = 0
    const url = await rawServer((_request, socket) => {
      seen++
      socket.destroy()
    })
    const result = await client().post(`${url}/`, '{}', opts()).done
    expect(result).toMatchObject({
      status: null,
      error: expect.stringContaining('closed or reset by the receiver'),
    })
    expect(seen).toBe(2)
  })

  it('a stalled body times out like a stalled answer', async () => {
    const url = await rawServer((_request, socket) =>
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nok'),
    )
    const result = await client().post(`${url}/`, '{}', opts(200)).done
    expect(result).toMatchObject({ status: null, error: expect.stringContaining('timed out') })
    expect(result.durationMs).toBeGreaterThanOrEqual(190)
  })

  it('a long answer: its start is kept, the rest dropped, and the connection used again', async () => {
    let connections = 0
    const server = createHttpServer((req, res) => {
      req.resume()
      req.on('end', () => res.end(req.url === '/huge' ? 'y'.repeat(1 << 20) : 'x'.repeat(10_000)))
    })
    server.on('connection', () => connections++)
    const url = await listen(server)
    const poster = client({ connections: 1 })
    for (let i = 0; i < 3; i++)
      expect(await poster.post(`${url}/`, '{}', opts()).done).toMatchObject({
        status: 200,
        body: 'x'.repeat(16),
        error: null,
      })
    expect(connections).toBe(1)
    // Past 64 KiB beyond the start, the connection is given up rather than read to the end.
    expect(await poster.post(`${url}/huge`, '{}', opts()).done).toMatchObject({
      status: 200,
      body: 'y'.repeat(16),
      error: null,
    })
    expect((await poster.post(`${url}/`, '{}', opts()).done).status).toBe(200)
  })

  it('a URL that is not http(s) is an error, not a throw', async () => {
    for (const url of ['ftp://127.0.0.1/', 'not a url'])
      expect(await client().post(url, '{}', opts()).done).toMatchObject({
        status: null,
        error: expect.stringContaining('not an http(s) URL'),
      })
  })

  it('garbage instead of HTTP fails the request with a clear error', async () => {
    const url = await rawServer((_request, socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'))
    const result = await client().post(`${url}/`, '{}', opts()).done
    expect(result.error).toContain('not an HTTP/1.x response')
  })

  it('close() ends what is in flight at once', async () => {
    let arrived!: () => void
    const inFlight = new Promise<void>((resolve) => (arrived = resolve))
    const url = await rawServer(() => arrived())
    const poster = createPoster()
    const pending = poster.post(`${url}/`, '{}', opts(60_000)).done
    await inFlight // the server has the request, and does not answer
    poster.close()
    expect(await pending).toMatchObject({ status: null, error: expect.stringContaining('closing') })
    expect(await poster.post(`${url}/`, '{}', opts()).done).toMatchObject({
      error: expect.stringContaining('closing'),
    })
  })
})
