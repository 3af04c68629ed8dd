import type { TestProject } from 'vitest/node'
import { findSpamd, startSpamd } from './helpers/spamd-server.js'

/** What the spam score's tests receive (`inject('spamd')`): the run's spamd, or why there is none. */
export interface ProvidedSpamd {
  /** `host` and `port` of the run's spamd; null when the tests are skipped. */
  host: string | null
  port: number | null
  skipped: string | null
}

declare module 'vitest' {
  export interface ProvidedContext {
    spamd: ProvidedSpamd
  }
}

export const SKIPPED =
  'SpamAssassin tests skipped: install Debian’s spamassassin (apt-get install spamassassin spamc), or run .ci/run'

/**
 * One throwaway spamd for the whole run (test/helpers/spamd-server.js), shared by the files that
 * test the spam score. Started without waiting: its rules load while global-setup.ts builds, and
 * the tests wait for it to answer PING. Without spamd those tests are skipped with one line,
 * unless SENDBOX_SPAMD_REQUIRED is set (CI, .ci/run): then the run fails.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!findSpamd()) {
    if (process.env.SENDBOX_SPAMD_REQUIRED)
      throw new Error('SENDBOX_SPAMD_REQUIRED is set, but spamd was not found (/usr/sbin/spamd).')
    console.log(SKIPPED)
    project.provide('spamd', { host: null, port: null, skipped: SKIPPED })
    return async () => {}
  }
  const spamd = await startSpamd()
  project.provide('spamd', { host: spamd.host, port: spamd.port, skipped: null })
  return () => spamd.stop()
}
