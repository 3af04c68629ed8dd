import { request } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({
      'welcome.liquid': 'Hello {{ name }}',
      'partials/x.liquid': 'p',
    })
  })
  afterAll(() => sandbox?.close())

  interface Raw {
    status: number
    type: string
    body: string
  }

  function raw(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const url = new URL(sandbox.url)
      // Framed: Node's client sends a DELETE's (or OPTIONS', TRACE's) body with neither
      // content-length nor chunked encoding, so the server reads it as the start of the next request.
      const framed =
        body === undefined
          ? headers
          : { ...headers, 'content-length': String(Buffer.byteLength(body)) }
      const req = request(
        { host: url.hostname, port: url.port, method, path, headers: framed },
        (res) => {
          let data = ''
          res.setEncoding('utf8')
          res.on('data', (d) => (data += d))
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              type: String(res.headers['content-type'] ?? ''),
              body: data,
            }),
          )
        },
      )
      req.setTimeout(8000, () => req.destroy(new Error(`timeout ${method} ${path}`)))
      req.on('error', reject)
      if (body !== undefined) req.write(body)
      req.end()
    })
  }

  const segment = fc.oneof(
    fc.constantFrom(
      'messages',
      'templates',
      '_sandbox',
      'api',
      'health',
      'faults',
      'welcome',
      '..',
      '.',
      '%2F',
      '%00',
      '%ZZ',
      '%',
      '',
      'msg_x',
      'html',
      'eml',
      'text',
    ),
    fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
  )
  const path = fc.array(segment, { minLength: 1, maxLength: 5 }).chain((parts) =>
    fc
      .option(
        fc
          .string({ maxLength: 20 })
          .map((q) => `?${encodeURIComponent(q)}=${encodeURIComponent(q)}`),
        { nil: '' },
      )
      .map((query) => `/${parts.join('/')}${query}`),
  )
  const method = fc.constantFrom(
    'GET',
    'POST',
    'PUT',
    'PATCH',
    'DELETE',
    'HEAD',
    'OPTIONS',
    'TRACE',
    'PROPFIND',
  )
  const headers = fc.record(
    {
      authorization: fc.oneof(
        fc.constant('token sandbox_prop'),
        fc.constant('token live_x'),
        fc.string({ maxLength: 30 }).filter((s) => /^[\x21-\x7e ]*$/.test(s)),
      ),
      'content-type': fc.constantFrom(
        'application/json',
        'application/JSON; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
      ),
    },
    { requiredKeys: [] },
  )
  const body = fc.option(
    fc.oneof(
      fc.json(),
      fc.string({ maxLength: 200 }),
      fc
        .record({
          template: fc.string(),
          from: fc.string(),
          to: fc.oneof(fc.string(), fc.array(fc.string())),
          subject: fc.string(),
          templateVariables: fc.object(),
        })
        .map((o) => JSON.stringify(o)),
    ),
    { nil: undefined },
  )

  describe('any request', () => {
    it('never gets a 5xx, and every error is the JSON error shape', async () => {
      await fc.assert(
        fc.asyncProperty(method, path, headers, body, async (m, p, h, b) => {
          // The event stream and the long-poll are meant to stay open; they have their own tests.
          fc.pre(!/\/_sandbox\/api\/(events|messages\/wait)/.test(p))
          const res = await raw(m, p, h, m === 'GET' || m === 'HEAD' ? undefined : b)
          expect(res.status, `${m} ${p}`).toBeLessThan(500)
          if (res.status >= 400 && m !== 'HEAD') {
            expect(res.type, `${m} ${p}`).toContain('application/json')
            const parsed = JSON.parse(res.body) as {
              error: { code: string; message: string; details: unknown[] }
            }
            expect(parsed.error.code).toMatch(/^[a-z][a-z0-9_]*$/)
            expect(typeof parsed.error.message).toBe('string')
            expect(Array.isArray(parsed.error.details)).toBe(true)
          }
        }),
        { numRuns: 400 },
      )
      const health = await raw('GET', '/_sandbox/api/health', {}, undefined)
      expect(health.status).toBe(200)
    })
  })
})
