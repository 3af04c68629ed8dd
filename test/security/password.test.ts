import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveOptionsFrom } from '../../src/cli/flags.js'
import { basicAuthMatches } from '../../src/http/guard.js'
import { codeOf, raw } from '../helpers/http.js'
import { startTestSandbox, TOKEN, type TestSandbox } from '../helpers/sandbox.js'

/** docs/security.md, exposure: --inspector-password puts HTTP Basic auth on /_sandbox/; the API keeps its token check. */

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const welcome = {
  template: 'welcome',
  from: 'a@acme.test',
  to: 'b@example.com',
  subject: 'Hi',
  templateVariables: { name: 'Ada' },
}

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox(
    { 'welcome.liquid': 'Hi {{ name }}' },
    { inspectorPassword: 's3cret:with colon' },
  )
})
afterAll(() => sandbox?.close())

describe('--inspector-password', () => {
  it.each([
    '/_sandbox/',
    '/_sandbox/app.js',
    '/_sandbox/api/health',
    '/_sandbox/api/messages',
    '/_sandbox/api/events',
    '/_sandbox/api/openapi.json',
  ])('%s without the password is 401, a JSON error asking for Basic auth', async (path) => {
    for (const authorization of [
      undefined,
      basic('me', 'wrong'),
      basic('me', 's3cret'),
      'Basic !!!',
      `token ${TOKEN}`,
    ]) {
      const response = await raw(`${sandbox.url}${path}`, {
        headers: authorization ? { authorization } : {},
      })
      expect(response.status).toBe(401)
      expect(codeOf(response)).toBe('unauthorized')
      expect(response.headers['www-authenticate']).toBe('Basic realm="sendbox", charset="UTF-8"')
      expect(response.headers['content-type']).toContain('application/json')
      expect(response.body).toContain('--inspector-password')
    }
  })

  it('any user name with the password opens it (a password may hold a colon)', async () => {
    for (const user of ['', 'me', 'admin']) {
      const response = await raw(`${sandbox.url}/_sandbox/api/health`, {
        headers: { authorization: basic(user, 's3cret:with colon') },
      })
      expect(response.status).toBe(200)
    }
    const writes = await raw(`${sandbox.url}/_sandbox/api/faults`, {
      method: 'DELETE',
      headers: { authorization: basic('', 's3cret:with colon') },
    })
    expect(writes.status).toBe(204)
  })

  it('the emulated API keeps its own token check and needs no password', async () => {
    expect((await sandbox.send(welcome)).status).toBe(201)
    expect((await sandbox.api('/templates/welcome')).status).toBe(200)
  })

  it('the cross-site check still comes first: another site gets 403, not a password prompt', async () => {
    const response = await raw(`${sandbox.url}/_sandbox/api/messages`, {
      headers: { origin: 'http://evil.test', authorization: basic('', 's3cret:with colon') },
    })
    expect(response.status).toBe(403)
    expect(response.headers['www-authenticate']).toBeUndefined()
  })

  it('compares the whole password', () => {
    expect(basicAuthMatches(basic('x', 'pw'), 'pw')).toBe(true)
    expect(basicAuthMatches(basic('x', 'pw'), 'pw2')).toBe(false)
    expect(basicAuthMatches(basic('x', 'pw2'), 'pw')).toBe(false)
    expect(basicAuthMatches(basic('x', ''), 'pw')).toBe(false)
    expect(basicAuthMatches(`basic   ${Buffer.from(':pw').toString('base64')}`, 'pw')).toBe(true)
    expect(basicAuthMatches(Buffer.from('pw').toString('base64'), 'pw')).toBe(false)
    expect(basicAuthMatches(null, 'pw')).toBe(false)
  })

  it('comes from --inspector-password or SENDBOX_INSPECTOR_PASSWORD; hosts and origins likewise', () => {
    expect(serveOptionsFrom(['--inspector-password', 'a'], {}).options.inspectorPassword).toBe('a')
    expect(
      serveOptionsFrom([], { SENDBOX_INSPECTOR_PASSWORD: 'b' }).options.inspectorPassword,
    ).toBe('b')
    expect(
      serveOptionsFrom(['--allowed-host', 'a.test', '--allowed-host', 'b.test'], {}).options
        .allowedHosts,
    ).toEqual(['a.test', 'b.test'])
    expect(
      serveOptionsFrom([], { SENDBOX_ALLOWED_HOSTS: 'a.test,.b.test' }).options.allowedHosts,
    ).toEqual(['a.test', '.b.test'])
    expect(serveOptionsFrom(['--cors', 'http://localhost:3000'], {}).options.cors).toEqual([
      'http://localhost:3000',
    ])
    expect(
      serveOptionsFrom([], { SENDBOX_CORS: 'http://localhost:3000,http://a.test' }).options.cors,
    ).toEqual(['http://localhost:3000', 'http://a.test'])
  })
})

describe('every answer carries X-Content-Type-Options: nosniff', () => {
  let open: TestSandbox
  beforeAll(async () => {
    open = await startTestSandbox({ 'welcome.liquid': 'Hi {{ name }}' })
  })
  afterAll(() => open?.close())

  it.each([
    ['GET', '/_sandbox/api/health', 200],
    ['GET', '/_sandbox/api/messages', 200],
    ['GET', '/_sandbox/api/openapi.json', 200],
    ['GET', '/templates/welcome', 200],
    ['GET', '/templates/nope', 404],
    ['GET', '/_sandbox/api/messages/nope', 404],
    ['GET', '/nowhere', 404],
    ['PUT', '/messages', 405],
    ['POST', '/messages', 201],
  ] as const)('%s %s (%i)', async (method, path, status) => {
    const response = await raw(`${open.url}${path}`, {
      method,
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify(welcome) } : {}),
    })
    expect(response.status).toBe(status)
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })
})
