import postgres from 'postgres'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { jsonOf } from '../helpers/http.js'
import { describePg, freshDatabase } from '../helpers/postgres.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

const TEMPLATES = { 'hello.liquid': '---\nsubject: Hi\n---\n<p>Hello</p>' }

describePg('a dropped connection', () => {
  let url: string
  let sandbox: TestSandbox
  beforeAll(async () => {
    url = await freshDatabase()
    sandbox = await startTestSandbox(TEMPLATES, { memory: undefined, store: url })
  })
  afterAll(() => sandbox?.close())

  it('does not fail a read: an administrator ends every connection (57P01), the next reads answer', async () => {
    const sent = await sandbox.send({
      template: 'hello',
      from: 'a@acme.test',
      to: 'r@example.com',
      subject: 'Hi',
    })
    expect(sent.status).toBe(201)
    const admin = postgres(url, { max: 1, onnotice: () => {} })
    try {
      for (let round = 0; round < 5; round++) {
        // Connections open in the pool: ten reads at once.
        const warm = await Promise.all(
          Array.from({ length: 10 }, () => sandbox.api('/_sandbox/api/messages?limit=1')),
        )
        expect(warm.map((r) => r.status)).toEqual(warm.map(() => 200))
        const [{ ended }] = (await admin`
          SELECT count(pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`) as unknown as [
          { ended: number },
        ]
        expect(ended).toBeGreaterThan(0)
        // At once, before the client has seen its connections go: each read is tried again.
        const reads = await Promise.all(
          Array.from({ length: 10 }, () => sandbox.api('/_sandbox/api/messages?limit=1')),
        )
        const statuses = await Promise.all(
          reads.map(async (r) => (r.status === 200 ? 200 : `${r.status} ${await r.text()}`)),
        )
        expect(statuses).toEqual(reads.map(() => 200))
        expect((await jsonOf(sandbox.api('/_sandbox/api/messages'))).total).toBe(1)
      }
    } finally {
      await admin.end()
    }
  })
})
