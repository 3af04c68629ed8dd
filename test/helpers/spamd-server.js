// A throwaway SpamAssassin spamd for the tests and the bench: Debian's spamassassin package (its
// shipped rules), a temporary home and site configuration, a free port on 127.0.0.1, local tests
// only (no DNS, no network rule), no Bayes, no user configuration. Plain JavaScript so that bench/
// (plain Node) and the vitest setup share it.
import { spawn } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './free-port.js'

/**
 * spamd's path: SENDBOX_SPAMD_BIN, else Debian's /usr/sbin/spamd; null when there is none.
 *
 * @example findSpamd() // → '/usr/sbin/spamd'
 */
export function findSpamd() {
  const bin = process.env.SENDBOX_SPAMD_BIN ?? '/usr/sbin/spamd'
  return existsSync(bin) ? bin : null
}

// Nothing leaves the machine: no DNS, no network rule, no learning. The rules are the package's.
const LOCAL_CF = `use_bayes 0
bayes_auto_learn 0
dns_available no
skip_rbl_checks 1
use_razor2 0
use_pyzor 0
`

/** Whether spamd at the port answers PING with PONG (its rules loaded). */
export function pingPort(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    let answer = ''
    socket.setTimeout(2000, () => socket.destroy())
    socket.on('connect', () => socket.end('PING SPAMC/1.5\r\n\r\n'))
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1')
    })
    socket.on('error', () => resolve(false))
    socket.on('close', () => resolve(/^SPAMD\/\S+ 0 PONG/.test(answer)))
  })
}

/**
 * Starts spamd in a new folder and returns at once; `ready` settles once it answers PING (its
 * first start compiles the rules: seconds), or rejects with the end of its log when it exits
 * first or takes over a minute. `stop()` ends it (and its children) and removes the folder.
 *
 * @example
 * const spamd = startSpamd()
 * await spamd.ready
 * spamd.port // → 41783
 */
export async function startSpamd({ bin = findSpamd(), port } = {}) {
  if (!bin) throw new Error('spamd was not found: apt-get install spamassassin')
  const dir = mkdtempSync(join(tmpdir(), 'sendbox-spamd-'))
  // spamd drops to `nobody` when started as root: the folder must be readable by it.
  chmodSync(dir, 0o755)
  const site = join(dir, 'site')
  mkdirSync(join(dir, 'home'))
  mkdirSync(site)
  // The package's plugin list (its .pre files), without the machine's own local.cf.
  const etc = '/etc/spamassassin'
  for (const pre of existsSync(etc) ? readdirSync(etc).filter((f) => f.endsWith('.pre')) : [])
    writeFileSync(join(site, pre), readFileSync(join(etc, pre)))
  writeFileSync(join(site, 'local.cf'), LOCAL_CF)
  const chosen = port ?? (await freePort())
  const log = join(dir, 'spamd.log')
  const args = [
    '--local',
    '--nouser-config',
    '--ipv4-only',
    `--listen=127.0.0.1:${chosen}`,
    '--max-children=2',
    '--min-children=1',
    '--min-spare=1',
    '--max-spare=1',
    `--helper-home-dir=${join(dir, 'home')}`,
    `--siteconfigpath=${site}`,
    `--pidfile=${join(dir, 'spamd.pid')}`,
    '--syslog=stderr',
    ...(process.getuid?.() === 0 ? ['--username=nobody'] : []),
  ]
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  child.stderr.on('data', (chunk) => {
    output = (output + chunk.toString()).slice(-20_000)
  })
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const ready = waitReady(chosen, exited, () => output)
  // Observed here, so that a spamd that never starts is no unhandled rejection before `ready` is read.
  ready.catch(() => {})
  return {
    host: '127.0.0.1',
    port: chosen,
    dir,
    ready,
    log: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM')
        await exited
      }
      writeFileSync(log, output)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** PING every 100 ms until PONG; rejects when spamd exits first, or after a minute. */
async function waitReady(port, exited, output) {
  let gone = null
  exited.then((how) => {
    gone = how
  })
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (gone)
      throw new Error(
        `spamd exited (${gone.code ?? gone.signal}) before it answered:\n${output().slice(-2000)}`,
      )
    if (await pingPort(port)) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`spamd did not answer PING within a minute:\n${output().slice(-2000)}`)
}
