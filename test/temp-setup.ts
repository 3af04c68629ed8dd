import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * One folder for every temporary file of a test run, removed when the run ends: the tests' own
 * folders (`tempDir`, `mkdtemp`) and those of the servers, clusters and tools they start, which
 * inherit TMPDIR. Each test's folders used to stay in /tmp: 2,689 of them after a day of runs
 * on this machine. First in `globalSetup`, so that what the other setups start uses it too, and
 * its teardown runs last.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'sendbox-tests-'))
  // As /tmp is (sticky, anyone may make a folder there): under root, PostgreSQL runs as the
  // `postgres` user (test/helpers/pg-cluster.js), which mkdtemp's 0700 kept out of its cluster.
  chmodSync(dir, 0o1777)
  process.env.TMPDIR = dir
  return () => rmSync(dir, { recursive: true, force: true })
}
