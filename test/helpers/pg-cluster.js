// A throwaway PostgreSQL cluster for the tests and the team bench: Debian's postgresql (initdb and
// pg_ctl, run as the `postgres` user when we are root, since initdb refuses root), a temporary
// folder, a free port on 127.0.0.1, trust authentication on loopback only. Plain JavaScript so
// that bench/ (plain Node) and the vitest setup share it.
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './free-port.js'

/**
 * The folder holding initdb and pg_ctl: SENDBOX_PG_BIN, else the newest of Debian's
 * /usr/lib/postgresql/<major>/bin, else `pg_config --bindir`; null when there is none.
 *
 * @example
 * const bin = findPgBin() // → '/usr/lib/postgresql/15/bin'
 */
export function findPgBin() {
  const has = (dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))
  if (process.env.SENDBOX_PG_BIN)
    return has(process.env.SENDBOX_PG_BIN) ? process.env.SENDBOX_PG_BIN : null
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    const majors = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))
    for (const major of majors)
      if (has(join(debian, major, 'bin'))) return join(debian, major, 'bin')
  }
  const probe = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' })
  const dir = probe.status === 0 ? probe.stdout.trim() : ''
  return dir && has(dir) ? dir : null
}

/** Who runs the cluster's programs: `postgres` when we are root, ourselves otherwise. */
function runAs() {
  if (process.getuid?.() !== 0) return null
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
  return { uid, gid }
}

/**
 * Starts a new cluster and resolves once it accepts connections (`pg_ctl -w`). `url` reaches its
 * `postgres` database as the `postgres` superuser; `stop()`/`start()` take it down and up again
 * on the same port (the store's fault tests); `destroy()` stops it and removes its folder.
 *
 * @example
 * const pg = await startCluster()
 * // … postgres(pg.url) …
 * await pg.destroy()
 */
export async function startCluster(options = {}) {
  const cluster = await planCluster(options)
  await cluster.ready
  return cluster
}

/**
 * The same cluster, answered at once with its folder, port and URL while initdb and the start
 * run: `ready` settles when it accepts connections (or rejects with why it could not start).
 * The vitest setup hands the URL to the test files before the cluster is up, so the build and
 * initdb run side by side.
 *
 * @example
 * const pg = await planCluster()
 * await pg.ready
 */
export async function planCluster({
  bin = findPgBin(),
  durable = false,
  settings: extra = [],
} = {}) {
  if (!bin) throw new Error('PostgreSQL not found: install Debian’s postgresql (initdb, pg_ctl).')
  const user = runAs()
  const dir = mkdtempSync(join(tmpdir(), 'sendbox-pg-'))
  if (user) {
    chownSync(dir, user.uid, user.gid)
    // mkdtemp makes 0700; the postgres user owns it now, and root still reaches it.
    chmodSync(dir, 0o700)
  }
  const data = join(dir, 'data')
  // Asynchronous, so that the vitest setup's build runs while initdb does.
  const run = (program, args) =>
    new Promise((resolve, reject) => {
      const command = user ? 'runuser' : join(bin, program)
      const argv = user ? ['-u', 'postgres', '--', join(bin, program), ...args] : args
      execFile(command, argv, { cwd: dir }, (error, stdout, stderr) =>
        error
          ? reject(new Error(`${program} failed: ${stderr || stdout || error.message}`))
          : resolve(),
      )
    })
  const port = await freePort()
  // Tests need no durability across a crash of the machine; fsync off makes initdb-to-first-
  // query and each commit cheap on a loaded two-core box. `durable` (bench:team) keeps
  // PostgreSQL's own settings, fsync on, as a team runs it.
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    ...(durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    '-c max_connections=300',
    // More `-c name=value` of the caller's (bench/team-cost.js loads pg_stat_statements).
    ...extra.map((setting) => `-c ${setting}`),
  ].join(' ')
  const start = () =>
    run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', '-s', 'start'])
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-s', 'stop'])
  const ready = run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]).then(start)
  // Observed here so that a failed start never goes unhandled; callers await `ready` itself.
  ready.catch(() => {})
  let destroyed = false
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    ready,
    /** The URL of another database of this cluster (CREATE DATABASE it first). */
    urlOf: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start,
    stop,
    async destroy() {
      if (destroyed) return
      destroyed = true
      await ready.catch(() => {})
      try {
        await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-s', 'stop'])
      } catch {
        // Already stopped (a fault test left it down, or it never started): nothing to stop.
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
