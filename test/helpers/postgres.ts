import { existsSync, readFileSync, watch } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
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
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  return `${url.slice(0, url.lastIndexOf('/'))}/${name}`
}
