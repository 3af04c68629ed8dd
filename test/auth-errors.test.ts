import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, type TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

onEachStore((store) => {
  let sandbox: TestSandbox
  let strict: TestSandbox

  beforeAll(async () => {
    sandbox = await store.start({ 'welcome.liquid': 'Hello {{ name }}' }, { tokenPrefix: 'dev_' })
    strict = await store.start(
      { 'welcome.liquid': 'Hello {{ name }}' },
      { token: ['exact_one', 'exact_two'] },
    )
  })
  afterAll(async () => {
    await sandbox?.close()
    await strict?.close()
  })

  describe('authentication (docs/api.md#the-api)', () => {
    it.each([
      ['no header', undefined],
      ['Bearer', 'Bearer sandbox_abc'],
      ['Basic', 'Basic c2FuZGJveDp4'],
      ['token with nothing after it', 'token'],
      ['token and spaces', 'token   '],
      ['two words after token', 'token sandbox_a sandbox_b'],
    ])('%s → 401 unauthorized with WWW-Authenticate: Token', async (_, header) => {
      const response = await fetch(`${sandbox.url}/templates`, {
        headers: header ? { authorization: header } : {},
      })
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Token')
      const error = await errorOf(response)
      expect(error.code).toBe('unauthorized')
      expect(error.message).toContain('Authorization: token <API_TOKEN>')
    })

    it.each([
      ['Bearer sandbox_abc', 'the scheme is "Bearer", not "token"'],
      ['Basic c2FuZGJveDp4', 'the scheme is "Basic", not "token"'],
      ['sandbox_abc', 'it has no scheme, only one word'],
    ])(
      '%s: the message says what came (the scheme, never the credentials)',
      async (header, got) => {
        const response = await fetch(`${sandbox.url}/templates`, {
          headers: { authorization: header },
        })
        const error = await errorOf(response)
        expect(error.message).toContain(`(${got})`)
        expect(error.message).not.toContain(header.split(' ').at(-1))
      },
    )

    it.each(['token', 'TOKEN', 'Token', 'tOkEn'])(
      'the scheme word %s is matched case-insensitively',
      async (scheme) => {
        const response = await fetch(`${sandbox.url}/templates`, {
          headers: { authorization: `${scheme} sandbox_case_test` },
        })
        expect(response.status).toBe(200)
      },
    )

    it('a non-sandbox token is 403 sandbox_token_required naming the prefix, never echoing the token', async () => {
      const secret = 'live_9f8e7d6c5b4a3f2e1d0c'
      const response = await fetch(`${sandbox.url}/templates`, {
        headers: { authorization: `token ${secret}` },
      })
      expect(response.status).toBe(403)
      const error = await errorOf(response)
      expect(error.code).toBe('sandbox_token_required')
      expect(error.message).toMatch(/local sandbox/i)
      expect(error.message).toContain('sandbox_')
      expect(JSON.stringify(error)).not.toContain(secret)
    })

    it('--token-prefix adds an accepted prefix beside sandbox_', async () => {
      for (const token of ['sandbox_x', 'dev_x']) {
        const response = await fetch(`${sandbox.url}/templates`, {
          headers: { authorization: `token ${token}` },
        })
        expect(response.status).toBe(200)
      }
    })

    it('with --token, only those exact tokens are accepted', async () => {
      const ok = await fetch(`${strict.url}/templates`, {
        headers: { authorization: 'token exact_two' },
      })
      expect(ok.status).toBe(200)
      for (const token of ['sandbox_anything', 'exact_on', 'exact_one2']) {
        const response = await fetch(`${strict.url}/templates`, {
          headers: { authorization: `token ${token}` },
        })
        expect(response.status).toBe(403)
        expect((await errorOf(response)).code).toBe('sandbox_token_required')
      }
    })

    it('auth comes before the media type check', async () => {
      const response = await fetch(`${sandbox.url}/messages`, {
        method: 'POST',
        body: 'not json',
        headers: { 'content-type': 'text/plain' },
      })
      expect(response.status).toBe(401)
    })
  })

  describe('the one error model', () => {
    it('an unknown route is 404 not_found', async () => {
      const response = await fetch(`${sandbox.url}/nope/nothing`)
      expect(response.status).toBe(404)
      expect((await errorOf(response)).code).toBe('not_found')
    })

    it('a known route with the wrong method is 405 with Allow', async () => {
      const response = await fetch(`${sandbox.url}/messages`, {
        method: 'GET',
        headers: { authorization: 'token sandbox_x' },
      })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('POST')
      expect((await errorOf(response)).code).toBe('method_not_allowed')
      const health = await fetch(`${sandbox.url}/_sandbox/api/health`, { method: 'PUT' })
      expect(health.status).toBe(405)
      expect(health.headers.get('allow')).toBe('GET, HEAD')
    })

    it('a malformed URL is a JSON 400, not a crash', async () => {
      const { request } = await import('node:http')
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${sandbox.url}/%ZZ`, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', reject)
        req.end()
      })
      expect(status).toBe(400)
    })
  })
})
