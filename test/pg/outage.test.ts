import { afterAll, beforeAll, expect, it } from 'vitest'
import { startCluster } from '../helpers/pg-cluster.js'
import { describePg } from '../helpers/postgres.js'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { jsonOf } from '../helpers/http.js'

const TEMPLATES = { 'hello.liquid': '---\nsubject: Hi\n---\n<p>Hello</p>' }
const send = (sandbox: TestSandbox, to: string) =>
  sandbox.send({ template: 'hello', from: 'shop@acme.test', to, subject: 'Hi' })

/** Polls health until it answers `status` (the database's restart is the event waited for). */
async function healthBecomes(sandbox: TestSandbox, status: number, deadlineMs = 20_000) {
  const until = Date.now() + deadlineMs
  for (;;) {
    const response = await sandbox.api('/_sandbox/api/health')
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
    await healthBecomes(sandbox, 200)
    expect((await send(sandbox, 'after@example.com')).status).toBe(201)
    // Nothing acknowledged was lost; the refused send was not stored.
    const addresses = (await sandbox.messages()).map((m) => m.to[0]!.address)
    expect(addresses).toEqual(['after@example.com', 'before@example.com'])
  })
})
