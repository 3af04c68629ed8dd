import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { WaitTimeoutError } from '../src/index.js'
import { startCli } from './helpers/cli.js'
import { errorOf, TOKEN, type TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

/**
 * Rejected sends leave a trace: kept (bounded, no token, no body) and listed by the inspector,
 * named by a wait that timed out, and one console line per request when logs are on.
 */

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({
      'welcome.liquid': '<p>Hi {{ name }}, open {{ dashboardUrl }}</p>',
    })
  })
  afterAll(() => sandbox?.close())
  beforeEach(() => sandbox.clear())

  const welcome = (extra: Record<string, unknown> = {}) => ({
    template: 'welcome',
    from: 'Acme <hello@acme.test>',
    to: 'Ada <ada@example.com>',
    subject: 'Welcome',
    templateVariables: { name: 'Ada' },
    ...extra,
  })
  const rejections = async (query = '') =>
    (await (await fetch(`${sandbox.url}/_sandbox/api/rejections${query}`)).json()) as {
      rejections: Array<Record<string, any>>
      total: number
    }

  describe('GET /_sandbox/api/rejections', () => {
    it('lists a refused send: status, code, message, template, recipients, subject, project; never the token or the variables', async () => {
      expect(
        (await sandbox.send(welcome({ templateVariables: { name: 'Ada', secretVar: 'hunter2' } })))
          .status,
      ).toBe(422)
      const { rejections: list, total } = await rejections()
      expect(total).toBe(1)
      expect(list[0]).toMatchObject({
        status: 422,
        code: 'missing_variables',
        template: 'welcome',
        to: ['Ada <ada@example.com>'],
        from: 'Acme <hello@acme.test>',
        subject: 'Welcome',
        tokenHint: expect.stringMatching(/^sandbox_…/),
        project: expect.stringMatching(/^[0-9a-f]{8}$/),
        details: [expect.objectContaining({ variable: 'dashboardUrl' })],
      })
      expect(list[0]!.id).toMatch(/^rej_/)
      expect(list[0]!.message).toContain('dashboardUrl')
      const json = JSON.stringify(list)
      expect(json).not.toContain(TOKEN)
      expect(json).not.toContain('hunter2')
    })

    it('keeps a 403 of a live token without any trace of the token', async () => {
      const live = 'live_9f8e7d6c5b4a39281706'
      expect((await sandbox.send(welcome(), live)).status).toBe(403)
      const [rejection] = (await rejections()).rejections
      expect(rejection).toMatchObject({
        status: 403,
        code: 'sandbox_token_required',
        project: null,
        tokenHint: null,
        to: null,
      })
      expect(JSON.stringify(rejection)).not.toContain('9f8e7d6c5b4a39281706'.slice(-4))
    })

    it('is bounded to the newest 100, newest first, and cuts long fields', async () => {
      for (let i = 0; i < 105; i++) await sandbox.send(welcome({ subject: `S${i}` }))
      const { rejections: list, total } = await rejections('?limit=1000')
      expect(total).toBe(100)
      expect(list[0]!.subject).toBe('S104')
      expect(list.at(-1)!.subject).toBe('S5')
      await sandbox.send(
        welcome({
          subject: 'x'.repeat(5000),
          to: Array.from({ length: 80 }, (_, i) => `u${i}@example.com`),
        }),
      )
      const [long] = (await rejections()).rejections
      expect(long!.code).toBe('validation_failed')
      expect(long!.subject.length).toBeLessThanOrEqual(200)
      expect(long!.to.length).toBeLessThanOrEqual(50)
      expect(JSON.stringify(long).length).toBeLessThan(20_000)
    })

    it('filters like the message list; DELETE clears; a full clear() forgets them too', async () => {
      await sandbox.send(welcome())
      await sandbox.send(welcome({ to: 'bob@example.com' }))
      expect((await rejections('?to=bob')).total).toBe(1)
      expect((await sandbox.rejections({ to: 'ada@' })).map((r) => r.to)).toEqual([
        ['Ada <ada@example.com>'],
      ])
      expect(
        (await fetch(`${sandbox.url}/_sandbox/api/rejections`, { method: 'DELETE' })).status,
      ).toBe(204)
      expect((await rejections()).total).toBe(0)
      await sandbox.send(welcome())
      await sandbox.clear()
      expect((await rejections()).total).toBe(0)
    })

    it('the event stream carries a rejected event', async () => {
      const controller = new AbortController()
      const response = await fetch(`${sandbox.url}/_sandbox/api/events`, {
        signal: controller.signal,
      })
      const reader = response.body!.getReader()
      let text = ''
      await reader.read()
      await sandbox.send(welcome())
      // Bounded: without the event, the stream only carries heartbeats.
      const deadline = setTimeout(() => controller.abort(), 5000)
      try {
        while (!text.includes('event: rejected'))
          text += new TextDecoder().decode((await reader.read()).value)
      } catch {
        // Aborted: the assertion below says what was missing.
      } finally {
        clearTimeout(deadline)
        controller.abort()
      }
      expect(text).toContain('event: rejected')
      expect(text).toContain('"code":"missing_variables"')
    })
  })

  describe('a wait that times out names recent rejected sends that match its filter', () => {
    it('over HTTP: 404 wait_timeout says 2 sends to ada@example.com were rejected, and why', async () => {
      await sandbox.send(welcome())
      await sandbox.send(welcome())
      await sandbox.send(welcome({ to: 'bob@example.com' }))
      const response = await fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=ada@example.com&timeout=100`,
      )
      expect(response.status).toBe(404)
      const error = await errorOf(response)
      expect(error.code).toBe('wait_timeout')
      expect(error.message).toContain(
        '2 sends to ada@example.com were rejected recently: 422 missing_variables (×2): ',
      )
      expect(error.message).not.toContain('..')
      expect(error.message).toContain('dashboardUrl')
      expect(error.message).not.toContain('bob@')
    })

    it("in-process: WaitTimeoutError's message says it too; with after: 'now', only rejections since the call count", async () => {
      await sandbox.send(welcome())
      const error = await sandbox
        .waitForMessage({ to: 'ada@example.com', timeout: 100 })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(WaitTimeoutError)
      expect((error as Error).message).toContain(
        '1 send to ada@example.com was rejected recently: 422 missing_variables',
      )
      const next = sandbox
        .waitForMessage({ to: 'ada@example.com', after: 'now', timeout: 300 })
        .catch((e: unknown) => e)
      expect(((await next) as Error).message).not.toContain('rejected')
      const again = sandbox
        .waitForMessage({ to: 'ada@example.com', after: 'now', timeout: 300 })
        .catch((e: unknown) => e)
      await sandbox.send(welcome({ templateVariables: {} }))
      expect(((await again) as Error).message).toMatch(
        /1 send to ada@example\.com was rejected recently: 422 missing_variables: .*dashboardUrl, name/,
      )
    })

    it('says nothing about rejections when there were none', async () => {
      const response = await fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=ada@example.com&timeout=50`,
      )
      expect((await errorOf(response)).message).not.toContain('rejected')
    })
  })

  describe('one console line per request (logs on)', () => {
    it('method, path, status, code, template and recipients; never the token; no inbox reads', async () => {
      const secret = 'sandbox_console_secret_0123456789'
      const cli = await startCli(['--port', '0', '--memory', '--templates', 'templates'])
      const post = (body: unknown, token = secret) =>
        fetch(`${cli.url}/messages`, {
          method: 'POST',
          headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      const ok = {
        template: 'welcome',
        from: 'Acme <hello@acme.test>',
        to: ['Ada <ada@example.com>', 'bob@example.com'],
        subject: 'Hi',
        templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test' },
      }
      expect((await post(ok)).status).toBe(201)
      expect((await post({ ...ok, templateVariables: { name: 'Ada' } })).status).toBe(422)
      expect((await post(ok, 'live_0123456789abcdef')).status).toBe(403)
      // A token in the query of an inspector URL: refused as a parameter the wait does not take,
      // and still never written to the console.
      expect(
        (
          await fetch(
            `${cli.url}/_sandbox/api/messages/wait?to=carol@example.com&timeout=50&token=${secret}`,
          )
        ).status,
      ).toBe(400)
      await fetch(`${cli.url}/_sandbox/api/messages`)
      await fetch(`${cli.url}/_sandbox/`)
      const result = await cli.stop()
      const lines = result.stdout.split('\n').filter((l) => / \(\d+ ms\)$/.test(l))
      expect(lines).toHaveLength(4)
      expect(lines[0]).toMatch(
        /POST \/messages 201 welcome → ada@example\.com, bob@example\.com \(\d+ ms\)$/,
      )
      expect(lines[1]).toMatch(
        /POST \/messages 422 missing_variables welcome → ada@example\.com, bob@example\.com \(\d+ ms\)$/,
      )
      expect(lines[2]).toMatch(/POST \/messages 403 sandbox_token_required \(\d+ ms\)$/)
      expect(lines[3]).toMatch(
        /GET \/_sandbox\/api\/messages\/wait\?to=carol%40example\.com&timeout=50&token=%E2%80%A6 400 invalid_parameter \(\d+ ms\)$/,
      )
      expect(result.stdout + result.stderr).not.toContain(secret)
      expect(result.stdout + result.stderr).not.toContain('live_0123456789abcdef')
    })
  })
})
