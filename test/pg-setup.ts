import type { TestProject } from 'vitest/node'
import { findPgBin, planCluster } from './helpers/pg-cluster.js'

/** What the PostgreSQL tests receive (`inject('postgres')`): the cluster, or why there is none. */
export interface ProvidedPostgres {
  /** The `postgres` database as the superuser; null when the tests are skipped. */
  url: string | null
  /** The cluster's folder: `ready` (or `failed`, with why) appears in it once it is up. */
  dir: string | null
  skipped: string | null
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ProvidedPostgres
  }
}

export const SKIPPED =
  'PostgreSQL tests skipped: install Debian’s postgresql (apt-get install postgresql), or run .ci/run'

/**
 * One throwaway PostgreSQL cluster for the whole run, shared by the files that test the
 * PostgreSQL store (each in a database of its own). Started without waiting: initdb runs while
 * global-setup.ts builds, and the tests wait for its `ready` file. Without initdb and pg_ctl the
 * PostgreSQL tests are skipped with one line, unless SENDBOX_PG_REQUIRED is set (CI, .ci/run):
 * then the run fails.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const bin = findPgBin()
  if (!bin) {
    if (process.env.SENDBOX_PG_REQUIRED)
      throw new Error('SENDBOX_PG_REQUIRED is set, but initdb and pg_ctl were not found.')
    console.log(SKIPPED)
    project.provide('postgres', { url: null, dir: null, skipped: SKIPPED })
    return async () => {}
  }
  const cluster = await planCluster({ bin })
  const { writeFile } = await import('node:fs/promises')
  const { join } = await import('node:path')
  const marked = cluster.ready.then(
    () => writeFile(join(cluster.dir, 'ready'), 'ok'),
    (error: Error) => writeFile(join(cluster.dir, 'failed'), error.message),
  )
  project.provide('postgres', { url: cluster.url, dir: cluster.dir, skipped: null })
  return async () => {
    await marked
    await cluster.destroy()
  }
}
