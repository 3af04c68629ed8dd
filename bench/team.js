// npm run bench:team: sendbox processes sharing one PostgreSQL (docs/team.md), measured in one run
// against one process on the JSON Lines log. It starts a throwaway cluster of Debian's postgresql
// (test/helpers/pg-cluster.js with `durable`: PostgreSQL's own settings, fsync on, as a team runs
// it; the JSON log does not fsync) and removes it after. Every sendbox runs in a child process of
// its own, and so does the webhook receiver (bench/receiver.js); autocannon and the timed
// requests run here.
//
//   1. sends/s: two processes on PostgreSQL (16 connections each) ÷ one on the JSON log (32),
//      rounds alternating between the two, medians, beside a control: two processes on the JSON
//      log (a file each, 16 connections each) ÷ the one, what two processes reach here at all; then the same with one `--webhook` URL on
//      every process, at 5,000 messages stored, and the two PostgreSQL processes again at
//      BENCH_WEBHOOK_LARGE (100,000; 0 skips it) stored; with each, the CPU a send took of each
//      side (sendbox, PostgreSQL, the load, the receiver), and the most two processes on
//      PostgreSQL could make on these cores if a send cost them what it costs the log's process;
//   2. a send through one process to a wait on the other: p50 and p99;
//   3. a database of 5,000 then BENCH_LARGE (200,000; 0 skips this part) messages (seeded in SQL: one INSERT … SELECT over
//      generate_series copying a real send's row, a few seconds for 200,000): a page, a `to=`
//      filter, a wait, `offset=50000`, the health check and the `--max-messages` trim, p50 over
//      alternating rounds; the RSS of a fresh process after those requests at each size.
import { mkdtemp, rm } from 'node:fs/promises'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import sqlTag from 'sql-template-tag'
import { findPgBin, startCluster } from '../test/helpers/pg-cluster.js'
import {
  cpuOf,
  median,
  postgresCpu,
  quantile,
  ROOT,
  receiptSend,
  rssOf,
  sendsPerSecond,
  startChild,
  stop,
} from './common.js'

const DURATION = Number(process.env.BENCH_DURATION ?? 6)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const LATENCY_SENDS = Number(process.env.BENCH_LATENCY_SENDS ?? 200)
const QUERY_ROUNDS = Number(process.env.BENCH_QUERY_ROUNDS ?? 40)
const LARGE = Number(process.env.BENCH_LARGE ?? 200_000)
const WEBHOOK_LARGE = Number(process.env.BENCH_WEBHOOK_LARGE ?? 100_000)
const SMALL = 5_000
const TOKEN = 'sandbox_bench_0123456789'
const { body, headers } = receiptSend(TOKEN)

const bin = findPgBin()
if (!bin) {
  console.error(
    'bench:team needs PostgreSQL, and none was found: install Debian’s postgresql (apt-get install postgresql), or set SENDBOX_PG_BIN to the folder holding initdb and pg_ctl.',
  )
  process.exit(1)
}

/** A sendbox process on `store` (a PostgreSQL URL) or on a JSON Lines file (`db`), with `webhook` if given. */
function serve({ store, db, maxMessages = 5000, webhook }) {
  const where = [
    ...(store ? ['--store', store] : ['--db', db]),
    ...(webhook ? ['--webhook', webhook] : []),
  ]
  return startChild(
    [
      'bin/sendbox.js',
      '--port',
      '0',
      ...where,
      '--templates',
      join(ROOT, 'templates'),
      '--fixtures',
      join(ROOT, 'fixtures'),
      '--no-open',
      '--max-messages',
      String(maxMessages),
    ],
    /sendbox ready (\S+)/,
  )
}

/**
 * Two connections to `url` (a pg.Pool) as a tagged template: `await sql\`…\`` answers the rows of
 * one parameterised statement; `sql.unsafe(text)` runs text as it is; `sql.end()`.
 */
function connect(url) {
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  pool.on('error', () => {})
  const sql = async (strings, ...values) => (await pool.query(sqlTag(strings, ...values))).rows
  return Object.assign(sql, { unsafe: (text) => pool.query(text), end: () => pool.end() })
}

/** Sends/s on one process (every answer must be a 201). */
const load = (url, connections, duration = DURATION) =>
  sendsPerSecond(url, { headers, body }, connections, duration)

/**
 * CPU ms used so far by what a load keeps busy: the sendbox processes it loads, PostgreSQL, this
 * process (autocannon: the load itself) and the webhook receiver, if any.
 */
async function cpuNow(procs, { cluster, receiver }) {
  let sendbox = 0
  for (const p of procs) sendbox += await cpuOf(p.child.pid)
  const { user, system } = process.cpuUsage()
  return {
    sendbox,
    postgres: await postgresCpu(cluster),
    load: (user + system) / 1000,
    receiver: receiver ? await cpuOf(receiver.child.pid) : 0,
  }
}

/** Sends/s of `procs` loaded together, `connections` each, and the CPU ms each side spent per send. */
async function loadCosted(procs, connections, cost) {
  const before = await cpuNow(procs, cost)
  const rates = await Promise.all(procs.map((p) => load(p.url, connections)))
  const after = await cpuNow(procs, cost)
  const rate = rates.reduce((a, b) => a + b, 0)
  const sends = rate * DURATION
  const cpu = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / sends]))
  return { rate, cpu }
}

/**
 * Sends/s: the two PostgreSQL processes together ÷ the log's one, per round; and the control, two
 * processes on the log (a file each, nothing shared) ÷ the log's one: what two processes reach on
 * this machine whatever their store, since both, their worker threads, the database and the load
 * share its cores. With each, the CPU a send took of each side (`cost`: the cluster, the
 * receiver), from which reportRounds works out the most two processes on PostgreSQL could make
 * on these cores.
 */
async function throughput(json, pair, logPair, cost) {
  await load(json.url, 32, 2)
  for (const two of [pair, logPair]) await Promise.all(two.map((p) => load(p.url, 16, 2)))
  const rounds = []
  for (let round = 0; round < ROUNDS; round++) {
    const log = await loadCosted([json], 32, cost)
    const pg = await loadCosted(pair, 16, cost)
    const logs = await loadCosted(logPair, 16, cost)
    rounds.push({ log: log.rate, pg: pg.rate, logs: logs.rate, cpu: { log: log.cpu, pg: pg.cpu } })
  }
  return rounds
}

/** Two processes on the JSON log, a file each in `dir` named after `name`, with `webhook` if given. */
const servePairOfLogs = async (dir, name, webhook) => [
  await serve({ db: join(dir, `${name}-a.jsonl`), webhook }),
  await serve({ db: join(dir, `${name}-b.jsonl`), webhook }),
]

/**
 * Sends/s with one `--webhook` URL on every process: the log's one process and two on PostgreSQL,
 * at 5,000 stored (the --max-messages they run with, reached by the rounds before), then the two
 * on PostgreSQL with WEBHOOK_LARGE stored (seeded, --max-messages raised to match).
 */
async function withWebhook(cluster, dir, receiver) {
  const webhook = `${receiver.url}/hooks`
  const log = await serve({ db: join(dir, 'webhook.jsonl'), webhook })
  const logPair = await servePairOfLogs(dir, 'webhook', webhook)
  const store = cluster.urlOf('shared')
  let pair = [await serve({ store, webhook }), await serve({ store, webhook })]
  try {
    const rounds = await throughput(log, pair, logPair, { cluster, receiver })
    for (const p of [log, ...logPair]) await stop(p.child)
    if (!WEBHOOK_LARGE) return { rounds }
    for (const p of pair) await stop(p.child)
    await seedTo(store, WEBHOOK_LARGE)
    pair = [
      await serve({ store, webhook, maxMessages: WEBHOOK_LARGE }),
      await serve({ store, webhook, maxMessages: WEBHOOK_LARGE }),
    ]
    await Promise.all(pair.map((p) => load(p.url, 16, 2)))
    const large = []
    for (let round = 0; round < ROUNDS; round++) {
      const both = await Promise.all(pair.map((p) => load(p.url, 16)))
      large.push(both[0] + both[1])
    }
    return { rounds, large }
  } finally {
    for (const p of [log, ...logPair, ...pair]) await stop(p.child)
  }
}

/** Tops the messages of `store` up to `n`, copies of its newest (seed). */
async function seedTo(store, n) {
  const sql = connect(store)
  try {
    await sql`DROP TABLE IF EXISTS bench_template`
    await sql`
      CREATE TABLE bench_template AS
      SELECT * FROM sendbox_messages ORDER BY seq DESC LIMIT 1`
    const [{ count }] = await sql`SELECT count(*)::int AS count FROM sendbox_messages`
    if (count < n) await seed(sql, count + 1, n, 'msg_wseed')
  } finally {
    await sql.end()
  }
}

const sendTo = (url, to) =>
  fetch(`${url}/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...JSON.parse(body), to: [to] }),
  }).then(async (r) => {
    await r.arrayBuffer()
    if (r.status !== 201) throw new Error(`send: ${r.status}`)
  })

const json = async (url) => {
  const r = await fetch(url)
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`)
  return r.json()
}

/** Resolves once `url`'s process counts more than `n` subscribers (the wait is listening). */
async function subscribed(url, n) {
  while ((await json(`${url}/_sandbox/api/health`)).subscribers <= n)
    await new Promise((r) => setImmediate(r))
}

/**
 * A wait on `b` (`after=now`, listening before the send), a send through `a`: the time from the
 * send's start to the wait's answer, and from the send's 201 to it.
 */
async function crossLatency(a, b) {
  const total = []
  const after201 = []
  const base = (await json(`${b.url}/_sandbox/api/health`)).subscribers
  for (let i = 0; i < LATENCY_SENDS; i++) {
    const to = `latency-${i}-${Date.now()}@example.com`
    const waited = json(`${b.url}/_sandbox/api/messages/wait?to=${to}&after=now&timeout=10000`)
    await subscribed(b.url, base)
    const t0 = performance.now()
    await sendTo(a.url, to)
    const t1 = performance.now()
    await waited
    const t2 = performance.now()
    total.push(t2 - t0)
    after201.push(t2 - t1)
  }
  return { total, after201 }
}

/**
 * Copies a real send (its row, kept in bench_template) into messages `from`..`to` of the table, each
 * with its own id and address (`ada-<n>@example.com`), in one INSERT … SELECT: 200,000 rows
 * in seconds, where as many sends over HTTP take minutes.
 */
async function seed(sql, from, to, prefix = 'msg_seed') {
  await sql`
    INSERT INTO sendbox_messages (id, created_at, project, status, template_lc, subject_lc,
      from_lc, to_lc, recipients, bytes, html, text, record)
    SELECT s.id, now(), t.project, t.status, t.template_lc, t.subject_lc, t.from_lc,
      replace(t.to_lc, 'ada@example.com', s.address), ARRAY[s.address], t.bytes, t.html, t.text,
      (t.record::jsonb || jsonb_build_object(
        'id', s.id,
        'to', jsonb_set(t.record::jsonb->'to', '{0,address}', to_jsonb(s.address)),
        'recipients', jsonb_set(t.record::jsonb->'recipients', '{0,address}', to_jsonb(s.address)))
      )::json
    FROM bench_template t,
      LATERAL (SELECT ${prefix}::text || lpad(g::text, 22, '0') AS id,
                      'ada-' || g || '@example.com' AS address
               FROM generate_series(${from}::int, ${to}::int) g) s`
  await sql`VACUUM ANALYZE sendbox_messages`
}

/** The reads timed at each size, by name: a path under the inspector API. */
const reads = (n) => ({
  page: '/_sandbox/api/messages?limit=50',
  'to= filter': `/_sandbox/api/messages?limit=50&to=ada-${Math.floor(n / 2)}@example.com`,
  wait: `/_sandbox/api/messages/wait?to=ada-${Math.floor(n / 3)}@example.com&timeout=5000`,
  ...(n > 50_000 ? { 'offset=50000': '/_sandbox/api/messages?limit=50&offset=50000' } : {}),
  health: '/_sandbox/api/health',
})

/** Each read once per round, the rounds one after another: the p50 of each; then the RSS. */
async function timeReads(server, n) {
  const times = Object.fromEntries(Object.keys(reads(n)).map((name) => [name, []]))
  for (let round = 0; round < QUERY_ROUNDS; round++)
    for (const [name, path] of Object.entries(reads(n))) {
      const t0 = performance.now()
      await json(`${server.url}${path}`)
      times[name].push(performance.now() - t0)
    }
  const p50 = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]))
  return { p50, rss: await rssOf(server.child.pid) }
}

/**
 * Sequential sends through a process of `--max-messages` `cap`, p50: at the cap each send trims
 * one (the trim's query finds the cut), under it the trim finds nothing to do.
 */
async function sendsWithCap(store, cap) {
  const server = await serve({ store, maxMessages: cap })
  try {
    const times = []
    for (let i = 0; i < 60; i++) {
      const t0 = performance.now()
      await sendTo(server.url, `cap-${i}@example.com`)
      times.push(performance.now() - t0)
    }
    return median(times.slice(10))
  } finally {
    await stop(server.child)
  }
}

/** One size of the large database: a fresh process, its reads, its RSS, the trim. */
async function atSize(store, sql, n) {
  const server = await serve({ store, maxMessages: 10_000_000 })
  try {
    await timeReads(server, n) // warm-up: the first queries plan and fill caches
    const measured = await timeReads(server, n)
    const [{ size }] = await sql`
      SELECT pg_total_relation_size('sendbox_messages')::float8 AS size`
    return {
      ...measured,
      size,
      sendUnderCap: await sendsWithCap(store, 10_000_000),
      sendAtCap: await sendsWithCap(store, n),
    }
  } finally {
    await stop(server.child)
  }
}

/** The large database: one real send, copied to 5,000 then to 200,000. */
async function large(cluster, admin) {
  await admin.unsafe('CREATE DATABASE large')
  const store = cluster.urlOf('large')
  const first = await serve({ store, maxMessages: 10_000_000 })
  await sendTo(first.url, 'ada@example.com')
  await stop(first.child)
  const sql = connect(store)
  try {
    // The real send's row, kept apart: the sends at the cap trim it from the messages.
    await sql`CREATE TABLE bench_template AS SELECT * FROM sendbox_messages`
    const seeded = async (from, to) => {
      const t0 = performance.now()
      await seed(sql, from, to)
      return performance.now() - t0
    }
    const small = { seeded: await seeded(2, SMALL), ...(await atSize(store, sql, SMALL)) }
    const big = { seeded: await seeded(SMALL + 1, LARGE), ...(await atSize(store, sql, LARGE)) }
    return { small, big }
  } finally {
    await sql.end()
  }
}

const ms = (x) => `${x.toFixed(1)} ms`
const mb = (x) => `${(x / 1024 / 1024).toFixed(0)} MB`

/** Sends/s of a set of rounds, and the ratio: two processes on PostgreSQL ÷ one on the log. */
function reportRounds(title, rounds) {
  const ratios = rounds.map((r) => r.pg / r.log)
  console.log(
    `${title}: 2 processes on PostgreSQL ${median(rounds.map((r) => r.pg)).toFixed(0)}, 1 process on the JSON log ${median(rounds.map((r) => r.log)).toFixed(0)}`,
  )
  console.log(
    `  ratio ${median(ratios).toFixed(2)}   (target >= 0.6; per round ${ratios.map((x) => x.toFixed(2)).join(' ')})`,
  )
  const control = rounds.map((r) => r.logs / r.log)
  console.log(
    `  control: 2 processes on the JSON log, a file each, ${median(rounds.map((r) => r.logs)).toFixed(0)}: ratio ${median(control).toFixed(2)} (per round ${control.map((x) => x.toFixed(2)).join(' ')}), the most two processes reach here whatever their store`,
  )
  reportBudget(rounds)
}

/**
 * Where the CPU of a send went on each side, and the most two processes on PostgreSQL could make
 * on this machine's cores if a send cost them no more CPU than it costs the log's process: the
 * cores' time ÷ (sendbox's CPU per send on the log + PostgreSQL's + the load's + the receiver's,
 * each as measured beside the PostgreSQL processes). Under the log's sends/s × 0.6, the target is
 * out of these cores' reach whatever sendbox does.
 */
function reportBudget(rounds) {
  const of = (side, key) => median(rounds.map((r) => r.cpu[side][key]))
  const ms = (x) => x.toFixed(2)
  const receiver = of('pg', 'receiver') > 0 ? `, receiver ${ms(of('pg', 'receiver'))}` : ''
  console.log(
    `  CPU per send, ms: 1 on the log: sendbox ${ms(of('log', 'sendbox'))}, load ${ms(of('log', 'load'))}; 2 on PostgreSQL: sendbox ${ms(of('pg', 'sendbox'))}, PostgreSQL ${ms(of('pg', 'postgres'))}, load ${ms(of('pg', 'load'))}${receiver}`,
  )
  const cores = availableParallelism()
  const perSend =
    of('log', 'sendbox') + of('pg', 'postgres') + of('pg', 'load') + of('pg', 'receiver')
  const ceiling = (cores * 1000) / perSend
  const log = median(rounds.map((r) => r.log))
  console.log(
    `  at ${cores} cores, 2 on PostgreSQL could make at most ${ceiling.toFixed(0)} sends/s (${(ceiling / log).toFixed(2)} of the log's) if a send cost them the CPU it costs the log's process`,
  )
}

function report({ rounds, webhook, latency, sizes }) {
  console.log(
    `\nsendbox bench:team — PostgreSQL ${bin.split('/').at(-2)} (fsync on), ${ROUNDS} alternating rounds of ${DURATION} s; medians. Run it on a quiet machine: on a loaded one, read the ratios.\n`,
  )
  reportRounds('sends/s', rounds)
  reportRounds('sends/s with one --webhook, 5,000 stored', webhook.rounds)
  if (webhook.large) {
    const log = median(webhook.rounds.map((r) => r.log))
    const pg = median(webhook.large)
    console.log(
      `  with ${WEBHOOK_LARGE.toLocaleString('en')} stored: 2 processes on PostgreSQL ${pg.toFixed(0)} (${(pg / log).toFixed(2)} of the log's at 5,000)`,
    )
  }
  console.log(
    `send through one process → wait on the other (${LATENCY_SENDS} sends): p50 ${ms(quantile(latency.total, 0.5))}, p99 ${ms(quantile(latency.total, 0.99))}; after the 201: p50 ${ms(quantile(latency.after201, 0.5))}, p99 ${ms(quantile(latency.after201, 0.99))}`,
  )
  if (!sizes) return
  for (const [n, size] of [
    [SMALL, sizes.small],
    [LARGE, sizes.big],
  ]) {
    console.log(`\nwith ${n.toLocaleString('en')} messages (seeded in ${ms(size.seeded)}):`)
    for (const [name, p50] of Object.entries(size.p50))
      console.log(
        `  ${name.padEnd(14)} p50 ${ms(p50).padStart(9)}${name === 'health' ? '' : '   (target <= 50 ms)'}`,
      )
    console.log(
      `  a send (the trim included): p50 ${ms(size.sendUnderCap)} under --max-messages, ${ms(size.sendAtCap)} at it (each drops one)`,
    )
    console.log(`  RSS of the process: ${mb(size.rss)}`)
    console.log(
      `  the messages' table with its indexes: ${mb(size.size)} (${(size.size / n / 1024).toFixed(1)} KB a message)`,
    )
  }
  const growth = sizes.big.rss - sizes.small.rss
  console.log(
    `\nRSS at ${LARGE.toLocaleString('en')}: ${mb(sizes.big.rss)} (target <= 250 MB), ${growth >= 0 ? '+' : ''}${mb(growth)} over ${SMALL.toLocaleString('en')} (target within 60 MB)`,
  )
}

const dir = await mkdtemp(join(tmpdir(), 'sendbox-bench-team-'))
const cluster = await startCluster({ bin, durable: true })
const admin = connect(cluster.url)
const running = []
try {
  await admin.unsafe('CREATE DATABASE shared')
  const receiver = await startChild(['bench/receiver.js'], /receiver ready (\d+)/)
  running.push(receiver)
  const log = await serve({ db: join(dir, 'load.jsonl') })
  running.push(log)
  const logPair = await servePairOfLogs(dir, 'load')
  running.push(...logPair)
  const pair = [await serve({ store: cluster.urlOf('shared') })]
  running.push(pair[0])
  pair.push(await serve({ store: cluster.urlOf('shared') }))
  running.push(pair[1])
  const rounds = await throughput(log, pair, logPair, { cluster })
  for (const p of [log, ...logPair]) await stop(p.child)
  const latency = await crossLatency(pair[0], pair[1])
  for (const p of pair) await stop(p.child)
  const webhook = await withWebhook(cluster, dir, receiver)
  const sizes = LARGE > 0 ? await large(cluster, admin) : undefined
  report({ rounds, webhook, latency, sizes })
} finally {
  for (const p of running) await stop(p.child)
  await admin.end()
  await cluster.destroy()
  await rm(dir, { recursive: true, force: true })
}
