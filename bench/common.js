// What the benches share: the send every load makes (the order-receipt example, a layout, a
// partial and a loop, with its default fixture) and the median of a run's rounds.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readyLine } from './ready-line.js'

export { readyLine }

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const SLUG = 'order-receipt'

/**
 * The body and headers of one POST /messages of the receipt, under a sandbox token of the bench's own.
 *
 * @example
 * const { body, headers } = receiptSend('sandbox_bench_0123456789')
 */
export function receiptSend(token) {
  const variables = JSON.parse(readFileSync(join(ROOT, 'fixtures', SLUG, 'default.json'), 'utf8'))
  const body = JSON.stringify({
    template: SLUG,
    from: 'Acme Shop <shop@acme.test>',
    to: ['Ada Lovelace <ada@example.com>'],
    subject: 'Your receipt',
    templateVariables: variables,
  })
  return { body, headers: { 'content-type': 'application/json', authorization: `token ${token}` } }
}

/** The middle figure (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * A Node child process (`args` after `node`), resolved with its URL once its standard output
 * matches `readyPattern` (a port, or a whole URL, in its first group).
 *
 * @example
 * const { child, url } = await startChild(['bin/sendbox.js', '--port', '0'], /sendbox ready (\S+)/)
 */
export function startChild(args, readyPattern, env = {}) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, CI: 'true', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return readyLine(child, readyPattern, args.join(' ')).then(({ match }) => ({
    child,
    url: match[1].startsWith('http') ? match[1] : `http://127.0.0.1:${match[1]}`,
  }))
}

/** Stops a child with SIGTERM; resolves once it has exited. */
export const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })

/** The fields of a /proc stat file after the process's name: its parent at 1, its CPU at 11 and 12. */
async function statFields(file) {
  return (await readFile(file, 'utf8')).split(') ')[1].split(' ')
}

/** User + system CPU, in ms, of a stat file's fields (statFields). */
const cpuMsOf = (fields) => (Number(fields[11]) + Number(fields[12])) * 10

/** CPU time (user + system) a process has used, in ms: per send, it is steadier than sends/s on a busy machine. */
export async function cpuOf(pid) {
  return cpuMsOf(await statFields(`/proc/${pid}/stat`))
}

/** The same for a process's main thread alone (its worker threads left out), in ms. */
export async function mainThreadCpuOf(pid) {
  return cpuMsOf(await statFields(`/proc/${pid}/task/${pid}/stat`))
}

/**
 * CPU ms of a throwaway PostgreSQL cluster (test/helpers/pg-cluster.js): its postmaster and the
 * postmaster's children (backends, writers, the WAL writer).
 */
export async function postgresCpu(cluster) {
  const postmaster = Number(
    (await readFile(join(cluster.dir, 'data/postmaster.pid'), 'utf8')).split('\n')[0],
  )
  let total = await cpuOf(postmaster)
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    // A process that ended meanwhile, or any stat not shaped like a process's, counts for none.
    const fields = await statFields(`/proc/${entry}/stat`).catch(() => null)
    if (fields && Number(fields[1]) === postmaster) total += cpuMsOf(fields)
  }
  return total
}

/** A process's resident set size, in bytes. */
export function rssOf(pid) {
  return readFile(`/proc/${pid}/status`, 'utf8').then(
    (s) => Number(/VmRSS:\s+(\d+)/.exec(s)[1]) * 1024,
  )
}

/** The value at quantile `q` (0.5 the median, 0.99 the p99) of a list of figures. */
export const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]
}

/**
 * Sends/s (autocannon's average) of POST /messages with `send` (`receiptSend`'s), over
 * `connections` for `duration` seconds; any answer but a 2xx fails it.
 *
 * @example
 * const rps = await sendsPerSecond(url, receiptSend(TOKEN), 32, 6)
 */
export async function sendsPerSecond(url, { headers, body }, connections, duration) {
  const { default: autocannon } = await import('autocannon')
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${url}/messages`, method: 'POST', headers, body, connections, duration },
      (error, result) => {
        if (error) return reject(error)
        if (result.non2xx > 0) return reject(new Error(`${result.non2xx} non-2xx from ${url}`))
        resolve(result.requests.average)
      },
    )
  })
}
