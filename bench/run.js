// npm run bench: sendbox against its two floors, side by side, in one run.
// Every server runs in its own child process; autocannon (32 connections) runs here.
// With `--against DIR` (a built checkout, e.g. main's), that checkout's sendbox joins the rounds
// and the CPU table, for before and after side by side.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { meanOf, printCpuTable, profileLoad, startProfiled } from './cpu-profile.js'
import {
  cpuOf,
  median,
  ROOT as root,
  receiptSend,
  rssOf,
  SLUG,
  startChild,
  stop,
} from './common.js'

const templates = join(root, 'templates')
const DURATION = Number(process.env.BENCH_DURATION ?? 6)
const CONNECTIONS = 32
const TOKEN = 'sandbox_bench_0123456789'

const { body, headers } = receiptSend(TOKEN)

function load(url, connections = CONNECTIONS, duration = DURATION) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${url}/messages`, method: 'POST', headers, body, connections, duration },
      (error, result) => {
        if (error) return reject(error)
        if (result.non2xx > 0)
          return reject(new Error(`${result.non2xx} non-2xx answers from ${url}`))
        resolve({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 })
      },
    )
  })
}

async function sequential(url, n) {
  const times = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const res = await fetch(`${url}/messages`, { method: 'POST', headers, body })
    await res.arrayBuffer()
    if (res.status !== 201) throw new Error(`status ${res.status}`)
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(n / 2)]
}

const { values: flags } = parseArgs({ options: { against: { type: 'string' } } })
const against = flags.against ? resolve(flags.against) : undefined
const dir = await mkdtemp(join(tmpdir(), 'sendbox-bench-'))
const results = {}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
try {
  const sendboxArgs = (db, ...more) => [
    join(root, 'bin/sendbox.js'),
    '--port',
    '0',
    '--db',
    db,
    '--templates',
    templates,
    '--fixtures',
    join(root, 'fixtures'),
    '--no-open',
    '--max-messages',
    '5000',
    ...more,
  ]
  // A webhook receiver in a process of its own, for the sendbox that posts every event to it.
  const receiver = await startChild(['bench/receiver.js'], /receiver ready (\d+)/)
  const received = async () => (await (await fetch(`${receiver.url}/count`)).json()).count
  // All four servers stay up; rounds alternate between them so that whatever else the machine
  // is doing falls on each alike, and the medians are compared.
  const servers = {
    http: await startChild(
      ['bench/floor.js', 'http', templates, SLUG, join(dir, 'http.jsonl')],
      /floor ready (\d+)/,
    ),
    work: await startChild(
      ['bench/floor.js', 'work', templates, SLUG, join(dir, 'work.jsonl')],
      /floor ready (\d+)/,
    ),
    sendbox: await startChild(sendboxArgs(join(dir, 'load.jsonl')), /sendbox ready (\S+)/),
    ...(against && {
      before: await startChild(
        [join(against, 'bin/sendbox.js'), ...sendboxArgs(join(dir, 'before.jsonl')).slice(1)],
        /sendbox ready (\S+)/,
      ),
    }),
    webhook: await startChild(
      sendboxArgs(join(dir, 'webhook.jsonl'), '--webhook', `${receiver.url}/hooks`),
      /sendbox ready (\S+)/,
    ),
    sse: await startChild(sendboxArgs(join(dir, 'sse.jsonl')), /sendbox ready (\S+)/),
    'sse summary': await startChild(
      sendboxArgs(join(dir, 'sse-summary.jsonl')),
      /sendbox ready (\S+)/,
    ),
  }
  // 20 inbox tabs' worth of event streams on the `sse` server, read in a process of their own.
  const SUBSCRIBERS = 20
  // Full records (what a CI listener gets by default) on `sse`; summaries (what the inbox asks for) on `sse summary`.
  const subscribers = {
    sse: await startChild(
      ['bench/subscribers.js', servers.sse.url, String(SUBSCRIBERS)],
      /subscribers ready (\d+)/,
    ),
    'sse summary': await startChild(
      ['bench/subscribers.js', servers['sse summary'].url, String(SUBSCRIBERS), '?fields=summary'],
      /subscribers ready (\d+)/,
    ),
  }
  const framesSeen = async (name) =>
    (await (await fetch(`${subscribers[name].url}/count`)).json()).events
  for (const { url } of Object.values(servers)) await load(url, CONNECTIONS, 2) // warm-up
  const runs = Object.fromEntries(Object.keys(servers).map((name) => [name, []]))
  // Message frames each subscriber read per send during a round (1 when they keep up).
  const framesPerSend = { sse: [], 'sse summary': [] }
  // Webhooks posted per send during a round (message.sent + message.delivered: 2 when they keep up).
  const perSend = []
  const cpuPerSend = { sendbox: [], webhook: [], ...(against && { before: [] }) }
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(servers)) {
      const before =
        name === 'webhook' ? await received() : name in subscribers ? await framesSeen(name) : 0
      const cpuBefore = await cpuOf(servers[name].child.pid)
      const run = await load(servers[name].url)
      runs[name].push(run)
      if (name in cpuPerSend)
        cpuPerSend[name].push(
          (((await cpuOf(servers[name].child.pid)) - cpuBefore) * 1000) / (run.rps * DURATION),
        )
      if (name === 'webhook') perSend.push(((await received()) - before) / (run.rps * DURATION))
      if (name in subscribers)
        framesPerSend[name].push(
          ((await framesSeen(name)) - before) / SUBSCRIBERS / (run.rps * DURATION),
        )
    }
  }
  for (const [name, xs] of Object.entries(runs))
    results[name] = {
      rps: median(xs.map((x) => x.rps)),
      p50: median(xs.map((x) => x.p50)),
      p99: median(xs.map((x) => x.p99)),
      all: xs.map((x) => Math.round(x.rps)),
    }
  const ratios = runs.sendbox.map((x, i) => x.rps / runs.work[i].rps)
  const beforeRatios = runs.before?.map((x, i) => x.rps / runs.work[i].rps)
  const webhookRatios = runs.webhook.map((x, i) => x.rps / runs.sendbox[i].rps)
  const sseRatios = runs.sse.map((x, i) => x.rps / runs.sendbox[i].rps)
  const summaryRatios = runs['sse summary'].map((x, i) => x.rps / runs.sendbox[i].rps)
  const backlog = (
    await (await fetch(`${servers.webhook.url}/_sandbox/api/webhooks?limit=1`)).json()
  ).pending
  await stop(servers.http.child)
  await stop(servers.work.child)
  await stop(servers.webhook.child)
  if (servers.before) await stop(servers.before.child)
  await stop(receiver.child)
  for (const name of Object.keys(subscribers)) {
    await stop(servers[name].child)
    await stop(subscribers[name].child)
  }
  const sendbox = servers.sendbox

  const fill = async (url, target) => {
    let { messages } = await (await fetch(`${url}/_sandbox/api/health`)).json()
    while (messages < target) {
      await Promise.all(
        Array.from({ length: Math.min(32, target - messages) }, () =>
          fetch(`${url}/messages`, { method: 'POST', headers, body }).then((r) => r.arrayBuffer()),
        ),
      )
      ;({ messages } = await (await fetch(`${url}/_sandbox/api/health`)).json())
    }
  }

  // RSS after that load, with a full log.
  await fill(sendbox.url, 5000)
  const rssAfterLoad = await rssOf(sendbox.child.pid)
  await stop(sendbox.child)

  // Sequential sends (one at a time) on an empty log against a full one, in a warmed-up
  // process; then the RSS of a fresh server holding 5000 receipts.
  const fresh = await startChild(sendboxArgs(join(dir, 'messages.jsonl')), /sendbox ready (\S+)/)
  await sequential(fresh.url, 300) // warm-up
  await fetch(`${fresh.url}/_sandbox/api/messages`, { method: 'DELETE' })
  const emptyP50 = await sequential(fresh.url, 300)
  await fetch(`${fresh.url}/_sandbox/api/messages`, { method: 'DELETE' })
  await fill(fresh.url, 5000)
  await new Promise((r) => setTimeout(r, 1000))
  const rss = await rssOf(fresh.child.pid)
  const fullP50 = await sequential(fresh.url, 300)
  await stop(fresh.child)

  // Per-send CPU by package: V8's profiler on a server of its own (each checkout's unbundled
  // dist, so that a function names its module folder), in alternating rounds.
  const profiled = { sendbox: root, ...(against && { before: against }) }
  const profiles = {}
  for (const [name, at] of Object.entries(profiled)) {
    const server = await startProfiled(at, await mkdtemp(join(dir, `profiled-${name}-`)))
    await load(server.url, CONNECTIONS, 2) // warm-up
    profiles[name] = { server, runs: [] }
  }
  for (let round = 0; round < Math.min(ROUNDS, 3); round++)
    for (const [name, at] of Object.entries(profiled))
      profiles[name].runs.push(await profileLoad(profiles[name].server, at, dir, DURATION))
  for (const { server } of Object.values(profiles)) await stop(server.child)

  const r = (x) => x.toFixed(0)
  console.log(
    `\nsendbox bench: POST /messages, "${SLUG}" (layout + partial + loop), ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s; medians\n`,
  )
  console.log('server        sends/s   p50 ms   p99 ms   (each round)')
  for (const [name, x] of Object.entries(results))
    console.log(
      `${name.padEnd(12)} ${r(x.rps).padStart(8)} ${String(x.p50).padStart(8)} ${String(x.p99).padStart(8)}   ${x.all.join(' ')}`,
    )
  console.log('')
  console.log(`sendbox / HTTP floor:  ${(results.sendbox.rps / results.http.rps).toFixed(2)}`)
  console.log(
    `sendbox / work floor:  ${median(ratios).toFixed(2)}   (target >= 1.0; per round ${ratios.map((x) => x.toFixed(2)).join(' ')})`,
  )
  console.log(
    `  CPU per send: sendbox ${median(cpuPerSend.sendbox).toFixed(0)} µs (per round ${cpuPerSend.sendbox.map((x) => x.toFixed(0)).join(' ')})`,
  )
  if (against)
    console.log(
      `before (${against}) / work floor: ${median(beforeRatios).toFixed(2)}   (per round ${beforeRatios.map((x) => x.toFixed(2)).join(' ')}); CPU per send ${median(cpuPerSend.before).toFixed(0)} µs; sendbox / before: sends/s ${(results.sendbox.rps / results.before.rps).toFixed(2)}, CPU per send ${(median(cpuPerSend.sendbox) / median(cpuPerSend.before)).toFixed(2)}`,
    )
  console.log(
    `one webhook URL / none: ${(results.webhook.rps / results.sendbox.rps).toFixed(2)}   (target >= 0.85; per round ${webhookRatios.map((x) => x.toFixed(2)).join(' ')})`,
  )
  console.log(
    `  CPU per send: ${median(cpuPerSend.webhook).toFixed(0)} µs with the webhook, ${median(cpuPerSend.sendbox).toFixed(0)} µs without (ratio ${(median(cpuPerSend.sendbox) / median(cpuPerSend.webhook)).toFixed(2)})`,
  )
  console.log(
    `  webhooks received per send during a round: ${perSend.map((x) => x.toFixed(2)).join(' ')} (2 = all delivered as they came); pending at the end: ${backlog}`,
  )
  console.log(
    `${SUBSCRIBERS} SSE subscribers / none: ${median(sseRatios).toFixed(2)} with whole records, ${median(summaryRatios).toFixed(2)} with summaries as the inbox asks   (target >= 0.8; per round ${sseRatios.map((x) => x.toFixed(2)).join(' ')} | ${summaryRatios.map((x) => x.toFixed(2)).join(' ')})`,
  )
  console.log(
    `  message frames read per subscriber per send: ${framesPerSend.sse.map((x) => x.toFixed(2)).join(' ')} | ${framesPerSend['sse summary'].map((x) => x.toFixed(2)).join(' ')} (1 = every subscriber kept up)`,
  )
  console.log(
    `sequential p50, empty log: ${emptyP50.toFixed(2)} ms; with 5000 messages: ${fullP50.toFixed(2)} ms; ratio ${(fullP50 / emptyP50).toFixed(2)}   (target <= 1.5)`,
  )
  console.log(
    `RSS with 5000 receipts stored: ${(rss / 1024 / 1024).toFixed(0)} MB   (target < 200)`,
  )
  console.log(
    `RSS with 5000 receipts after the 32-connection run: ${(rssAfterLoad / 1024 / 1024).toFixed(0)} MB   (V8 keeps its heap high-water mark)`,
  )
  console.log(
    `\nWhere a send's CPU goes (32 connections, ${profiles.sendbox.runs.length} profiled rounds of ${DURATION} s; the process's CPU time from /proc, shared out by V8's self-time samples):`,
  )
  printCpuTable(Object.fromEntries(Object.entries(profiles).map(([n, p]) => [n, meanOf(p.runs)])))
} finally {
  await rm(dir, { recursive: true, force: true })
}
