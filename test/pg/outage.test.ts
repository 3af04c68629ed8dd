import { afterAll, beforeAll, expect, it } from 'vitest'
import { startCluster } from '../helpers/pg-cluster.js'
import { describePg } from '../helpers/postgres.js'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { jsonOf } from '../helpers/http.js'
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js'

const TEMPLATES = { 'hello.liquid': '---\nsubject: Hi\n---\n<p>Hello</p>' }
const send = (sandbox: TestSandbox, to: string) =>
  sandbox.send({ template: 'hello', from: 'shop@acme.test', to, subject: 'Hi' })

/** Polls health until it answers `status` (the database's restart is the event waited for). */
async function healthBecomes(health: () => Promise<Response>, status: number, deadlineMs = 20_000) {
  const until = Date.now() + deadlineMs
  for (;;) {
    const response = await health()
    if (response.status === status) return response
    if (Date.now() > until) throw new Error(`health stayed ${response.status}`)
    // The store learns that the database is back only when it next asks it: no event says so
    // sooner, so health is asked again.
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describePg('the database down and back', () => {
  // A cluster of its own: this file stops it.
  let cluster: Awaited<ReturnType<typeof startCluster>>
  let sandbox: TestSandbox
  beforeAll(async () => {
    cluster = await startCluster()
    // Trust authentication ignores the password: it is here to be looked for in every answer.
    const store = cluster.url.replace('postgres@', 'postgres:pw-not-shown@')
    sandbox = await startTestSandbox(TEMPLATES, { memory: undefined, store })
  }, 60_000)
  afterAll(async () => {
    await sandbox?.close()
    await cluster?.destroy()
  })

  it('answers 503 store_unavailable naming the host, health 503, and works again without a restart', async () => {
    expect((await send(sandbox, 'before@example.com')).status).toBe(201)
    await cluster.stop()
    const refused = await send(sandbox, 'during@example.com')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    const text = await refused.clone().text()
    expect(text).not.toContain('pw-not-shown')
    const error = await errorOf(refused)
    expect(error.code).toBe('store_unavailable')
    expect(error.message).toContain(`127.0.0.1:${cluster.port}/postgres`)
    const read = await sandbox.api('/_sandbox/api/messages')
    expect(read.status).toBe(503)
    const health = await sandbox.api('/_sandbox/api/health')
    expect(health.status).toBe(503)
    const body = await jsonOf(health)
    expect(body).toMatchObject({
      status: 'unavailable',
      store: { name: `127.0.0.1:${cluster.port}/postgres` },
    })
    expect(JSON.stringify(body)).not.toContain('pw-not-shown')

    await cluster.start()
    await healthBecomes(() => sandbox.api('/_sandbox/api/health'), 200)
    expect((await jsonOf(sandbox.api('/_sandbox/api/health'))).store).toEqual({
      kind: 'postgres',
      format: SCHEMA_VERSION,
    })
    expect((await send(sandbox, 'after@example.com')).status).toBe(201)
    // Nothing acknowledged was lost; the refused send was not stored.
    const addresses = (await sandbox.messages()).map((m) => m.to[0]!.address)
    expect(addresses).toEqual(['after@example.com', 'before@example.com'])
  })

  it('with projects, health without a token is 503 too while the database is down, naming nothing of it', async () => {
    const store = cluster.url.replace('postgres@', 'postgres:pw-not-shown@')
    const projects = {
      projects: { acme: { tokens: ['sandbox_acme_outage'] } },
      admin: { tokens: ['sandbox_admin_outage'] },
    }
    const shared = await startTestSandbox(TEMPLATES, { memory: undefined, store, projects })
    try {
      const anonymous = (s: TestSandbox) => s.api('/_sandbox/api/health', { auth: false })
      const up = await anonymous(shared)
      expect(up.status).toBe(200)
      expect(await jsonOf(up)).toEqual({
        status: 'ok',
        version: expect.any(String),
        store: { kind: 'postgres', format: SCHEMA_VERSION },
      })
      await cluster.stop()
      const down = await anonymous(shared)
      expect(down.status).toBe(503)
      expect(down.headers.get('retry-after')).toBe('1')
      // Only status, version and the store's format: no host, no reason, to a caller without a token.
      expect(await jsonOf(down)).toEqual({
        status: 'unavailable',
        version: expect.any(String),
        store: { kind: 'postgres', format: SCHEMA_VERSION },
      })
      await cluster.start()
      await healthBecomes(() => anonymous(shared), 200)
    } finally {
      await shared.close()
    }
  })
})
