// npm run bench:peer [-- --against DIR]: sendbox against a peer, MailDev 3, side by side in one run.
//
// MailDev is installed on demand into .bench/maildev/ (git ignores it; never a dependency of
// sendbox) and started in memory on free loopback ports (SMTP and web/REST; no relay, no MCP,
// nothing that reaches the network). sendbox runs twice, `serve --memory` and on a log file;
// with `--against DIR` (a built checkout, e.g. main's) that one's two run beside them. Every
// server is its own process; the senders and readers run here. Rounds alternate between the
// servers so that whatever else the machine does falls on each alike; the figures are medians
// and each ratio's range over the rounds (this checkout's server ÷ MailDev in the same round):
//
// - throughput: 32 concurrent senders for BENCH_DURATION s, nodemailer (one pooled SMTP
//   connection each) → MailDev against POST /messages (keep-alive) → sendbox; sends/s, and
//   the server's CPU ms per send (steadier than sends/s on a busy machine);
// - send → read: one sender sends a message to a recipient of its own and reads it back
//   through the REST API (MailDev `GET /api/email?to.address=`, sendbox
//   `GET /_sandbox/api/messages?to=`), from the send's start to the message in hand; p50;
// - the read alone: that filtered list of one message, over 5,000 stored, p50;
// - memory: a fresh server of each holding 5,000 receipts (filled 32 at a time), RSS.
//
// Both are sent the same receipt: sendbox renders `order-receipt` itself; MailDev gets the HTML
// and text of that render, as an app that renders before it sends over SMTP would send it.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { freePort } from '../test/helpers/free-port.js'
import {
  cpuOf,
  mainThreadCpuOf,
  median,
  ROOT,
  receiptSend,
  rssOf,
  startChild,
  stop,
} from './common.js'

const MAILDEV_VERSION = '3.0.0'
const PEER_DIR = join(ROOT, '.bench', 'maildev')
const DURATION = Number(process.env.BENCH_DURATION ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SENDERS = 32
const STORED = 5000
const READS = Number(process.env.BENCH_READS ?? 400)
const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 50)
const TOKEN = 'sandbox_bench_0123456789'
const { values: flags } = parseArgs({ options: { against: { type: 'string' } } })

/** MailDev's CLI, installed into .bench/maildev/ the first time. */
function maildevBin() {
  const bin = join(PEER_DIR, 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js')
  if (existsSync(bin)) return bin
  mkdirSync(PEER_DIR, { recursive: true })
  console.log(`installing maildev@${MAILDEV_VERSION} into ${PEER_DIR} (once)…`)
  execFileSync(
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    [
      'install',
      '--prefix',
      PEER_DIR,
      '--no-save',
      '--no-audit',
      '--no-fund',
      `maildev@${MAILDEV_VERSION}`,
    ],
    { stdio: 'inherit' },
  )
  return bin
}

const agent = new http.Agent({ keepAlive: true, maxSockets: SENDERS })

/** One HTTP request on the shared keep-alive agent: `{ status, body }` (the body as text). */
function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function startMaildev() {
  const [smtp, web] = [await freePort(), await freePort()]
  const child = spawn(
    process.execPath,
    [maildevBin(), '--smtp', String(smtp), '--ip', '127.0.0.1', '--web', String(web)].concat([
      '--web-ip',
      '127.0.0.1',
      '--max-emails',
      String(STORED),
      '--silent',
    ]),
    { cwd: PEER_DIR, stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const url = `http://127.0.0.1:${web}`
  // Polled until it answers (it prints no ready line with --silent); 30 s is a hung start.
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || i > 600)
      throw new Error(`maildev did not start (${child.exitCode})`)
    const ok = await request(`${url}/api/healthz`).then(
      (r) => r.status === 200,
      () => false,
    )
    if (ok) break
    await new Promise((r) => setTimeout(r, 50))
  }
  const { default: nodemailer } = await import('nodemailer')
  const transport = (connections) =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: connections,
      maxMessages: Infinity,
    })
  return { kind: 'maildev', child, url, pool: transport(SENDERS), single: transport(1) }
}

async function startSendbox(bin, dir, name, memory) {
  const args = [bin, '--port', '0', '--no-open', '--templates', join(ROOT, 'templates')]
  args.push('--fixtures', join(ROOT, 'fixtures'), '--max-messages', String(STORED))
  args.push(...(memory ? ['--memory'] : ['--db', join(dir, `${name}.jsonl`)]))
  const { child, url } = await startChild(args, /sendbox ready (\S+)/)
  return { kind: 'sendbox', child, url }
}

/** The receipt every send carries; `to` and `subject` made unique for a send that is read back. */
function sendOf(server, receipt, to = 'ada@example.com', subject = 'Your receipt', one = false) {
  if (server.kind === 'maildev')
    return () =>
      (one ? server.single : server.pool).sendMail({
        from: 'shop@acme.test',
        to,
        subject,
        html: receipt.html,
        text: receipt.text,
      })
  const { body, headers } = receiptSend(TOKEN)
  const json = JSON.stringify({ ...JSON.parse(body), to: [to], subject })
  return async () => {
    const res = await request(`${server.url}/messages`, { method: 'POST', headers, body: json })
    if (res.status !== 201) throw new Error(`POST /messages: ${res.status} ${res.body}`)
  }
}

/** The filtered list of one recipient's messages, parsed: what a test reads back. */
async function readBack(server, to) {
  const path =
    server.kind === 'maildev'
      ? `/api/email?to.address=${encodeURIComponent(to)}`
      : `/_sandbox/api/messages?to=${encodeURIComponent(to)}`
  const res = await request(`${server.url}${path}`)
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body}`)
  const json = JSON.parse(res.body)
  return server.kind === 'maildev' ? json : json.messages
}

/**
 * Sends/s from SENDERS loops for DURATION s, and the server's CPU ms per send meanwhile: all its
 * threads, and its main thread's share (sendbox hands text parts to a worker thread under load).
 */
async function throughput(server, receipt, seconds = DURATION) {
  const send = sendOf(server, receipt)
  const cpu0 = await cpuOf(server.child.pid)
  const main0 = await mainThreadCpuOf(server.child.pid)
  const t0 = performance.now()
  const end = t0 + seconds * 1000
  let sent = 0
  const loop = async () => {
    while (performance.now() < end) {
      await send()
      sent++
    }
  }
  await Promise.all(Array.from({ length: SENDERS }, loop))
  const elapsed = (performance.now() - t0) / 1000
  const cpu = (await cpuOf(server.child.pid)) - cpu0
  const main = (await mainThreadCpuOf(server.child.pid)) - main0
  return { rps: sent / elapsed, cpuPerSend: cpu / sent, mainPerSend: main / sent }
}

/** Sends until the server holds STORED messages (32 at a time; both drop the oldest past it). */
async function fill(server, receipt, held) {
  const send = sendOf(server, receipt)
  let left = STORED - held
  const loop = async () => {
    while (left-- > 0) await send()
  }
  await Promise.all(Array.from({ length: SENDERS }, loop))
}

/** ms from a send's start to its message read back by recipient (polled until there). */
async function sendThenRead(server, receipt, tag) {
  const to = `peer-${tag}@example.com`
  const send = sendOf(server, receipt, to, `Receipt ${tag}`, true)
  const t0 = performance.now()
  await send()
  for (let i = 0; (await readBack(server, to)).length !== 1; i++)
    if (i > 1000) throw new Error(`${server.kind}: ${to} never read back`)
  return performance.now() - t0
}

/**
 * Resolves once the server is idle: under 2 ms of CPU in a 100 ms window (at most 10 s). The
 * latency rounds follow the throughput rounds, and a server that took more sends there had more
 * of their work (delivery steps, events) still to do when its first trips began: its trips were
 * measured against its own backlog, not as a test's one send at a time meets them.
 */
async function settled(server) {
  const end = performance.now() + 10_000
  for (let before = await cpuOf(server.child.pid); performance.now() < end; ) {
    await new Promise((r) => setTimeout(r, 100))
    const now = await cpuOf(server.child.pid)
    if (now - before < 2) return
    before = now
  }
}

/**
 * p50 of the send → read round trip, then of READS reads of the last one's filtered list; and the
 * server's CPU ms for each (a loaded machine moves it less than the wall-clock p50).
 */
async function latencies(server, receipt, round) {
  await settled(server)
  const trips = []
  const cpu0 = await cpuOf(server.child.pid)
  for (let i = 0; i < ROUND_TRIPS; i++)
    trips.push(await sendThenRead(server, receipt, `${round}-${i}`))
  const cpu1 = await cpuOf(server.child.pid)
  const to = `peer-${round}-${ROUND_TRIPS - 1}@example.com`
  const reads = []
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now()
    const found = await readBack(server, to)
    reads.push(performance.now() - t0)
    if (found.length !== 1) throw new Error(`${server.kind}: ${found.length} messages for ${to}`)
  }
  const cpu2 = await cpuOf(server.child.pid)
  return {
    trip: median(trips),
    read: median(reads),
    tripCpu: (cpu1 - cpu0) / ROUND_TRIPS,
    readCpu: (cpu2 - cpu1) / READS,
  }
}

async function heldBy(server) {
  if (server.kind === 'maildev')
    return JSON.parse((await request(`${server.url}/api/email/summary?limit=1`)).body).storeTotal
  return JSON.parse((await request(`${server.url}/_sandbox/api/health`)).body).messages
}

async function stopServer(server) {
  server.pool?.close()
  server.single?.close()
  await stop(server.child)
}

const ratioRange = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return `${median(xs).toFixed(2)} (${sorted[0].toFixed(2)}–${sorted.at(-1).toFixed(2)} by round)`
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'sendbox-peer-'))
  const bins = { '': join(ROOT, 'bin', 'sendbox.js') }
  if (flags.against) bins['before '] = join(resolve(flags.against), 'bin', 'sendbox.js')
  const servers = { maildev: await startMaildev() }
  for (const [prefix, bin] of Object.entries(bins)) {
    servers[`${prefix}sendbox memory`] = await startSendbox(bin, dir, `${prefix}memory`, true)
    servers[`${prefix}sendbox log`] = await startSendbox(bin, dir, `${prefix}log`, false)
  }
  try {
    const receipt = await renderedReceipt(servers['sendbox memory'])
    const runs = await measure(servers, receipt)
    const rss = await memory(bins, dir, receipt)
    report(runs, rss)
  } finally {
    for (const server of Object.values(servers)) await stopServer(server)
    agent.destroy()
    await rm(dir, { recursive: true, force: true })
  }
}

/** The HTML and text sendbox renders for the receipt: what MailDev is sent. */
async function renderedReceipt(sendbox) {
  await sendOf(sendbox, null, 'render@example.com')()
  const [record] = await readBack(sendbox, 'render@example.com')
  return { html: record.html, text: record.text }
}

/** Throughput rounds, then (each server full) latency rounds; every round alternates the servers. */
async function measure(servers, receipt) {
  const runs = Object.fromEntries(Object.keys(servers).map((n) => [n, []]))
  for (const server of Object.values(servers)) await throughput(server, receipt, 2) // warm-up
  console.log(`throughput: ${ROUNDS} rounds of ${Object.keys(servers).join(', ')}…`)
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, server] of Object.entries(servers))
      runs[name].push(await throughput(server, receipt))
  console.log(`filling each to ${STORED}, then send → read and read-alone rounds…`)
  for (const server of Object.values(servers)) await fill(server, receipt, await heldBy(server))
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, server] of Object.entries(servers))
      Object.assign(runs[name][round], await latencies(server, receipt, round))
  return runs
}

/** RSS of a fresh server of each kind holding STORED receipts. */
async function memory(bins, dir, receipt) {
  const rss = {}
  const fresh = {
    maildev: () => startMaildev(),
    'sendbox memory': () => startSendbox(bins[''], dir, 'rss-memory', true),
    'sendbox log': () => startSendbox(bins[''], dir, 'rss-log', false),
  }
  console.log(`memory: a fresh server of each, filled to ${STORED}…`)
  for (const [name, start] of Object.entries(fresh)) {
    const server = await start()
    await fill(server, receipt, 0)
    await new Promise((r) => setTimeout(r, 1000)) // let both settle after the burst
    rss[name] = await rssOf(server.child.pid)
    await stopServer(server)
  }
  return rss
}

const COLUMNS = [
  ['sends/s', 'rps', 0],
  ['CPU/send', 'cpuPerSend', 2],
  ['main CPU', 'mainPerSend', 2],
  ['send→read', 'trip', 2],
  ['its CPU', 'tripCpu', 2],
  ['read', 'read', 2],
  ['its CPU', 'readCpu', 2],
]

function report(runs, rss) {
  const of = (name, key) => runs[name].map((r) => r[key])
  const per = (name, key) => runs[name].map((r, i) => r[key] / runs.maildev[i][key])
  const load = `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`
  console.log(
    `\nsendbox against MailDev ${MAILDEV_VERSION}: ${ROUNDS} alternating rounds (${SENDERS} senders × ${DURATION} s; ${ROUND_TRIPS} send → read and ${READS} reads over ${STORED} stored); medians; ${load}\n`,
  )
  console.log(`server                ${COLUMNS.map(([title]) => title.padStart(10)).join('')}`)
  for (const name of Object.keys(runs)) {
    const cells = COLUMNS.map(([, key, digits]) => median(of(name, key)).toFixed(digits))
    const rounds = of(name, 'rps').map((x) => x.toFixed(0))
    console.log(
      `${name.padEnd(22)}${cells.map((c) => c.padStart(10)).join('')}   sends/s by round: ${rounds.join(' ')}`,
    )
  }
  console.log(
    "(ms; send→read and read: p50 of the client's wall clock; CPU: the server's, per one; main CPU: its main thread's share)\n",
  )
  for (const name of Object.keys(runs).filter((n) => n !== 'maildev')) {
    console.log(`${name} ÷ MailDev, median (range by round):`)
    console.log(`  throughput          ${ratioRange(per(name, 'rps'))}   goal >= 3`)
    console.log(`  CPU per send        ${ratioRange(per(name, 'cpuPerSend'))}`)
    console.log(`  send → read p50     ${ratioRange(per(name, 'trip'))}   goal <= 0.5`)
    console.log(`    its server CPU    ${ratioRange(per(name, 'tripCpu'))}`)
    console.log(`  read alone p50      ${ratioRange(per(name, 'read'))}   goal <= 1.0`)
    console.log(`    its server CPU    ${ratioRange(per(name, 'readCpu'))}`)
  }
  const mb = (x) => `${(x / 2 ** 20).toFixed(0)} MB`
  console.log(`\nRSS of a fresh server holding ${STORED} receipts: MailDev ${mb(rss.maildev)}`)
  for (const name of ['sendbox memory', 'sendbox log'])
    console.log(
      `  ${name}: ${mb(rss[name])} (${(rss[name] / rss.maildev).toFixed(2)} of MailDev's; goal <= 0.7)`,
    )
}

await main()
