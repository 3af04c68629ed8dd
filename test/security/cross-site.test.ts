import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { codeOf, raw } from '../helpers/http.js'
import { startTestSandbox, TOKEN, type TestSandbox } from '../helpers/sandbox.js'

/**
 * docs/security.md, no cross-site reads or writes: what a page on another origin can send without a
 * CORS preflight (no-cors fetch, sendBeacon, a text/plain form) and what it would read.
 * Chromium marks such requests with Origin and Sec-Fetch-Site; here they are sent as it does.
 */

const TEMPLATES = { 'welcome.liquid': 'Hi {{ name }}' }
const welcome = {
  template: 'welcome',
  from: 'a@acme.test',
  to: 'b@example.com',
  subject: 'Hi',
  templateVariables: { name: 'Ada' },
}
const EVIL = 'http://127.0.0.2:8000'

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox(TEMPLATES)
})
afterAll(() => sandbox?.close())
beforeEach(async () => {
  await sandbox.clear()
  await sandbox.send(welcome)
  await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
})

/** What another site's page makes the browser send: a beacon, a no-cors fetch, a form. */
const FROM_ANOTHER_SITE: Array<{ name: string; headers: Record<string, string> }> = [
  { name: 'Origin', headers: { origin: EVIL } },
  {
    name: 'Sec-Fetch-Site: cross-site',
    headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
  },
  {
    name: 'Sec-Fetch-Site: same-site',
    headers: { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' },
  },
  { name: 'Origin: null (a sandboxed frame, a file)', headers: { origin: 'null' } },
  { name: 'Origin on the same host, another port', headers: { origin: 'http://127.0.0.1:1' } },
]

const WRITES: Array<{ method: string; path: string; body?: string; type?: string }> = [
  {
    method: 'POST',
    path: '/_sandbox/api/faults',
    body: '{"status":503,"count":1000000}',
    type: 'text/plain',
  },
  {
    method: 'POST',
    path: '/_sandbox/api/faults',
    body: '{"status":503,"count":1000000}',
    type: 'application/json',
  },
  { method: 'DELETE', path: '/_sandbox/api/messages' },
  {
    method: 'POST',
    path: '/_sandbox/api/templates/welcome/fixtures',
    body: '{"name":"hijacked","variables":{"hijacked":true}}',
    type: 'text/plain',
  },
  {
    method: 'POST',
    path: '/_sandbox/api/previews',
    body: '{"template":"welcome","variables":{}}',
    type: 'text/plain',
  },
  { method: 'POST', path: '/messages', body: JSON.stringify(welcome), type: 'application/json' },
]

const READS = [
  '/_sandbox/api/messages',
  '/_sandbox/api/messages/wait?timeout=0',
  '/_sandbox/api/events',
  '/_sandbox/api/health',
  '/_sandbox/api/templates',
  '/_sandbox/api/openapi.json',
  '/templates/welcome',
  '/templates',
]

describe('requests another site makes', () => {
  for (const { name, headers } of FROM_ANOTHER_SITE) {
    it.each(WRITES)(
      `${name}: $method $path ($type) is 403 cross_origin_forbidden and changes nothing`,
      async ({ method, path, body, type }) => {
        const response = await raw(`${sandbox.url}${path}`, {
          method,
          headers: {
            ...headers,
            authorization: `token ${TOKEN}`,
            ...(type ? { 'content-type': type } : {}),
          },
          ...(body ? { body } : {}),
        })
        expect(response.status).toBe(403)
        expect(codeOf(response)).toBe('cross_origin_forbidden')
        expect(response.headers['access-control-allow-origin']).toBeUndefined()
        expect((await sandbox.messages()).length).toBe(1)
        expect(
          (
            (await (await fetch(`${sandbox.url}/_sandbox/api/faults`)).json()) as {
              faults: unknown[]
            }
          ).faults,
        ).toEqual([])
        expect(await readdir(join(sandbox.dir, 'fixtures')).catch(() => [])).toEqual([])
      },
    )

    it.each(READS)(
      `${name}: GET %s is 403 cross_origin_forbidden, with nothing of the sandbox in it`,
      async (path) => {
        const response = await raw(`${sandbox.url}${path}`, {
          headers: { ...headers, authorization: `token ${TOKEN}` },
        })
        expect(response.status).toBe(403)
        expect(codeOf(response)).toBe('cross_origin_forbidden')
        expect(response.body).not.toContain('b@example.com')
        expect(response.headers['access-control-allow-origin']).toBeUndefined()
      },
    )
  }

  it('a link or a bookmark from another site still opens the inbox (a top-level GET navigation)', async () => {
    const navigation = {
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
    }
    const page = await raw(`${sandbox.url}/_sandbox/`, { headers: navigation })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    expect((await raw(`${sandbox.url}/`, { headers: navigation })).status).toBe(302)
    // Only the page: a navigation to the data, or a navigation that posts, is still refused.
    expect(
      (await raw(`${sandbox.url}/_sandbox/api/messages`, { headers: navigation })).status,
    ).toBe(403)
    expect(
      (
        await raw(`${sandbox.url}/_sandbox/`, {
          method: 'POST',
          headers: { ...navigation, origin: EVIL, 'content-type': 'text/plain' },
          body: 'x',
        })
      ).status,
    ).toBe(403)
  })

  it('the inbox page itself passes: same-origin requests, with Origin and Sec-Fetch-Site as Chromium sends them', async () => {
    const own = { origin: sandbox.url, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' }
    expect(
      (
        await raw(`${sandbox.url}/_sandbox/api/messages`, {
          headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' },
        })
      ).status,
    ).toBe(200)
    const armed = await raw(`${sandbox.url}/_sandbox/api/faults`, {
      method: 'POST',
      headers: { ...own, 'content-type': 'application/json' },
      body: '{"status":503}',
    })
    expect(armed.status).toBe(201)
    const localhost = `http://localhost:${new URL(sandbox.url).port}`
    expect(
      (
        await raw(`${localhost}/_sandbox/api/faults`, {
          method: 'DELETE',
          headers: { origin: localhost, host: `localhost:${new URL(sandbox.url).port}` },
        })
      ).status,
    ).toBe(204)
    // Typed into the address bar: Sec-Fetch-Site: none.
    expect(
      (
        await raw(`${sandbox.url}/_sandbox/api/messages`, {
          headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
        })
      ).status,
    ).toBe(200)
  })

  it('clients that send none of these headers (curl, test suites) are unaffected', async () => {
    expect((await raw(`${sandbox.url}/_sandbox/api/messages`)).status).toBe(200)
    expect((await sandbox.send(welcome)).status).toBe(201)
  })
})

describe('--cors ORIGIN', () => {
  const APP = 'http://app.test:3000'
  let cors: TestSandbox
  beforeAll(async () => {
    cors = await startTestSandbox(TEMPLATES, { cors: [APP, 'http://other.test:4000/'] })
  })
  afterAll(() => cors?.close())

  it('answers a preflight to the emulated API with what a browser needs', async () => {
    const response = await raw(`${cors.url}/messages`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'cors',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers['access-control-allow-origin']).toBe(APP)
    expect(response.headers['access-control-allow-methods']).toContain('POST')
    expect(String(response.headers['access-control-allow-headers']).split(/,\s*/)).toEqual(
      expect.arrayContaining(['authorization', 'content-type']),
    )
    expect(response.headers.vary).toContain('Origin')
    expect(response.headers['access-control-allow-credentials']).toBeUndefined()
  })

  it('lets that origin send and read, errors included; another origin is still refused', async () => {
    const headers = {
      origin: APP,
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'cors',
      authorization: `token ${TOKEN}`,
      'content-type': 'application/json',
    }
    const sent = await raw(`${cors.url}/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(welcome),
    })
    expect(sent.status).toBe(201)
    expect(sent.headers['access-control-allow-origin']).toBe(APP)
    expect(sent.headers['access-control-expose-headers']).toContain('location')
    const invalid = await raw(`${cors.url}/messages`, { method: 'POST', headers, body: '{}' })
    expect(invalid.status).toBe(422)
    expect(invalid.headers['access-control-allow-origin']).toBe(APP)
    const template = await raw(`${cors.url}/templates/welcome`, { headers })
    expect(template.status).toBe(200)
    expect(template.headers['access-control-allow-origin']).toBe(APP)
    // A trailing slash in the flag is the same origin.
    expect(
      (
        await raw(`${cors.url}/templates`, {
          headers: { ...headers, origin: 'http://other.test:4000' },
        })
      ).status,
    ).toBe(200)

    const stranger = await raw(`${cors.url}/messages`, {
      method: 'POST',
      headers: { ...headers, origin: 'http://evil.test' },
      body: JSON.stringify(welcome),
    })
    expect(stranger.status).toBe(403)
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('never opens the inspector or the inbox to it', async () => {
    const headers = { origin: APP, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }
    for (const path of ['/_sandbox/api/messages', '/_sandbox/api/events', '/_sandbox/']) {
      const response = await raw(`${cors.url}${path}`, { headers })
      expect(response.status, path).toBe(403)
      expect(response.headers['access-control-allow-origin'], path).toBeUndefined()
    }
    const preflight = await raw(`${cors.url}/_sandbox/api/faults`, {
      method: 'OPTIONS',
      headers: { ...headers, 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(403)
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('the inspector never sends Access-Control-Allow-Origin, whoever asks', async () => {
    for (const path of ['/_sandbox/api/messages', '/_sandbox/api/health', '/_sandbox/']) {
      const response = await raw(`${cors.url}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers['access-control-allow-origin'], path).toBeUndefined()
    }
  })
})
