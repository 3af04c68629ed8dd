// npm run bench:team:cost [-- --against DIR]: what one send costs a team's sandbox on PostgreSQL
// (fsync on, as bench:team runs it), in figures a loaded machine moves less than sends/s. Two
// sendbox processes on one database take 16 connections each for BENCH_DURATION seconds, without
// and then with one `--webhook` URL (bench/receiver.js, a process of its own); after the load,
// the bench waits for the work queue to drain (every delivery step and webhook attempt of those
// sends done), then divides by the sends stored:
//   - commits (pg_stat_database.xact_commit) and WAL flushes (pg_stat_wal.wal_sync): with fsync
//     on, each flush waits on the disk;
//   - statements (pg_stat_statements, loaded in the throwaway cluster), the most called listed;
//   - CPU time of the two sendbox processes and of PostgreSQL's processes (/proc/PID/stat).
// With `--against DIR` (another build, e.g. /work/before), the two builds alternate by round,
// each on a database of its own, and the table shows both side by side.
import { join, resolve } from 'node:path'
import pg from 'pg'
import { findPgBin, startCluster } from '../test/helpers/pg-cluster.js'
import {
  cpuOf,
  median,
  postgresCpu,
  ROOT,
  receiptSend,
  sendsPerSecond,
  startChild,
  stop,
} from './common.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const { body, headers } = receiptSend('sandbox_bench_0123456789')
const at = process.argv.indexOf('--against')
const builds = [
  { name: 'this build', root: ROOT },
  ...(at > 0 ? [{ name: 'against', root: resolve(process.argv[at + 1]) }] : []),
]

const bin = findPgBin()
if (!bin) {
  console.error('bench:team:cost needs PostgreSQL (apt-get install postgresql, or SENDBOX_PG_BIN).')
  process.exit(1)
}

/** A sendbox process of `build` on the database `url`, with `webhook` if given. */
const serve = (build, url, webhook) =>
  startChild(
    [
      join(build.root, 'bin/sendbox.js'),
      ...['--port', '0', '--store', url, '--no-open', '--max-messages', '5000'],
      ...['--templates', join(ROOT, 'templates'), '--fixtures', join(ROOT, 'fixtures')],
      ...(webhook ? ['--webhook', webhook] : []),
    ],
    /sendbox ready (\S+)/,
  )

/** The figures that grow with the work done, read at one moment. */
async function snapshot(admin, db, cluster, pids) {
  const [{ commits, sends }] = (
    await admin.query(
      `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = $1)::float8 AS commits,
              0 AS sends`,
      [db],
    )
  ).rows
  const [{ syncs }] = (await admin.query('SELECT wal_sync::float8 AS syncs FROM pg_stat_wal')).rows
  let app = 0
  for (const pid of pids) app += await cpuOf(pid)
  return { commits, sends, syncs, app, pg: await postgresCpu(cluster) }
}

/** Sends stored so far in `url`'s database (kept and dropped by --max-messages). */
async function storedIn(pool) {
  const { rows } = await pool.query(
    `SELECT coalesce(sum(value), 0)::float8 AS n FROM sendbox_counters WHERE name IN ('stored', 'dropped')`,
  )
  return rows[0].n
}

/**
 * Resolves once the database's work queue is empty (every delivery step and attempt done), with
 * how many reads it took (each a transaction of its own, taken off the commits per send).
 */
async function drained(pool) {
  const until = Date.now() + 120_000
  for (let reads = 1; Date.now() < until; reads++) {
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM sendbox_work')
    if (rows[0].n === 0) return reads
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the work queue did not drain in 120 s')
}

/** A pair of processes of `build` on `db`, warmed up (a cold process's first sends cost several times more). */
async function startPair(cluster, build, db, webhook) {
  const url = cluster.urlOf(db)
  const pair = [await serve(build, url, webhook), await serve(build, url, webhook)]
  const pool = new pg.Pool({ connectionString: url, max: 1 })
  await Promise.all(pair.map((p) => sendsPerSecond(p.url, { headers, body }, 16, 3)))
  return { pair, pool, db }
}

/**
 * Samples what PostgreSQL's busy backends of `db` are doing, every 20 ms until `stop` resolves:
 * each wait event's share of the samples of a backend in a statement ('CPU' when it waits on
 * nothing).
 */
async function sampleWaits(admin, db, stop) {
  const counts = new Map()
  let total = 0
  let done = false
  stop.then(() => {
    done = true
  })
  while (!done) {
    const { rows } = await admin.query(
      `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS what FROM pg_stat_activity
       WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
      [db],
    )
    for (const { what } of rows) counts.set(what, (counts.get(what) ?? 0) + 1)
    total += rows.length
    await new Promise((r) => setTimeout(r, 20))
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([what, n]) => ({ what, share: n / total }))
}

/** One round of one pair: the load, the drain, the figures per send. */
async function round(admin, waiter, cluster, { pair, pool, db }) {
  await drained(pool)
  // Backends report their counters within a second of going idle (PostgreSQL 15).
  await new Promise((r) => setTimeout(r, 1500))
  const pids = pair.map((p) => p.child.pid)
  await admin.query('SELECT pg_stat_statements_reset()')
  const sent0 = await storedIn(pool)
  const before = await snapshot(admin, db, cluster, pids)
  const loaded = Promise.all(
    pair.map((p) => sendsPerSecond(p.url, { headers, body }, 16, DURATION)),
  )
  const [rates, waits] = await Promise.all([loaded, sampleWaits(waiter, db, loaded)])
  const reads = await drained(pool)
  await new Promise((r) => setTimeout(r, 1500))
  const after = await snapshot(admin, db, cluster, pids)
  const sends = (await storedIn(pool)) - sent0
  const { rows: statements } = await admin.query(
    `SELECT calls::float8 AS calls, regexp_replace(query, '\\s+', ' ', 'g') AS query
     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1
     ORDER BY calls DESC`,
    [db],
  )
  const per = (k) => (after[k] - before[k]) / sends
  return {
    rate: rates[0] + rates[1],
    // Less this bench's own reads on the database: the drain's and the second storedIn.
    commits: per('commits') - (reads + 1) / sends,
    syncs: per('syncs'),
    app: per('app'),
    pg: per('pg'),
    statements: statements.reduce((n, s) => n + s.calls, 0) / sends,
    top: statements.slice(0, 8).map((s) => ({ calls: s.calls / sends, query: s.query })),
    waits: waits.slice(0, 6),
  }
}

const f = (x, digits = 2) => x.toFixed(digits)

function report(results) {
  console.log(
    `\nsendbox bench:team:cost — 2 processes on PostgreSQL ${bin.split('/').at(-2)} (fsync on), 16 connections each, ${ROUNDS} rounds of ${DURATION} s, medians per send (the work queue drained after each round)\n`,
  )
  for (const mode of ['no webhook', 'one --webhook']) {
    console.log(`${mode}:`)
    console.log(
      '  build        sends/s  commits  WAL flushes  statements  CPU sendbox ms  CPU PostgreSQL ms',
    )
    for (const build of builds) {
      const rs = results.filter((r) => r.mode === mode && r.build === build.name)
      const m = (k) => median(rs.map((r) => r[k]))
      console.log(
        `  ${build.name.padEnd(12)} ${f(m('rate'), 0).padStart(7)}  ${f(m('commits')).padStart(7)}  ${f(m('syncs')).padStart(11)}  ${f(m('statements')).padStart(10)}  ${f(m('app')).padStart(14)}  ${f(m('pg')).padStart(17)}`,
      )
    }
    for (const build of builds) {
      const last = results.findLast((r) => r.mode === mode && r.build === build.name)
      console.log(`  ${build.name}, statements per send (last round):`)
      for (const s of last.top)
        console.log(`    ${f(s.calls).padStart(5)}  ${s.query.slice(0, 110)}`)
      const waits = last.waits.map((w) => `${w.what} ${f(w.share * 100, 0)}%`)
      console.log(`  ${build.name}, busy backends' waits during the load: ${waits.join(', ')}`)
    }
  }
}

const cluster = await startCluster({
  bin,
  durable: true,
  settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'],
})
const admin = new pg.Pool({ connectionString: cluster.url, max: 1 })
// The wait sampler's own connection: it queries while the round's other reads run.
const waiter = new pg.Pool({ connectionString: cluster.url, max: 1 })
const receiver = await startChild(['bench/receiver.js'], /receiver ready (\d+)/)
try {
  await admin.query('CREATE EXTENSION pg_stat_statements')
  const results = []
  const modes = [
    ['no webhook', undefined],
    ['one --webhook', `${receiver.url}/hooks`],
  ]
  const pairs = []
  for (const [i, build] of builds.entries())
    for (const [m, [mode, webhook]] of modes.entries()) {
      const db = `b${i}_${m}`
      await admin.query(`CREATE DATABASE ${db}`)
      pairs.push({ build: build.name, mode, ...(await startPair(cluster, build, db, webhook)) })
    }
  try {
    for (let r = 0; r < ROUNDS; r++)
      for (const pair of pairs) {
        const result = await round(admin, waiter, cluster, pair)
        results.push({ ...result, mode: pair.mode, build: pair.build })
        console.log(
          `round ${r + 1}, ${pair.build}, ${pair.mode}: ${f(result.rate, 0)} sends/s, ${f(result.commits)} commits, ${f(result.app)} + ${f(result.pg)} CPU ms per send`,
        )
      }
  } finally {
    for (const { pair, pool } of pairs) {
      await pool.end()
      for (const p of pair) await stop(p.child)
    }
  }
  report(results)
} finally {
  await stop(receiver.child)
  await admin.end()
  await waiter.end()
  await cluster.destroy()
}
