import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { openEventStream } from '../helpers/sse.js'
import {
  closedPort,
  startSilentServer,
  startSmtpServer,
  type TestSmtpServer,
} from '../helpers/smtp.js'

/**
 * Release: a stored message sent on through a real SMTP server (smtp-server on a free port),
 * black-box over HTTP. The relay's password must show up in no answer and no console line.
 */

const PASSWORD = 'pa55-w0rd-never-shown'
const TEMPLATES = {
  'welcome.liquid':
    '<h1 style="color:#0a7">Hello {{ name }}</h1><p><a href="https://acme.test/start">Start here</a></p>',
}

let smtp: TestSmtpServer
const sandboxes: TestSandbox[] = []
const servers: Array<{ close(): Promise<void> }> = []

async function sandboxWith(relay: string | undefined, allow: string[] = ['*@example.com']) {
  const sandbox = await startTestSandbox(TEMPLATES, {
    ...(relay ? { relay } : {}),
    relayAllow: allow,
    relayTimeout: 1500,
  })
  sandboxes.push(sandbox)
  return sandbox
}

async function sendOne(sandbox: TestSandbox): Promise<string> {
  const response = await sandbox.send({
    template: 'welcome',
    from: 'Acme Support <hello@acme.test>',
    to: 'Ada <ada@example.com>',
    subject: 'Grüße, Ada: welcome aboard',
    templateVariables: { name: 'Ada' },
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const release = (sandbox: TestSandbox, id: string, to: unknown) =>
  fetch(`${sandbox.url}/_sandbox/api/messages/${id}/release`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to }),
  })

/** Everything written to the console while `run` runs. */
async function consoleOf(run: () => Promise<void>): Promise<string> {
  let text = ''
  const capture = (chunk: unknown) => {
    text += String(chunk)
    return true
  }
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture)
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture)
  try {
    await run()
  } finally {
    out.mockRestore()
    err.mockRestore()
  }
  return text
}

beforeAll(async () => {
  smtp = await startSmtpServer({
    auth: { user: 'relay-user', pass: PASSWORD },
    refuse: ['nobody@example.com'],
  })
  servers.push(smtp)
})
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()))
  await Promise.all(servers.map((s) => s.close()))
})

const relayUrl = (port: number, pass = PASSWORD) =>
  `smtp://relay-user:${encodeURIComponent(pass)}@127.0.0.1:${port}`

describe('POST /_sandbox/api/messages/:id/release', () => {
  it('sends the stored message as it is (HTML, text, subject, From) with AUTH, keeps it on the record, and tells the stream', async () => {
    const sandbox = await sandboxWith(relayUrl(smtp.port))
    const id = await sendOne(sandbox)
    const stored = (await (await fetch(`${sandbox.url}/_sandbox/api/messages/${id}`)).json()) as {
      html: string
      text: string
      subject: string
    }
    const stream = await openEventStream(sandbox.url)
    const response = await release(sandbox, id, ['me@example.com'])
    expect(response.status).toBe(200)
    const answer = (await response.json()) as { response: string }
    expect(answer).toEqual({
      accepted: ['me@example.com'],
      rejected: [],
      response: expect.stringMatching(/^250 .*Ok: queued as TEST1/),
    })
    const { mail, to, user, from } = await smtp.next()
    expect(user).toBe('relay-user')
    expect(to).toEqual(['me@example.com'])
    expect(from).toBe('hello@acme.test')
    expect(mail.subject).toBe(stored.subject)
    expect(mail.from?.value).toEqual([{ name: 'Acme Support', address: 'hello@acme.test' }])
    expect(mail.to && !Array.isArray(mail.to) && mail.to.value).toEqual([
      { name: '', address: 'me@example.com' },
    ])
    expect(mail.html).toBe(stored.html)
    expect(mail.text?.trimEnd()).toBe(stored.text.trimEnd())
    expect(mail.headers.get('x-sendbox-message-id')).toBe(id)

    const record = (await (await fetch(`${sandbox.url}/_sandbox/api/messages/${id}`)).json()) as {
      releases: unknown[]
    }
    const kept = {
      to: ['me@example.com'],
      at: expect.any(String),
      rejected: [],
      response: answer.response,
    }
    expect(record.releases).toEqual([kept])
    const [event] = await stream
      .until((events) => events.some((e) => e.event === 'release'))
      .then((events) => events.filter((e) => e.event === 'release'))
    expect(event!.data).toEqual({ id, release: kept })
    stream.close()
  })

  it('a recipient the server refuses: the others go (200, rejected names it); all refused is a 502 with the reply', async () => {
    const sandbox = await sandboxWith(relayUrl(smtp.port))
    const id = await sendOne(sandbox)
    const partial = await release(sandbox, id, ['me@example.com', 'nobody@example.com'])
    expect(partial.status).toBe(200)
    expect(await partial.json()).toMatchObject({
      accepted: ['me@example.com'],
      rejected: ['nobody@example.com'],
    })
    expect((await smtp.next()).to).toEqual(['me@example.com'])
    const none = await release(sandbox, id, ['nobody@example.com'])
    expect(none.status).toBe(502)
    const error = await errorOf(none)
    expect(error.code).toBe('relay_failed')
    expect(error.message).toMatch(/refused every recipient/)
    expect(error.details).toEqual([
      { response: expect.stringMatching(/^550 .*nobody@example\.com/) },
    ])
    const record = (await (await fetch(`${sandbox.url}/_sandbox/api/messages/${id}`)).json()) as {
      releases: Array<{ rejected: string[] }>
    }
    expect(record.releases.map((r) => r.rejected)).toEqual([['nobody@example.com']])
  })

  it('an address no pattern allows is 422 relay_not_allowed naming it, and nothing is sent', async () => {
    const sandbox = await sandboxWith(relayUrl(smtp.port), ['me@example.com', '*@acme.test'])
    const id = await sendOne(sandbox)
    const before = smtp.received.length
    const response = await release(sandbox, id, [
      'ME@example.com',
      'boss@elsewhere.test',
      'x@sub.acme.test',
    ])
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('relay_not_allowed')
    expect(error.message).toContain('"boss@elsewhere.test"')
    expect(error.details).toEqual([
      { field: 'to', address: 'boss@elsewhere.test' },
      { field: 'to', address: 'x@sub.acme.test' },
    ])
    expect(smtp.received.length).toBe(before)
  })

  it('no relay, or no pattern, is 409 relay_not_configured; a bad body is 422 validation_failed; an unknown message 404', async () => {
    const none = await sandboxWith(undefined)
    const id = await sendOne(none)
    const response = await release(none, id, ['me@example.com'])
    expect(response.status).toBe(409)
    expect((await errorOf(response)).code).toBe('relay_not_configured')
    expect(await (await fetch(`${none.url}/_sandbox/api/relay`)).json()).toEqual({
      configured: false,
      url: null,
      allow: ['*@example.com'],
    })
    const noPattern = await sandboxWith(relayUrl(smtp.port), [])
    const other = await sendOne(noPattern)
    const refused = await release(noPattern, other, ['me@example.com'])
    expect(refused.status).toBe(409)
    expect((await errorOf(refused)).message).toMatch(/--relay-allow/)

    const configured = await sandboxWith(relayUrl(smtp.port))
    const mine = await sendOne(configured)
    for (const to of [
      [],
      'me@example.com',
      ['Me <me@example.com>'],
      ['a@example.com,b@example.com'],
    ]) {
      const bad = await release(configured, mine, to)
      expect(bad.status, JSON.stringify(to)).toBe(422)
      expect((await errorOf(bad)).code).toBe('validation_failed')
    }
    const missing = await release(configured, 'msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D', ['me@example.com'])
    expect(missing.status).toBe(404)
  })

  it('GET /_sandbox/api/relay names the server and the patterns, never the user or password', async () => {
    const sandbox = await sandboxWith(relayUrl(smtp.port), ['me@example.com', '*@Acme.test'])
    const text = await (await fetch(`${sandbox.url}/_sandbox/api/relay`)).text()
    expect(JSON.parse(text)).toEqual({
      configured: true,
      url: `smtp://127.0.0.1:${smtp.port}`,
      allow: ['me@example.com', '*@acme.test'],
    })
    expect(text).not.toContain('relay-user')
    expect(text).not.toContain(PASSWORD)
    expect(JSON.stringify(sandbox.config)).not.toContain(PASSWORD)
  })

  it('wrong credentials: 502 with the reply, and the password in no answer and no console line', async () => {
    const wrong = 'n0t-the-r1ght-one'
    const log = await consoleOf(async () => {
      const sandbox = await startTestSandbox(TEMPLATES, {
        relay: relayUrl(smtp.port, wrong),
        relayAllow: ['*@example.com'],
        relayTimeout: 1500,
        logs: true,
      })
      sandboxes.push(sandbox)
      const id = await sendOne(sandbox)
      const response = await release(sandbox, id, ['me@example.com'])
      expect(response.status).toBe(502)
      const body = await response.text()
      expect(body).not.toContain(wrong)
      const { error } = JSON.parse(body)
      expect(error.code).toBe('relay_failed')
      expect(error.message).toMatch(/refused the user name and password/)
      expect(error.details).toEqual([{ response: expect.stringMatching(/^535 /) }])
      // A release that works is a console line: the server, without credentials.
      const right = await startTestSandbox(TEMPLATES, {
        relay: relayUrl(smtp.port),
        relayAllow: ['*@example.com'],
        logs: true,
      })
      sandboxes.push(right)
      const ok = await release(right, await sendOne(right), ['me@example.com'])
      expect(ok.status).toBe(200)
      await smtp.next()
    })
    expect(log).toMatch(
      new RegExp(`Released msg_\\w+ to me@example.com through smtp://127.0.0.1:${smtp.port}: 250 `),
    )
    expect(log).not.toContain(wrong)
    expect(log).not.toContain(PASSWORD)
  })

  it('a relay that is down, or never answers, is a 502 within the bounded time', async () => {
    const down = await sandboxWith(relayUrl(await closedPort()))
    const started = Date.now()
    const refused = await release(down, await sendOne(down), ['me@example.com'])
    expect(refused.status).toBe(502)
    const error = await errorOf(refused)
    expect(error.message).toMatch(/could not be reached.*ECONNREFUSED/)
    expect(error.details).toEqual([])

    const silent = await startSilentServer()
    servers.push(silent)
    const hung = await sandboxWith(relayUrl(silent.port))
    const hangs = await release(hung, await sendOne(hung), ['me@example.com'])
    expect(hangs.status).toBe(502)
    expect((await errorOf(hangs)).message).toMatch(/did not answer/)
    // relayTimeout is 1.5 s: both answered well before a default timeout would have.
    expect(Date.now() - started).toBeLessThan(8000)
  })
})
