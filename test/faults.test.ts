import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { FAULT_STATUSES } from '../src/core/faults.js'
import { errorOf, type TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({
      'welcome.liquid': 'Hi {{ name }}',
      'receipt.liquid': 'Order {{ id }}',
    })
  })
  afterAll(() => sandbox?.close())
  beforeEach(async () => {
    await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
    await sandbox.clear()
  })

  const welcome = (to = 'Ada <ada@example.com>') => ({
    template: 'welcome',
    from: 'Acme <hello@acme.test>',
    to,
    subject: 'Hi',
    templateVariables: { name: 'Ada' },
  })
  const receipt = (to = 'ada@example.com') => ({
    template: 'receipt',
    from: 'Acme <hello@acme.test>',
    to,
    subject: 'Receipt',
    templateVariables: { id: 7 },
  })

  const faults = (init: RequestInit = {}) => fetch(`${sandbox.url}/_sandbox/api/faults`, init)
  const arm = (body: unknown) =>
    faults({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const listed = async () =>
    (
      (await (await faults()).json()) as {
        faults: Array<{ status: number; remaining: number; match: object }>
      }
    ).faults

  describe('POST /_sandbox/api/faults', () => {
    it.each(FAULT_STATUSES.map((s) => [s]))(
      '%i: the next sends fail with it, code simulated_fault, in the JSON error shape',
      async (status) => {
        const armed = await arm({ status, count: 2 })
        expect(armed.status).toBe(201)
        expect(await armed.json()).toMatchObject({
          id: expect.any(String),
          status,
          remaining: 2,
          match: {},
          retryAfter: 1,
        })
        for (let i = 0; i < 2; i++) {
          const response = await sandbox.send(welcome())
          expect(response.status).toBe(status)
          const error = await errorOf(response)
          expect(error.code).toBe('simulated_fault')
          expect(error.message).toContain(String(status))
          expect(response.headers.get('retry-after')).toBe(status === 429 ? '1' : null)
        }
        expect((await sandbox.send(welcome())).status).toBe(201)
      },
    )

    it('a 429 carries Retry-After (retryAfter seconds, default 1)', async () => {
      await arm({ status: 429, retryAfter: 30 })
      const response = await sandbox.send(welcome())
      expect(response.status).toBe(429)
      expect(response.headers.get('retry-after')).toBe('30')
    })

    it('count defaults to 1; faults count down and disappear', async () => {
      await arm({ status: 500 })
      await arm({ status: 502, count: 3 })
      expect((await listed()).map((f) => [f.status, f.remaining])).toEqual([
        [500, 1],
        [502, 3],
      ])
      expect((await sandbox.send(welcome())).status).toBe(500)
      expect((await listed()).map((f) => [f.status, f.remaining])).toEqual([[502, 3]])
      expect((await sandbox.send(welcome())).status).toBe(502)
      expect((await listed()).map((f) => f.remaining)).toEqual([2])
      expect((await sandbox.send(welcome())).status).toBe(502)
      expect((await sandbox.send(welcome())).status).toBe(502)
      expect(await listed()).toEqual([])
      expect((await sandbox.send(welcome())).status).toBe(201)
    })

    it('match.template: only that template fails; others still succeed and do not use up the fault', async () => {
      await arm({ status: 503, count: 1, match: { template: 'receipt' } })
      expect((await sandbox.send(welcome())).status).toBe(201)
      expect((await listed())[0]).toMatchObject({ remaining: 1, match: { template: 'receipt' } })
      expect((await sandbox.send(receipt())).status).toBe(503)
      expect((await sandbox.send(receipt())).status).toBe(201)
    })

    it('match.to: a case-insensitive substring of any recipient', async () => {
      await arm({ status: 503, count: 5, match: { to: 'BOB@' } })
      expect((await sandbox.send(welcome('ada@example.com'))).status).toBe(201)
      expect((await sandbox.send(welcome('Bob <bob@example.com>'))).status).toBe(503)
      expect(
        (await sandbox.send(welcome(['ada@example.com', 'bob@example.com'] as unknown as string)))
          .status,
      ).toBe(503)
      expect((await listed())[0]!.remaining).toBe(3)
    })

    it('faulted sends are not stored (nor published)', async () => {
      await arm({ status: 503, count: 2 })
      await sandbox.send(welcome())
      await sandbox.send(welcome())
      expect(await sandbox.messages()).toEqual([])
      const stored = await (await fetch(`${sandbox.url}/_sandbox/api/messages`)).json()
      expect(stored).toMatchObject({ messages: [], total: 0 })
      await sandbox.send(welcome())
      expect(await sandbox.messages()).toHaveLength(1)
    })

    it('an invalid send is reported as invalid and does not use up a fault', async () => {
      await arm({ status: 503 })
      const invalid = await sandbox.send({ ...welcome(), subject: '' })
      expect(invalid.status).toBe(422)
      expect((await listed())[0]!.remaining).toBe(1)
    })

    it.each([
      [{}, 'status'],
      [{ status: 404 }, 'status'],
      [{ status: '503' }, 'status'],
      [{ status: 503, count: 0 }, 'count'],
      [{ status: 503, count: 1.5 }, 'count'],
      [{ status: 503, retryAfter: -1 }, 'retryAfter'],
      [{ status: 503, match: 'receipt' }, 'match'],
      [{ status: 503, match: { template: 1 } }, 'match.template'],
      [{ status: 503, match: { subject: 'x' } }, 'match.subject'],
      [{ status: 503, times: 2 }, 'times'],
      [[503], ''],
    ])('an invalid fault %j is 422 validation_failed naming %s', async (body, field) => {
      const response = await arm(body)
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('validation_failed')
      expect(error.details).toContainEqual(expect.objectContaining({ field }))
      expect(await listed()).toEqual([])
    })

    it('a body that is not JSON is 400 invalid_json', async () => {
      const response = await faults({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{ status: 503 }',
      })
      expect(response.status).toBe(400)
      expect((await errorOf(response)).code).toBe('invalid_json')
    })
  })

  describe('GET and DELETE /_sandbox/api/faults', () => {
    it('GET lists the armed faults', async () => {
      expect(await listed()).toEqual([])
      await arm({ status: 429, count: 2, match: { to: 'ada' }, retryAfter: 5 })
      expect(await listed()).toEqual([
        {
          id: expect.any(String),
          status: 429,
          remaining: 2,
          match: { to: 'ada' },
          retryAfter: 5,
          createdAt: expect.any(String),
        },
      ])
    })

    it('DELETE disarms them all: 204, and sends succeed again', async () => {
      await arm({ status: 503, count: 10 })
      await arm({ status: 500, count: 10 })
      const response = await faults({ method: 'DELETE' })
      expect(response.status).toBe(204)
      expect(await response.text()).toBe('')
      expect(await listed()).toEqual([])
      expect((await sandbox.send(welcome())).status).toBe(201)
    })

    it('other methods are 405 with Allow', async () => {
      const response = await faults({ method: 'PUT' })
      expect(response.status).toBe(405)
      expect(response.headers.get('allow')).toBe('GET, POST, DELETE, HEAD')
    })
  })

  describe('the sandbox_fault_<status> token prefix', () => {
    it.each(FAULT_STATUSES.map((s) => [s]))(
      'sandbox_fault_%i… always gets that status',
      async (status) => {
        for (let i = 0; i < 3; i++) {
          const response = await sandbox.send(welcome(), `sandbox_fault_${status}_ci`)
          expect(response.status).toBe(status)
          expect((await errorOf(response)).code).toBe('simulated_fault')
          if (status === 429) expect(response.headers.get('retry-after')).toBe('1')
        }
        expect(await sandbox.messages()).toEqual([])
      },
    )

    it('answers right after authentication: even an invalid body gets the fault', async () => {
      const response = await sandbox.api('/messages', {
        method: 'POST',
        auth: 'sandbox_fault_503_ci',
        headers: { 'content-type': 'text/plain' },
        body: 'nope',
      })
      expect(response.status).toBe(503)
    })

    it('a status that is not a fault status, or another spelling, is an ordinary sandbox token', async () => {
      expect((await sandbox.send(welcome(), 'sandbox_fault_404_ci')).status).toBe(201)
      expect((await sandbox.send(welcome(), 'sandbox_fault_ci')).status).toBe(201)
      expect((await sandbox.send(welcome(), 'sandbox_ci_fault_503')).status).toBe(201)
    })

    it('is still a sandbox token: without the prefix rules it is refused first (403)', async () => {
      expect((await sandbox.send(welcome(), 'live_fault_503')).status).toBe(403)
    })
  })

  describe('Prefer: code=<status> (one request, as Prism takes it)', () => {
    const prefer = (value: string, path = '/messages', body: unknown = welcome()) =>
      sandbox.api(path, {
        method: path === '/messages' ? 'POST' : 'GET',
        headers: { prefer: value },
        ...(path === '/messages' ? { json: body } : {}),
      })

    it.each(FAULT_STATUSES.map((s) => [s]))(
      'code=%i fails this one send with that simulated fault; the next goes through',
      async (status) => {
        const response = await prefer(`code=${status}`)
        expect(response.status).toBe(status)
        expect((await errorOf(response)).code).toBe('simulated_fault')
        expect(response.headers.get('retry-after')).toBe(status === 429 ? '1' : null)
        expect((await sandbox.send(welcome())).status).toBe(201)
        expect(await sandbox.messages()).toHaveLength(1)
      },
    )

    it('works on every emulated route, right after authentication', async () => {
      expect((await prefer('code=503', '/templates')).status).toBe(503)
      expect((await prefer('code=502', '/templates/welcome')).status).toBe(502)
      expect((await prefer('code=500', '/messages', { not: 'valid' })).status).toBe(500)
      const unauthenticated = await fetch(`${sandbox.url}/messages`, {
        method: 'POST',
        headers: { prefer: 'code=503' },
      })
      expect(unauthenticated.status).toBe(401)
    })

    it('any other code is 400 invalid_parameter naming Prefer and the allowed codes; other preferences are ignored', async () => {
      for (const value of ['code=201', 'code=418', 'code=abc', 'code=']) {
        const response = await prefer(value)
        expect(response.status, value).toBe(400)
        const error = await errorOf(response)
        expect(error).toMatchObject({
          code: 'invalid_parameter',
          details: [{ parameter: 'Prefer' }],
        })
        expect(error.message).toContain('code=429, code=500, code=502, code=503')
      }
      expect((await prefer('return=minimal')).status).toBe(201)
      expect((await prefer('respond-async, wait=5')).status).toBe(201)
      expect((await prefer('return=minimal, Code="503"')).status).toBe(503)
    })

    it('is documented beside the faults, on every emulated operation', async () => {
      const doc = (await (await fetch(`${sandbox.url}/_sandbox/api/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>
      }
      for (const [path, method] of [
        ['/messages', 'post'],
        ['/templates', 'get'],
        ['/templates/{slug}', 'get'],
      ] as const) {
        expect(doc.paths[path]![method]!.parameters, path).toContainEqual(
          expect.objectContaining({ name: 'Prefer', in: 'header' }),
        )
      }
    })
  })
})
