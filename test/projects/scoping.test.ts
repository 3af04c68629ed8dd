import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProjectsDefinition } from '../../src/core/projects.js'
import type { Operation } from '../../src/http/define.js'
import { inspectorOperations } from '../../src/inspector/index.js'
import { openApiOperation } from '../../src/server/openapi.js'
import { startReceiver, type Receiver } from '../helpers/receiver.js'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { openEventStream } from '../helpers/sse.js'
import { onEachStore } from '../helpers/stores.js'
import type { SendboxOptions } from '../../src/config.js'
import { LOG_FORMAT } from '../../src/store/log-format.js'
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js'

/**
 * Every inspector route of the route table (read from it: a route added later is walked too),
 * called with project B's token against project A's data: none of A's data comes back, nothing
 * of A's changes, and what only an admin may do is refused. A route that declares a project's
 * access but ignores the caller fails here.
 */

const A = 'sandbox_acme_ci_0123456789'
const B = 'sandbox_billing_0123456789'
const ADMIN = 'sandbox_admin_0123456789'
const SECRET = 'SECRET-ACME-7f3a'

export const PROJECTS: ProjectsDefinition = {
  projects: { acme: { tokens: [A] }, billing: { tokens: [B] } },
  admin: { tokens: [ADMIN] },
}

/** The whole walk, on a store: the JSON Lines log, and PostgreSQL when the run has a cluster. */
function scopingOn(store: () => Promise<SendboxOptions>, kind: 'log' | 'postgres') {
  let sandbox: TestSandbox
  let receiver: Receiver
  const mine: { message: string; delivery: string; address: string } = {
    message: '',
    delivery: '',
    address: '',
  }

  const send = (token: string, to: string, subject = SECRET) =>
    sandbox.send(
      {
        template: 'welcome',
        from: 'Acme <hello@acme.test>',
        to,
        subject,
        templateVariables: { name: 'Ada' },
      },
      token,
    )

  beforeAll(async () => {
    receiver = await startReceiver()
    sandbox = await startTestSandbox(
      { 'welcome.liquid': '<p>Hi {{ name }}, <a href="https://acme.test/x">open</a></p>' },
      { projects: PROJECTS, webhook: receiver.url, webhookBackoff: 10, ...(await store()) },
      { 'welcome.json': '{"name":"Ada"}' },
    )
    mine.address = `secret-acme+bounce@example.com`
    const sent = await send(A, mine.address)
    expect(sent.status).toBe(201)
    mine.message = ((await sent.json()) as { id: string }).id
    const bounced = await sandbox.api(
      `/_sandbox/api/messages/wait?status=bounced&timeout=10000&recipient=${encodeURIComponent(mine.address)}`,
      { auth: A },
    )
    expect(bounced.status).toBe(200)
    // A refused send of A's, a fault A armed, and A's webhook deliveries.
    await sandbox.send(
      { template: 'welcome', from: 'a@acme.test', to: 'x@acme.test', subject: SECRET },
      A,
    )
    expect(
      (
        await sandbox.api('/_sandbox/api/faults', {
          method: 'POST',
          json: { status: 503, count: 5, match: { to: 'nobody-acme' } },
          auth: A,
        })
      ).status,
    ).toBe(201)
    await receiver.until((r) => r.some((x) => x.body.type === 'message.bounced'))
    const hooks = (await (await sandbox.api('/_sandbox/api/webhooks', { auth: A })).json()) as {
      deliveries: { id: string }[]
    }
    mine.delivery = hooks.deliveries[0]!.id
  })
  afterAll(async () => {
    await sandbox?.close()
    await receiver?.close()
  })

  /** Requests for routes that show none in the document. */
  const EXAMPLES: Record<string, { body?: unknown; query?: Record<string, string> }> = {
    simulateEvent: { body: { type: 'opened' } },
    releaseMessage: { body: { to: ['me@example.com'] } },
  }

  /** A value for each path parameter: A's where the route reads A's data. */
  function pathOf(op: Operation): string {
    return op.path
      .replace(':id', op.path.startsWith('/_sandbox/api/webhooks') ? mine.delivery : mine.message)
      .replace(':address', encodeURIComponent(mine.address))
      .replace(':slug', 'welcome')
      .replace(':template', 'welcome')
      .replace(':case', 'default')
      .replace(':variant', '375-light')
  }

  /** The request a route is walked with: its first example's body and query, or the least it takes. */
  function requestOf(op: Operation): { path: string; body?: unknown } {
    const example = Object.values(op.examples ?? {})[0] ?? EXAMPLES[op.operationId]
    const query = new URLSearchParams(example?.query ?? {})
    if (op.query && 'timeout' in op.query) query.set('timeout', '0')
    const search = query.toString()
    return {
      path: `${pathOf(op)}${search ? `?${search}` : ''}`,
      ...(op.body ? { body: example?.body ?? {} } : {}),
    }
  }

  const routes = [...inspectorOperations, openApiOperation].filter(
    (op) => op.path !== '/_sandbox/api/events',
  )

  describe('every inspector route, with project B’s token against project A’s data', () => {
    it('every route under /_sandbox/api says what its caller may reach', () => {
      for (const op of [...inspectorOperations, openApiOperation])
        expect(op.security?.access, `${op.method} ${op.path}`).toBeDefined()
    })

    it.each(routes.map((op) => [`${op.method} ${op.path}`, op] as const))(
      '%s: none of A’s data, nothing of A’s changed',
      async (_name, op) => {
        const { path, body } = requestOf(op)
        const response = await sandbox.api(path, {
          method: op.method,
          auth: B,
          ...(body !== undefined ? { json: body } : {}),
        })
        const access = op.security!.access
        if (access === 'admin') expect(response.status).toBe(403)
        else expect(response.status).not.toBe(401)
        if (access === 'project' && /:id|:address/.test(op.path)) {
          // Not found, as if it did not exist (the answer names only what was asked for).
          expect(response.status).toBe(404)
          expect((await errorOf(response)).code).toMatch(/_not_found$/)
          return
        }
        const text = await response.text()
        for (const secret of [SECRET, mine.message, mine.delivery, 'secret-acme', 'nobody-acme'])
          expect(text).not.toContain(secret)
      },
    )

    it('left everything of A’s as it was', async () => {
      const get = async (path: string) =>
        (await (await sandbox.api(path, { auth: A })).json()) as Record<string, any>
      expect((await get(`/_sandbox/api/messages/${mine.message}`)).subject).toBe(SECRET)
      expect((await get('/_sandbox/api/suppressions')).total).toBe(1)
      expect((await get('/_sandbox/api/faults')).faults).toHaveLength(1)
      expect((await get('/_sandbox/api/rejections')).total).toBe(1)
      expect((await get('/_sandbox/api/webhooks')).total).toBeGreaterThan(0)
    })

    it('an admin token sees every project, and may narrow to one', async () => {
      await send(B, 'billing@example.com', 'billing mail')
      const all = (await (await sandbox.api('/_sandbox/api/messages', { auth: ADMIN })).json()) as {
        messages: { project: string }[]
      }
      expect(new Set(all.messages.map((m) => m.project))).toEqual(new Set(['acme', 'billing']))
      const acme = (await (
        await sandbox.api('/_sandbox/api/messages?project=acme', { auth: ADMIN })
      ).json()) as { messages: { project: string }[] }
      expect(acme.messages.every((m) => m.project === 'acme')).toBe(true)
    })

    it('a project that names another in ?project= gets nothing of it', async () => {
      const page = (await (
        await sandbox.api('/_sandbox/api/messages?project=acme', { auth: B })
      ).json()) as { total: number }
      expect(page.total).toBe(0)
    })
  })

  describe('without a valid token', () => {
    it.each(
      routes
        .filter((op) => op.security!.access !== 'public')
        .map((op) => [`${op.method} ${op.path}`, op] as const),
    )('%s is 401 unauthorized', async (_name, op) => {
      const { path, body } = requestOf(op)
      const response = await sandbox.api(path, {
        method: op.method,
        auth: false,
        ...(body !== undefined ? { json: body } : {}),
      })
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Token')
      expect((await errorOf(response)).code).toBe('unauthorized')
    })

    it('health says only status, version and the store with its format', async () => {
      const response = await sandbox.api('/_sandbox/api/health', { auth: false })
      expect(response.status).toBe(200)
      const body = (await response.json()) as { store: unknown }
      expect(Object.keys(body).sort()).toEqual(['status', 'store', 'version'])
      expect(body.store).toEqual(
        kind === 'log' ? { kind, format: LOG_FORMAT } : { kind, format: SCHEMA_VERSION },
      )
    })

    it('a token no project lists is refused on the API (403) and the inspector (401)', async () => {
      const sent = await send('sandbox_anything_else', 'ada@example.com')
      expect(sent.status).toBe(403)
      expect((await errorOf(sent)).code).toBe('sandbox_token_required')
      const listed = await sandbox.api('/_sandbox/api/messages', { auth: 'sandbox_anything_else' })
      expect(listed.status).toBe(401)
    })
  })

  describe('the event stream and waits, two projects sending to one address', () => {
    it('each project’s stream and wait gets its own message only', async () => {
      const a = await openEventStream(sandbox.url, '', { authorization: `token ${A}` })
      const b = await openEventStream(sandbox.url, '', { authorization: `token ${B}` })
      try {
        const waitB = sandbox.api(
          '/_sandbox/api/messages/wait?recipient=shared%40example.com&after=now&timeout=10000',
          { auth: B },
        )
        // The wait is registered once the health counts it (a stream each, and the wait).
        await expect
          .poll(
            async () =>
              (
                (await (await sandbox.api('/_sandbox/api/health', { auth: ADMIN })).json()) as {
                  subscribers: number
                }
              ).subscribers,
          )
          .toBeGreaterThanOrEqual(3)
        expect((await send(A, 'shared@example.com', 'from acme')).status).toBe(201)
        expect((await send(B, 'shared@example.com', 'from billing')).status).toBe(201)
        const got = (await (await waitB).json()) as { subject: string; project: string }
        expect(got).toMatchObject({ subject: 'from billing', project: 'billing' })
        await b.until((events) => events.some((e) => e.event === 'message'))
        await a.until((events) => events.some((e) => e.event === 'message'))
        const subjects = (s: typeof a) =>
          s.events.filter((e) => e.event === 'message').map((e) => e.data.subject)
        expect(subjects(b)).toEqual(['from billing'])
        expect(subjects(a)).toEqual(['from acme'])
      } finally {
        a.close()
        b.close()
      }
    })

    it('a fault a project arms fails its own sends only', async () => {
      const armed = await sandbox.api('/_sandbox/api/faults', {
        method: 'POST',
        json: { status: 502, count: 2, match: { to: 'fault-target' } },
        auth: B,
      })
      expect(armed.status).toBe(201)
      expect((await send(A, 'fault-target@example.com', 'a')).status).toBe(201)
      expect((await send(B, 'fault-target@example.com', 'b')).status).toBe(502)
      expect((await send(A, 'fault-target@example.com', 'a')).status).toBe(201)
      expect((await send(B, 'fault-target@example.com', 'b')).status).toBe(502)
      expect((await send(B, 'fault-target@example.com', 'b')).status).toBe(201)
    })
  })
}

onEachStore((store) => scopingOn(store.options, store.name === 'json' ? 'log' : 'postgres'))
