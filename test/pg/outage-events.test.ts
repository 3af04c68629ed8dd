import { afterAll, beforeAll, expect, it } from 'vitest'
import { startCluster } from '../helpers/pg-cluster.js'
import { describePg } from '../helpers/postgres.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { openEventStream } from '../helpers/sse.js'

/**
 * docs/log-faults.md, on PostgreSQL: the event stream says when the process stops reaching the
 * database (`log` `unavailable`, with the client's code, never the password) and when it
 * reaches it again (`ok`), with no request made meanwhile: the process's own claims for work
 * find both. What the inbox shows the outage from.
 */

describePg('the event stream while the database is away', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>
  let sandbox: TestSandbox
  beforeAll(async () => {
    cluster = await startCluster()
    const store = cluster.url.replace('postgres@', 'postgres:pw-not-shown@')
    sandbox = await startTestSandbox({ 'hello.liquid': 'Hello' }, { memory: undefined, store })
  }, 60_000)
  afterAll(async () => {
    await sandbox?.close()
    await cluster?.destroy()
  })

  it('a `log` event `unavailable` when the database goes, one `ok` when it is back', async () => {
    const stream = await openEventStream(sandbox.url)
    try {
      const logs = () => stream.events.filter((e) => e.event === 'log').map((e) => e.data)
      await cluster.stop()
      await stream.until(() => logs().length === 1, 15_000)
      expect(logs()[0]).toMatchObject({
        state: 'unavailable',
        file: null,
        reason: expect.any(String),
      })
      expect(logs()[0].message).toContain(`127.0.0.1:${cluster.port}/postgres`)
      expect(JSON.stringify(logs())).not.toContain('pw-not-shown')
      await cluster.start()
      await stream.until(() => logs().length === 2, 20_000)
      expect(logs()[1]).toEqual({ state: 'ok', file: null })
      expect((await sandbox.api('/_sandbox/api/health')).status).toBe(200)
    } finally {
      stream.close()
    }
  })
})
