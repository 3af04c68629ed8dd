import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync, watch } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A throwaway nginx for the reverse-proxy tests: Debian's `nginx` binary (what .ci/run installs),
 * its prefix, configuration, pid, logs and temporary folders all in a temporary folder, one
 * process (`master_process off`) in the foreground on a free port. The system's configuration
 * and service are never read or touched.
 */

export const NGINX_SKIPPED =
  'Reverse-proxy tests skipped: install Debian’s nginx (apt-get install nginx) and postgresql, or run .ci/run'

/**
 * The nginx binary: SENDBOX_NGINX, else /usr/sbin/nginx (Debian's), else one on the PATH; null
 * when there is none.
 *
 * @example
 * findNginx() // '/usr/sbin/nginx'
 */
export function findNginx(): string | null {
  const given = process.env.SENDBOX_NGINX
  if (given) return existsSync(given) ? given : null
  if (existsSync('/usr/sbin/nginx')) return '/usr/sbin/nginx'
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' })
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null
}

export interface Nginx {
  dir: string
  stop(): Promise<void>
}

/**
 * Runs nginx with `http` as the inside of its `http { }` block (what a site's configuration
 * is), and resolves once it listens: nginx writes its pid file after it opened its sockets.
 *
 * @example
 * const proxy = await startNginx(nginx, 'server { listen 127.0.0.1:8080; … }')
 * await proxy.stop()
 */
export async function startNginx(binary: string, http: string): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'sendbox-nginx-'))
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((name) => `  ${name}_temp_path ${join(dir, name)};`)
    .join('\n')
  const conf = join(dir, 'nginx.conf')
  await writeFile(
    conf,
    `events { worker_connections 256; }\nhttp {\n  access_log ${join(dir, 'access.log')};\n${temp}\n${http}\n}\n`,
  )
  const pid = join(dir, 'nginx.pid')
  const errorLog = join(dir, 'error.log')
  const child = spawn(
    binary,
    [
      '-p',
      dir,
      '-c',
      conf,
      '-e',
      errorLog,
      '-g',
      `daemon off; master_process off; pid ${pid}; error_log ${errorLog};`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  try {
    await listening(dir, pid, exited, () => stderr)
  } catch (error) {
    child.kill('SIGKILL')
    await exited
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  return { dir, stop: () => stop(child, exited, dir) }
}

/** Resolves when the pid file appears; rejects with nginx's own words if it exits first. */
function listening(
  dir: string,
  pid: string,
  exited: Promise<number | null>,
  stderr: () => string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, () => {
      if (!existsSync(pid)) return
      watcher.close()
      resolve()
    })
    void exited.then(async (code) => {
      watcher.close()
      const log = await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')
      reject(new Error(`nginx exited (${code}) before it listened:\n${stderr()}\n${log}`))
    })
    if (existsSync(pid)) watcher.emit('change')
  })
}

async function stop(child: ChildProcess, exited: Promise<number | null>, dir: string) {
  // SIGTERM, a fast stop: a graceful one (SIGQUIT) would wait for the open event streams.
  if (child.exitCode === null) child.kill('SIGTERM')
  await exited
  await rm(dir, { recursive: true, force: true })
}
