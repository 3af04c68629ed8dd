// npm run bench:inbox: the inbox page in Chromium while mail arrives, as a person feels it.
//
//   node bench/inbox.js [--against DIR] [--rounds N] [--seconds S]
//
// For each checkout (this one, and with --against another one, e.g. a worktree of main, built),
// in alternating rounds, each measurement on a fresh `serve --memory` in a child process, the
// page at 1280×800 in Debian's Chromium (SENDBOX_BROWSER, else /usr/bin/chromium):
//
//   - main-thread busy (CDP Performance `TaskDuration` over wall time) while a separate process
//     sends at 30/s and at 300/s for S seconds (default 10), and the longest gap between two
//     animation frames (a rAF monitor in the page; 100 ms is a frame "blocked"), and the longest task;
//   - DOM elements (and nodes, after a GC) with 1000 messages stored;
//   - bytes fetched (response bodies of /_sandbox/api/) to display the oldest of 5000 messages,
//     clicking "Show more" until it shows (or until there is no "Show more" left).
//
// Targets (issue 15): busy <= 25% at 30/s; no frame blocked > 100 ms at 300/s; DOM <= 5k elements
// with 1000 stored. Medians of the rounds, with every round's figure after them.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ROOT as root, readyLine, receiptSend, SLUG } from './common.js'

const { body, headers } = receiptSend('sandbox_bench_inbox_0123')

// ---- the sender: `node bench/inbox.js send URL RATE SECONDS`, a process of its own -------------

if (process.argv[2] === 'send') {
  const [url, rate, seconds] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5])]
  const total = Math.round(rate * seconds)
  let sent = 0
  let done = 0
  let failed = 0
  let inFlight = 0
  const t0 = performance.now()
  await new Promise((finish) => {
    const tick = () => {
      // As many as should have gone by now (a fixed rate, not "as fast as answers come"), 64 in flight at most.
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate) + 1)
      while (sent < due && inFlight < 64) {
        sent++
        inFlight++
        fetch(`${url}/messages`, { method: 'POST', headers, body })
          .then((r) => r.arrayBuffer().then(() => r.status === 201 || failed++))
          .catch(() => failed++)
          .finally(() => {
            inFlight--
            done++
            if (done === total) finish()
          })
      }
      if (sent < total) setTimeout(tick, 2)
    }
    tick()
  })
  console.log(JSON.stringify({ sent: done, failed, seconds: (performance.now() - t0) / 1000 }))
  process.exit(0)
}

// ---- the bench -------------------------------------------------------------------------------

const { values: options } = parseArgs({
  options: {
    against: { type: 'string' },
    rounds: { type: 'string', default: process.env.INBOX_ROUNDS ?? '3' },
    seconds: { type: 'string', default: process.env.INBOX_SECONDS ?? '10' },
  },
})
const ROUNDS = Number(options.rounds)
const SECONDS = Number(options.seconds)
const CHROMIUM = process.env.SENDBOX_BROWSER ?? '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  console.log(
    `\ninbox bench skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set SENDBOX_BROWSER)`,
  )
  process.exit(0)
}
const checkouts = { this: root, ...(options.against ? { against: resolve(options.against) } : {}) }

const median = (xs) => {
  const s = xs.filter((x) => x !== null && !Number.isNaN(x)).sort((a, b) => a - b)
  return s.length ? s[Math.floor(s.length / 2)] : null
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function serve(dir) {
  const args = [
    join(dir, 'bin/sendbox.js'),
    'serve',
    '--memory',
    '--port',
    '0',
    '--no-open',
    '--templates',
    join(root, 'templates'),
    '--fixtures',
    join(root, 'fixtures'),
    '--max-messages',
    '5000',
  ]
  const child = spawn(process.execPath, args, {
    env: { ...process.env, CI: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return readyLine(child, /sendbox ready (\S+)/, 'serve').then(({ match }) => ({
    child,
    url: match[1],
  }))
}
const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })

function sender(url, rate, seconds) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), 'send', url, String(rate), String(seconds)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`sender exited ${code}`)),
    ),
  )
}

/** n messages stored, 32 at a time (from here: not part of any measurement). */
async function fill(url, n) {
  for (let done = 0; done < n; ) {
    const batch = Math.min(32, n - done)
    await Promise.all(
      Array.from({ length: batch }, () =>
        fetch(`${url}/messages`, { method: 'POST', headers, body }).then((r) => r.arrayBuffer()),
      ),
    )
    done += batch
  }
}

const rows = (page) =>
  page.evaluate(() => document.querySelectorAll('#message-list a[data-id]').length)

async function openInbox(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  page.setDefaultTimeout(120_000)
  await page.goto(`${url}/_sandbox/`)
  await page.locator('#status[data-state="live"]').waitFor()
  return { context, page }
}

/** Busy %, frame gaps and tasks while `rate` sends a second arrive for SECONDS. */
async function live(browser, dir, rate) {
  const server = await serve(dir)
  const { context, page } = await openInbox(browser, server.url)
  try {
    await page.getByText('No messages yet').waitFor()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Performance.enable', { timeDomain: 'timeTicks' })
    // The monitors: the longest gap between animation frames, and long tasks.
    await page.evaluate(() => {
      const m = (window.__bench = {
        maxGap: 0,
        gapsOver100: 0,
        frames: 0,
        longest: 0,
        longTasks: 0,
        running: true,
      })
      let last = performance.now()
      const frame = (now) => {
        const gap = now - last
        last = now
        if (m.frames++ > 0) {
          m.maxGap = Math.max(m.maxGap, gap)
          if (gap > 100) m.gapsOver100++
        }
        if (m.running) requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          m.longTasks++
          m.longest = Math.max(m.longest, entry.duration)
        }
      }).observe({ type: 'longtask' })
    })
    const metric = async () =>
      Object.fromEntries(
        (await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]),
      )
    const before = await metric()
    const sent = await sender(server.url, rate, SECONDS)
    // What arrived last is drawn (or given up on after 5 s).
    await page
      .waitForFunction(
        (n) =>
          document.getElementById('message-count')?.textContent?.replace(/\D/g, '') === String(n),
        sent.sent,
        { timeout: 5000 },
      )
      .catch(() => {})
    const after = await metric()
    const monitor = await page.evaluate(() => ({
      ...window.__bench,
      running: (window.__bench.running = false),
    }))
    const wall = after.Timestamp - before.Timestamp
    return {
      busy: (100 * (after.TaskDuration - before.TaskDuration)) / wall,
      script: (100 * (after.ScriptDuration - before.ScriptDuration)) / wall,
      layout:
        (100 *
          (after.LayoutDuration +
            after.RecalcStyleDuration -
            before.LayoutDuration -
            before.RecalcStyleDuration)) /
        wall,
      maxGap: monitor.maxGap,
      gapsOver100: monitor.gapsOver100,
      longest: monitor.longest,
      sent: sent.sent,
      failed: sent.failed,
    }
  } finally {
    await context.close()
    await stop(server.child)
  }
}

/** Elements and nodes with 1000 messages stored. */
async function dom(browser, dir) {
  const server = await serve(dir)
  try {
    await fill(server.url, 1000)
    const { context, page } = await openInbox(browser, server.url)
    try {
      await page.waitForFunction(
        () => document.querySelectorAll('#message-list a[data-id]').length > 0,
      )
      await sleep(500)
      const elements = await page.evaluate(() => document.getElementsByTagName('*').length)
      const cdp = await context.newCDPSession(page)
      await cdp.send('HeapProfiler.collectGarbage')
      await cdp.send('Performance.enable')
      const nodes = (await cdp.send('Performance.getMetrics')).metrics.find(
        (x) => x.name === 'Nodes',
      ).value
      return { elements, nodes, rows: await rows(page) }
    } finally {
      await context.close()
    }
  } finally {
    await stop(server.child)
  }
}

/** Bytes fetched (response bodies under /_sandbox/api/) until the oldest of 5000 is displayed, clicking "Show more". */
async function reachLast(browser, dir) {
  const server = await serve(dir)
  try {
    await fill(server.url, 5000)
    const oldest = (
      await (
        await fetch(`${server.url}/_sandbox/api/messages?fields=summary&limit=1&offset=4999`)
      ).json()
    ).messages[0].id
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    page.setDefaultTimeout(120_000)
    let bytes = 0
    let requests = 0
    page.on('requestfinished', async (request) => {
      if (!request.url().includes('/_sandbox/api/') || request.url().endsWith('/events')) return
      requests++
      bytes += (await request.sizes()).responseBodySize
    })
    try {
      const t0 = performance.now()
      await page.goto(`${server.url}/_sandbox/`)
      await page.locator('#status[data-state="live"]').waitFor()
      await page.waitForFunction(
        () => document.querySelectorAll('#message-list a[data-id]').length > 0,
      )
      const more = page.getByRole('button', { name: /^Show more/ })
      let clicks = 0
      const shown = () =>
        page.evaluate((id) => !!document.querySelector(`#message-list a[data-id="${id}"]`), oldest)
      while (!(await shown()) && (await more.isVisible())) {
        const n = await rows(page)
        await more.click()
        clicks++
        await page.waitForFunction(
          (n) => document.querySelectorAll('#message-list a[data-id]').length > n,
          n,
        )
      }
      const reached = await shown()
      const ms = performance.now() - t0
      await sleep(300) // the last responses' sizes
      return { bytes, requests, clicks, reached, rows: await rows(page), seconds: ms / 1000 }
    } finally {
      await context.close()
    }
  } finally {
    await stop(server.child)
  }
}

const { chromium } = await import('playwright-core')
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
})
const results = Object.fromEntries(
  Object.keys(checkouts).map((name) => [name, { live30: [], live300: [], dom: [], reach: [] }]),
)
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which checkout goes first, so that neither always meets a warmer machine.
    const order = round % 2 ? Object.keys(checkouts).reverse() : Object.keys(checkouts)
    for (const name of order) {
      const dir = checkouts[name]
      const r = results[name]
      r.live30.push(await live(browser, dir, 30))
      r.live300.push(await live(browser, dir, 300))
      r.dom.push(await dom(browser, dir))
      r.reach.push(await reachLast(browser, dir))
      const l30 = r.live30.at(-1),
        l300 = r.live300.at(-1),
        d = r.dom.at(-1),
        b = r.reach.at(-1)
      console.error(
        `round ${round + 1} ${name}: busy ${l30.busy.toFixed(0)}% at 30/s, ${l300.busy.toFixed(0)}% at 300/s (longest frame gap ${l300.maxGap.toFixed(0)} ms); ${d.elements} elements at 1000; ${(b.bytes / 1e6).toFixed(2)} MB, ${b.clicks} clicks, ${b.reached ? 'reached' : `not reached (${b.rows} rows)`}`,
      )
    }
  }
} finally {
  await browser.close()
}

const f0 = (x) => (x === null ? '–' : x.toFixed(0))
const each = (xs, fmt) => xs.map(fmt).join(' ')
console.log(
  `\ninbox bench: "${SLUG}" sends at a fixed rate for ${SECONDS} s, Chromium at 1280×800, ${ROUNDS} alternating rounds; medians (each round)\n`,
)
const table = [
  [
    '',
    ...Object.keys(checkouts).map((n) =>
      n === 'this' ? `this checkout` : `--against ${options.against}`,
    ),
  ],
]
const row = (label, pick, fmt = f0) =>
  table.push([
    label,
    ...Object.keys(checkouts).map((n) => {
      const xs = pick(results[n])
      return `${fmt(median(xs))} (${each(xs, fmt)})`
    }),
  ])
row('busy % at 30/s (target <= 25)', (r) => r.live30.map((x) => x.busy))
row('  of which script %', (r) => r.live30.map((x) => x.script))
row('  of which style and layout %', (r) => r.live30.map((x) => x.layout))
row('busy % at 300/s', (r) => r.live300.map((x) => x.busy))
row('  of which script %', (r) => r.live300.map((x) => x.script))
row('  of which style and layout %', (r) => r.live300.map((x) => x.layout))
row('longest frame gap at 300/s, ms (target <= 100)', (r) => r.live300.map((x) => x.maxGap))
row('frames blocked > 100 ms at 300/s', (r) => r.live300.map((x) => x.gapsOver100))
row('longest task at 300/s, ms', (r) => r.live300.map((x) => x.longest))
row('DOM elements, 1000 stored (target <= 5000)', (r) => r.dom.map((x) => x.elements))
row('DOM nodes after GC, 1000 stored', (r) => r.dom.map((x) => x.nodes))
row(
  'MB fetched to show the oldest of 5000',
  (r) => r.reach.map((x) => x.bytes / 1e6),
  (x) => (x === null ? '–' : x.toFixed(2)),
)
table.push([
  '  reached / clicks / rows shown',
  ...Object.keys(checkouts).map((n) =>
    results[n].reach.map((x) => `${x.reached ? 'yes' : 'no'}/${x.clicks}/${x.rows}`).join(' '),
  ),
])
row('  requests', (r) => r.reach.map((x) => x.requests))
const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)))
for (const r of table) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '))
const sentRates = Object.fromEntries(
  Object.entries(results).map(([n, r]) => [
    n,
    [...r.live30, ...r.live300]
      .map((x) => `${x.sent}${x.failed ? `(${x.failed} failed)` : ''}`)
      .join(' '),
  ]),
)
console.log(`\nsent per run (30/s then 300/s runs): ${JSON.stringify(sentRates)}`)
