import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SendboxOptions } from '../../src/config.js'
import { MAX_ARMED_FAULTS } from '../../src/core/faults.js'
import { MAX_REJECTIONS } from '../../src/core/rejections.js'
import { describePg, freshDatabase } from '../helpers/postgres.js'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { openEventStream } from '../helpers/sse.js'
import { onEachStore } from '../helpers/stores.js'

/**
 * Two projects on one sandbox, on both stores: what one project does never crowds out the
 * other's. Billing arms the most faults a project may, and acme still arms its first; billing,
 * and anyone sending with a token no project lists, are refused more sends than are kept, and
 * acme's one rejected send is still listed. Nothing a project reads moves with the other's
 * sends: its list's cursor, health's `bytes` and `dropped`, `pending` webhook deliveries, and the
 * count a clear of every project tells its event stream.
 */

const ACME = 'sandbox_acme_fair'
const BILLING = 'sandbox_billing_fair'
const ADMIN = 'sandbox_admin_fair'

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start(
      { 'welcome.liquid': '<p>Hi {{ name }}</p>' },
      {
        projects: {
          projects: { acme: { tokens: [ACME] }, billing: { tokens: [BILLING] } },
          admin: { tokens: [ADMIN] },
        },
      },
    )
  })
  afterAll(() => sandbox?.close())

  const arm = (token: string) =>
    sandbox.api('/_sandbox/api/faults', {
      method: 'POST',
      json: { status: 503, match: { to: 'nobody' } },
      auth: token,
    })

  it("the cap on armed faults counts each project's own", async () => {
    for (let i = 0; i < MAX_ARMED_FAULTS; i++) expect((await arm(BILLING)).status).toBe(201)
    const over = await arm(BILLING)
    expect(over.status).toBe(409)
    expect((await errorOf(over)).code).toBe('too_many_faults')
    // Acme's list is empty, and its first fault is armed.
    expect((await arm(ACME)).status).toBe(201)
  })

  it('rejections keep the newest of each project, and those without a valid token apart', async () => {
    const refused = (token: string, subject: string) =>
      sandbox.send({ template: 'nope', from: 'a@acme.test', to: 'x@example.com', subject }, token)
    expect((await refused(ACME, 'acme-only')).status).toBe(422)
    for (let i = 0; i <= MAX_REJECTIONS; i++) {
      expect((await refused(BILLING, `billing-${i}`)).status).toBe(422)
      expect((await refused('sandbox_listed_nowhere', `stranger-${i}`)).status).toBe(403)
    }
    const listed = async (token: string) =>
      (
        (await (
          await sandbox.api('/_sandbox/api/rejections?limit=1000', { auth: token })
        ).json()) as {
          rejections: Array<{ subject: string | null; project: string | null }>
        }
      ).rejections
    expect((await listed(ACME)).map((r) => r.subject)).toEqual(['acme-only'])
    const billing = await listed(BILLING)
    expect(billing).toHaveLength(MAX_REJECTIONS)
    expect(billing[0]!.subject).toBe(`billing-${MAX_REJECTIONS}`)
    const all = await listed(ADMIN)
    const of = (project: string | null) => all.filter((r) => r.project === project)
    expect(of('acme').map((r) => r.subject)).toEqual(['acme-only'])
    expect(of('billing')).toHaveLength(MAX_REJECTIONS)
    expect(of(null)).toHaveLength(MAX_REJECTIONS)
  })
})

const PROJECTS = {
  projects: {
    acme: { tokens: [ACME] },
    // Billing's deliveries go to a port where nothing listens, and wait a minute for their
    // retry: pending while the test reads.
    billing: {
      tokens: [BILLING],
      webhooks: [{ url: 'http://127.0.0.1:9/billing', secret: 'whsec_YmlsbGluZw==' }],
    },
  },
  admin: { tokens: [ADMIN] },
}

const message = (subject: string) => ({
  template: 'welcome',
  from: 'a@acme.test',
  to: 'x@example.com',
  subject,
  templateVariables: { name: 'Ada' },
})

onEachStore((store) => {
  describe("what a project reads moves with its own sends, never another's", () => {
    const open: TestSandbox[] = []
    const start = async (options: SendboxOptions = {}) => {
      const sandbox = await store.start(
        { 'welcome.liquid': '<p>Hi {{ name }}</p>' },
        { projects: PROJECTS, webhookBackoff: 60_000, ...options },
      )
      open.push(sandbox)
      return sandbox
    }
    afterAll(() => Promise.all(open.map((s) => s.close())))

    const sent = async (sandbox: TestSandbox, token: string, subject: string) =>
      expect((await sandbox.send(message(subject), token)).status).toBe(201)
    const read = async <T>(sandbox: TestSandbox, path: string, token: string) => {
      const response = await sandbox.api(path, { auth: token })
      expect(response.status).toBe(200)
      return (await response.json()) as T
    }
    const health = (sandbox: TestSandbox, token: string) =>
      read<{ messages: number; bytes: number; dropped: number }>(
        sandbox,
        '/_sandbox/api/health',
        token,
      ).then(({ messages, bytes, dropped }) => ({ messages, bytes, dropped }))

    it("a list's cursor: billing's sends leave acme's where it was", async () => {
      const sandbox = await start()
      const list = (query: string) =>
        read<{ messages: Array<{ subject: string }>; cursor: string }>(
          sandbox,
          `/_sandbox/api/messages?fields=summary${query}`,
          ACME,
        )
      await sent(sandbox, ACME, 'acme-1')
      const { cursor } = await list('')
      for (let i = 0; i < 3; i++) await sent(sandbox, BILLING, `billing-${i}`)
      expect((await list('')).cursor).toBe(cursor)
      expect((await list(`&after=${cursor}`)).messages).toEqual([])
      await sent(sandbox, ACME, 'acme-2')
      const after = await list(`&after=${cursor}`)
      expect(after.messages.map((m) => m.subject)).toEqual(['acme-2'])
      expect(after.cursor).not.toBe(cursor)
    })

    it("health's bytes and dropped: a project's own, the sandbox's to an admin", async () => {
      // The cap counts the whole sandbox (docs/team.md): billing's sends push acme's oldest out.
      const sandbox = await start({ maxMessages: 3 })
      await sent(sandbox, ACME, 'acme-1')
      const acme = await health(sandbox, ACME)
      expect(acme).toMatchObject({ messages: 1, dropped: 0 })
      expect(acme.bytes).toBeGreaterThan(0)
      await sent(sandbox, BILLING, 'billing-1')
      await sent(sandbox, BILLING, 'billing-2')
      // Billing's two sends: acme's figures are where they were.
      expect(await health(sandbox, ACME)).toEqual(acme)
      const billing = await health(sandbox, BILLING)
      expect(billing.messages).toBe(2)
      expect(await health(sandbox, ADMIN)).toEqual({
        messages: 3,
        bytes: acme.bytes + billing.bytes,
        dropped: 0,
      })
      // Past the cap: acme's one message goes, and is acme's dropped.
      await sent(sandbox, BILLING, 'billing-3')
      expect(await health(sandbox, ACME)).toEqual({ messages: 0, bytes: 0, dropped: 1 })
      // Billing's own oldest goes next: its dropped, not acme's.
      await sent(sandbox, BILLING, 'billing-4')
      expect(await health(sandbox, ACME)).toEqual({ messages: 0, bytes: 0, dropped: 1 })
      expect((await health(sandbox, BILLING)).dropped).toBe(1)
      const all = await health(sandbox, ADMIN)
      expect(all).toEqual({ ...(await health(sandbox, BILLING)), dropped: 2 })
    })

    it("pending webhook deliveries: a project's own", async () => {
      const sandbox = await start()
      await sent(sandbox, BILLING, 'billing-1')
      const pending = (token: string) =>
        read<{ pending: number }>(sandbox, '/_sandbox/api/webhooks', token).then((w) => w.pending)
      // Billing's deliveries cannot get through: they wait for a retry a minute away. Acme has
      // no webhook: none of them is acme's, and the admin counts them all (once billing's
      // message has queued all of its events, which come as it is delivered).
      await expect
        .poll(async () => [await pending(BILLING), await pending(ADMIN)], { timeout: 10_000 })
        .toSatisfy(([billing, all]) => billing! > 0 && all === billing)
      expect(await pending(ACME)).toBe(0)
    })

    it("a clear's count on the stream: each project hears its own", async () => {
      const sandbox = await start()
      const streams = await Promise.all(
        [ACME, BILLING, ADMIN].map((token) =>
          openEventStream(sandbox.url, '?fields=summary', { authorization: `token ${token}` }),
        ),
      )
      const [acme, billing, admin] = streams as [
        (typeof streams)[0],
        (typeof streams)[0],
        (typeof streams)[0],
      ]
      const clears = (stream: typeof acme) =>
        stream.events.filter((e) => e.event === 'cleared').map((e) => e.data.count as number)
      try {
        await sent(sandbox, ACME, 'acme-1')
        await sent(sandbox, ACME, 'acme-2')
        await sent(sandbox, BILLING, 'billing-1')
        // Acme's own clear: acme hears it with its count, billing nothing.
        const own = await sandbox.api('/_sandbox/api/messages', { method: 'DELETE', auth: ACME })
        expect(own.status).toBe(204)
        await admin.until((events) => events.some((e) => e.event === 'cleared'))
        await acme.until((events) => events.some((e) => e.event === 'cleared'))
        expect(clears(acme)).toEqual([2])
        await sent(sandbox, ACME, 'acme-3')
        await sent(sandbox, BILLING, 'billing-2')
        await sent(sandbox, BILLING, 'billing-3')
        // The admin's clear of everything: each project hears how many of its own went.
        const all = await sandbox.api('/_sandbox/api/messages', { method: 'DELETE', auth: ADMIN })
        expect(all.status).toBe(204)
        for (const stream of streams)
          await stream.until((events) => events.filter((e) => e.event === 'cleared').length > 0)
        await admin.until((events) => events.filter((e) => e.event === 'cleared').length === 2)
        await acme.until((events) => events.filter((e) => e.event === 'cleared').length === 2)
        expect(clears(admin)).toEqual([2, 4])
        expect(clears(acme)).toEqual([2, 1])
        expect(clears(billing)).toEqual([3])
      } finally {
        for (const stream of streams) stream.close()
      }
    })
  })
})

describePg("a clear of every project, heard on another process's streams", () => {
  it('tells each project its own count there too', async () => {
    const url = await freshDatabase()
    const options = { memory: undefined, store: url, projects: PROJECTS }
    const templates = { 'welcome.liquid': '<p>Hi {{ name }}</p>' }
    const a = await startTestSandbox(templates, options)
    const b = await startTestSandbox(templates, options)
    const stream = await openEventStream(b.url, '?fields=summary', {
      authorization: `token ${ACME}`,
    })
    try {
      for (const [token, subject] of [
        [ACME, 'acme-1'],
        [BILLING, 'billing-1'],
        [BILLING, 'billing-2'],
      ] as const)
        expect((await a.send(message(subject), token)).status).toBe(201)
      const all = await a.api('/_sandbox/api/messages', { method: 'DELETE', auth: ADMIN })
      expect(all.status).toBe(204)
      const events = await stream.until((e) => e.some((event) => event.event === 'cleared'))
      expect(events.filter((e) => e.event === 'cleared').map((e) => e.data.count)).toEqual([1])
    } finally {
      stream.close()
      await Promise.all([a.close(), b.close()])
    }
  })
})
