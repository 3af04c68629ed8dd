import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { guardPolicy, hostName, isHostAllowed, isOwnOrigin } from '../../src/http/guard.js'
import { raw, codeOf } from '../helpers/http.js'
import { startTestSandbox, TOKEN, type TestSandbox } from '../helpers/sandbox.js'

/** docs/security.md, Host check: a page that re-points its own name at 127.0.0.1 (DNS rebinding) reads and changes nothing. */

const TEMPLATES = { 'welcome.liquid': 'Hi {{ name }}' }
const welcome = JSON.stringify({
  template: 'welcome',
  from: 'a@acme.test',
  to: 'b@example.com',
  subject: 'Hi',
  templateVariables: { name: 'Ada' },
})

let sandbox: TestSandbox
let port: string
beforeAll(async () => {
  sandbox = await startTestSandbox(TEMPLATES)
  port = new URL(sandbox.url).port
  await sandbox.send(JSON.parse(welcome))
})
afterAll(() => sandbox?.close())

/** Every kind of route: the inbox, the inspector (reads, writes, the stream), the emulated API, the rest. */
const ROUTES: Array<{ method: string; path: string; body?: string }> = [
  { method: 'GET', path: '/_sandbox/api/messages' },
  { method: 'GET', path: '/_sandbox/api/health' },
  { method: 'GET', path: '/_sandbox/api/events' },
  { method: 'GET', path: '/_sandbox/api/openapi.json' },
  { method: 'GET', path: '/_sandbox/' },
  { method: 'DELETE', path: '/_sandbox/api/messages' },
  { method: 'POST', path: '/_sandbox/api/faults', body: '{"status":503,"count":1000000}' },
  { method: 'POST', path: '/messages', body: welcome },
  { method: 'GET', path: '/templates/welcome' },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/no/such/route' },
]

describe('the Host check', () => {
  it.each(ROUTES)(
    '$method $path addressed to another name is 403 host_not_allowed, naming --allowed-host',
    async ({ method, path, body }) => {
      const response = await raw(`${sandbox.url}${path}`, {
        method,
        headers: {
          host: `evil.example:${port}`,
          authorization: `token ${TOKEN}`,
          'content-type': 'application/json',
        },
        ...(body ? { body } : {}),
      })
      expect(response.status).toBe(403)
      expect(codeOf(response)).toBe('host_not_allowed')
      expect(response.body).toContain('--allowed-host evil.example')
      expect(response.headers['x-content-type-options']).toBe('nosniff')
    },
  )

  it('changed nothing while refusing: the message is still there, no fault armed', async () => {
    expect((await sandbox.messages()).length).toBe(1)
    expect(
      ((await (await fetch(`${sandbox.url}/_sandbox/api/faults`)).json()) as { faults: unknown[] })
        .faults,
    ).toEqual([])
  })

  it.each([
    '127.0.0.1',
    'localhost',
    'LocalHost',
    'localhost.',
    'app.localhost',
    '[::1]',
    '10.1.2.3',
    '[::ffff:127.0.0.1]',
  ])('%s passes', async (name) => {
    const response = await raw(`${sandbox.url}/_sandbox/api/health`, {
      headers: { host: `${name}:${port}` },
    })
    expect(response.status).toBe(200)
  })

  it.each([
    'localhost.evil.example',
    'evil.example',
    '127.0.0.1.nip.io',
    'xlocalhost',
    '[::1',
    'a b',
  ])('%s is refused', async (name) => {
    const response = await raw(`${sandbox.url}/_sandbox/api/health`, {
      headers: { host: `${name}:${port}` },
    })
    expect(response.status).toBe(403)
    expect(codeOf(response)).toBe('host_not_allowed')
  })

  it('openapi.json names the server, never the Host it was asked under', async () => {
    const response = await raw(`${sandbox.url}/_sandbox/api/openapi.json`, {
      headers: { host: `sneaky.localhost:${port}` },
    })
    expect(response.status).toBe(200)
    expect(response.body).not.toContain('sneaky')
    expect((response.json as { servers: Array<{ url: string }> }).servers).toEqual([
      { url: sandbox.url },
    ])
  })
})

describe('--allowed-host', () => {
  it('lets named hosts (and .suffix subdomains) through; all turns the check off', async () => {
    const named = await startTestSandbox(TEMPLATES, { allowedHosts: ['myname.test', '.corp.test'] })
    try {
      const at = (host: string) =>
        raw(`${named.url}/_sandbox/api/health`, {
          headers: { host: `${host}:${new URL(named.url).port}` },
        })
      expect((await at('myname.test')).status).toBe(200)
      expect((await at('MyName.Test')).status).toBe(200)
      expect((await at('corp.test')).status).toBe(200)
      expect((await at('a.b.corp.test')).status).toBe(200)
      expect((await at('sub.myname.test')).status).toBe(403)
      expect((await at('evilcorp.test')).status).toBe(403)
    } finally {
      await named.close()
    }
    const open = await startTestSandbox(TEMPLATES, { allowedHosts: 'all' })
    try {
      const response = await raw(`${open.url}/_sandbox/api/openapi.json`, {
        headers: { host: `evil.example:${new URL(open.url).port}` },
      })
      expect(response.status).toBe(200)
      // Even with the check off, the document never echoes the Host.
      expect(response.body).not.toContain('evil.example')
    } finally {
      await open.close()
    }
  })
})

describe('the rules, as functions', () => {
  const policy = (host: string, allowedHosts: string[] = []) =>
    guardPolicy({ host, allowedHosts, anyHost: false, cors: [], inspectorPassword: null })

  it('the --host name is allowed by itself; an IP or a wildcard adds nothing', () => {
    expect(policy('myname.local').allowedHosts).toEqual(['myname.local'])
    expect(isHostAllowed('MyName.Local:5025', policy('myname.local'))).toBe(true)
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', '192.168.1.20'])
      expect(policy(host).allowedHosts, host).toEqual([])
  })

  it('reads Host headers strictly', () => {
    expect(hostName('LocalHost:5025')).toBe('localhost')
    expect(hostName('[::1]:5025')).toBe('[::1]')
    expect(hostName('localhost.')).toBe('localhost')
    expect(hostName('a:b:c')).toBeNull()
    expect(hostName('evil.example:5025:1')).toBeNull()
    expect(isHostAllowed(null, policy('127.0.0.1'))).toBe(true)
    expect(isHostAllowed('[not-an-ip]:1', policy('127.0.0.1'))).toBe(false)
  })

  it('own origin: same host and port as the Host header, http or https', () => {
    expect(isOwnOrigin('http://localhost:5025', 'localhost:5025')).toBe(true)
    expect(isOwnOrigin('https://localhost:5025', 'localhost:5025')).toBe(true)
    expect(isOwnOrigin('http://localhost', 'localhost:80')).toBe(true)
    expect(isOwnOrigin('http://[::1]:5025', '[::1]:5025')).toBe(true)
    expect(isOwnOrigin('http://localhost:5026', 'localhost:5025')).toBe(false)
    expect(isOwnOrigin('http://127.0.0.1:5025', 'localhost:5025')).toBe(false)
    expect(isOwnOrigin('null', 'localhost:5025')).toBe(false)
    expect(isOwnOrigin('file://', 'localhost:5025')).toBe(false)
  })
})
