// Spawn → first answered request, as a CI step waits for a server (`wait-on`, a test kit): the
// process is started on a known free port and polled, one request at a time, a new one a few ms
// after each refused connection or non-200 answer, until one is answered 200. Used by
// bench/startup.js for sendbox and for bench/bare-server.js alike.
import { spawn } from 'node:child_process'
import { request } from 'node:http'

/** What the poll waits between two tries, in ms (wait-on's `--interval`). */
export const POLL_MS = 5

/**
 * One request on a fresh connection; resolves with its status and body, or null when the
 * connection is refused or fails.
 *
 * @example
 * const answer = await ask(5025, { path: '/_sandbox/api/health' })
 */
export function ask(port, { method = 'GET', path, headers = {}, body } = {}) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => {
        text += d
      })
      res.on('end', () => resolve({ status: res.statusCode, body: text }))
      res.on('error', () => resolve(null))
    })
    req.on('error', () => resolve(null))
    req.end(body)
  })
}

/** Polls `path` until it is answered 200; resolves with the time of that answer (performance.now()). */
export async function pollUntil200(port, path, child) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the process exited ${child.exitCode}`)
    const answer = await ask(port, { path })
    if (answer?.status === 200) return performance.now()
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/**
 * Spawns `node [--import probe] ...args` (`args` name the port) and follows its output: the ready
 * line's time and the probe's CPU figures (at the ready line, at the first and second answers).
 *
 * @example
 * const run = spawnProbed(['bench/bare-server.js', String(port)], { probe })
 */
export function spawnProbed(args, { probe, env = process.env }) {
  const t0 = performance.now()
  const child = spawn(process.execPath, ['--import', probe, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const run = { t0, child, readyMs: undefined, out: '', err: '', probed: {} }
  child.stdout.on('data', (d) => {
    run.out += d
    if (run.readyMs === undefined && /sendbox ready/.test(run.out))
      run.readyMs = performance.now() - t0
  })
  child.stderr.on('data', (d) => {
    run.err += d
    for (const [, kind, json] of run.err.matchAll(/^(startup-probe(?:-answer)?) (\{.*\})$/gm)) {
      const figures = JSON.parse(json)
      const key = kind === 'startup-probe' ? 'ready' : `answer${figures.n}`
      run.probed[key] = figures
    }
  })
  return run
}

/** Resolves once the probe has written its figure `key` (`ready`, `answer1`, `answer2`). */
export function probed(run, key) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (run.probed[key]) {
        run.child.stderr.off('data', check)
        run.child.off('exit', gone)
        resolve(run.probed[key])
      }
    }
    const gone = (code) => reject(new Error(`exited ${code} before ${key}: ${run.out}${run.err}`))
    run.child.stderr.on('data', check)
    run.child.once('exit', gone)
    check()
  })
}
