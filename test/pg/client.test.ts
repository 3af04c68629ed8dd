import { afterAll, beforeAll, expect, it } from 'vitest'
import { type Db, openPool, type Pool, sql } from '../../src/store/postgres/client.js'
import { codeOf, isUnreachable } from '../../src/store/postgres/guard.js'
import { describePg, freshDatabase } from '../helpers/postgres.js'
import { type Receiver, startReceiver } from '../helpers/receiver.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'

/**
 * The two failures of the PostgreSQL client sendbox used before (postgres.js 3.4.9, patched at
 * build time for the second), tried on the one it uses now (node-postgres, through openPool):
 * - a statement that fails after sending rows: postgres.js did not reset its row counter, and
 *   the next statement on that connection answered holes at the front (`SELECT 1` →
 *   `[null, null, {"a":1}]`);
 * - a connection that closes while statements are queued on it: postgres.js wrote the queued
 *   bytes from a setImmediate without checking that the socket was still there, and the
 *   TypeError thrown there ended the process (porsager/postgres#1154, #1208).
 */

const TEMPLATES = { 'hello.liquid': '---\nsubject: Hi\n---\n<p>Hello</p>' }

/** The URL with its port replaced (the same database, through a proxy). */
const through = (url: string, port: number) => {
  const next = new URL(url)
  next.port = String(port)
  return next.href
}

type Outcome = 'answered' | 'unreachable'

/**
 * Runs `loops` loops of `run` until `cuts` cuts of `proxy` are done, one cut after each `every`
 * answers since the last (no timer: the answers are the events); resolves what the calls came
 * to, with every error `run` threw rather than telling.
 */
async function underCuts(
  run: () => Promise<Outcome>,
  proxy: TcpProxy,
  { loops = 24, cuts = 15, every = 20 } = {},
) {
  const seen = { answered: 0, unreachable: 0, other: [] as unknown[] }
  let done = 0
  let answeredAtCut = 0
  const loop = async () => {
    while (done < cuts) {
      try {
        seen[await run()]++
      } catch (error) {
        seen.other.push(error)
      }
      if (seen.answered - answeredAtCut >= every) {
        answeredAtCut = seen.answered
        done++
        proxy.cut()
      }
    }
  }
  await Promise.all(Array.from({ length: loops }, loop))
  return seen
}

/** A statement on `db`: answered, or failed as sendbox answers 503 (guard.ts); anything else throws. */
const statement = (db: Db) => async (): Promise<Outcome> => {
  try {
    await db.query(sql`SELECT ${'x'}::text AS v`)
    return 'answered'
  } catch (error) {
    if (isUnreachable(error)) return 'unreachable'
    throw Object.assign(new Error(`${codeOf(error)}: ${error}`), { cause: error })
  }
}

describePg('the PostgreSQL client', () => {
  let url: string
  let proxy: TcpProxy
  let pool: Pool
  beforeAll(async () => {
    url = await freshDatabase()
    proxy = await startTcpProxy(Number(new URL(url).port))
    pool = openPool(through(url, proxy.port))
  })
  afterAll(async () => {
    await pool?.end()
    await proxy?.close()
  })

  it('answers a whole, correct result on a connection whose last statement failed after sending rows', async () => {
    const client = await pool.connect()
    try {
      // Rows 1 and 2 go out before row 3 divides by zero.
      await expect(
        client.query(
          sql`SELECT CASE WHEN i < 3 THEN i ELSE 1 / (i - 3) END AS a FROM generate_series(1, 3) i`,
        ),
      ).rejects.toMatchObject({ code: '22012' })
      expect((await client.query(sql`SELECT ${1}::int AS a`)).rows).toEqual([{ a: 1 }])
      expect((await client.query(sql`SELECT ${'b'}::text AS b, ${2}::int AS c`)).rows).toEqual([
        { b: 'b', c: 2 },
      ])
    } finally {
      client.release()
    }
  })

  it('settles statements queued on connections that close: each answered or unreachable (a 503), none hangs, nothing crashes', async () => {
    // 24 at once on a pool of 10: most wait for a connection, and each cut ends those under way.
    const seen = await underCuts(statement(pool), proxy)
    expect(seen.other.map(String)).toEqual([])
    expect(seen.unreachable).toBeGreaterThan(0)
    expect(seen.answered).toBeGreaterThanOrEqual(15 * 20)
    // The pool replaced its connections: the next statement is answered.
    expect((await pool.query(sql`SELECT ${3}::int AS a`)).rows).toEqual([{ a: 3 }])
  }, 60_000)
})

describePg('a sandbox whose database connections are cut under load', () => {
  let url: string
  let proxy: TcpProxy
  let receiver: Receiver
  let sandbox: TestSandbox
  beforeAll(async () => {
    url = await freshDatabase()
    proxy = await startTcpProxy(Number(new URL(url).port))
    receiver = await startReceiver()
    // With a webhook: the cuts end its deliveries' statements and attempts too.
    sandbox = await startTestSandbox(TEMPLATES, {
      memory: undefined,
      store: through(url, proxy.port),
      webhook: receiver.url,
    })
  })
  afterAll(async () => {
    await sandbox?.close()
    await proxy?.close()
    await receiver?.close()
  })

  it('answers each send 201 or 503 store_unavailable, and sends again once the connections are back', async () => {
    const send = async (): Promise<Outcome> => {
      const response = await sandbox.send({
        template: 'hello',
        from: 'shop@acme.test',
        to: 'ada@example.com',
        subject: 'Hi',
      })
      const body = await response.text()
      if (response.status === 201) return 'answered'
      if (response.status === 503 && body.includes('store_unavailable')) return 'unreachable'
      throw new Error(`${response.status} ${body}`)
    }
    const seen = await underCuts(send, proxy, { loops: 16, cuts: 6, every: 10 })
    expect(seen.other.map(String)).toEqual([])
    const after = await sandbox.send({
      template: 'hello',
      from: 'shop@acme.test',
      to: 'ada@example.com',
      subject: 'Hi',
    })
    expect(after.status).toBe(201)
  }, 60_000)
})
