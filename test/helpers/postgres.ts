import { existsSync, readFileSync, watch } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { sql } from '../../src/store/postgres/client.js'
import { describe, inject } from 'vitest'

/**
 * The PostgreSQL side of the tests: the run's throwaway cluster (test/pg-setup.ts starts it) and
 * a fresh database per caller. Without PostgreSQL on the machine, `describePg` skips (the setup
 * printed the one line that says so).
 */
export const provided = inject('postgres')

/** `describe` when the run has a cluster, `describe.skip` otherwise. */
export const describePg = provided.url ? describe : describe.skip

/** Resolves once the run's cluster accepts connections; rejects with why it did not start. */
function clusterReady(dir: string): Promise<void> {
  const settled = () => existsSync(join(dir, 'ready')) || existsSync(join(dir, 'failed'))
  const outcome = () => {
    if (existsSync(join(dir, 'ready'))) return
    throw new Error(`The test cluster did not start: ${readFileSync(join(dir, 'failed'), 'utf8')}`)
  }
  if (settled()) return Promise.resolve().then(outcome)
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, () => {
      if (!settled()) return
      watcher.close()
      try {
        resolve(outcome())
      } catch (error) {
        reject(error)
      }
    })
    // The file may have come between the check above and the watch.
    if (settled()) watcher.emit('change')
  })
}

/**
 * A new, empty database of the run's cluster, for one test file (or one sandbox): its URL.
 *
 * @example
 * const url = await freshDatabase() // postgres://postgres@127.0.0.1:41234/t_k3…
 */
export async function freshDatabase(): Promise<string> {
  const { url, dir } = provided
  if (!url || !dir) throw new Error('No PostgreSQL in this run (describePg skips such tests).')
  await clusterReady(dir)
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const admin = await connectTo(url)
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  return `${url.slice(0, url.lastIndexOf('/'))}/${name}`
}

/**
 * A connection of its own to `url`, for a test to set a database up or look into it: end it
 * after. Its errors (its backend ended by the test) are the test's to see in its queries.
 *
 * @example
 * const client = await connectTo(url)
 * await client.query('SELECT 1')
 * await client.end()
 */
export async function connectTo(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  return client
}

/**
 * A tagged template over a connection of its own to `url`: each call one parameterised
 * statement, answering its rows. End it after.
 *
 * @example
 * const db = await sqlOn(url)
 * const rows = await db`SELECT version FROM sendbox_schema WHERE version > ${1}`
 * await db.end()
 */
export async function sqlOn(url: string) {
  const client = await connectTo(url)
  // A test's rows are whatever it selected.
  const run = async (strings: TemplateStringsArray, ...values: unknown[]): Promise<any[]> =>
    (await client.query(sql(strings, ...values))).rows
  return Object.assign(run, { end: () => client.end() })
}
