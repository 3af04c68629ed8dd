import { execFile, execFileSync, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, childEnv, projectWithSendbox } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'

/**
 * The Python recipe (python/sendbox_process.py, shown verbatim in the docs), run by Python:
 * sendbox stops when the suite leaves the `with` block, and also when the Python process is
 * killed outright. And `npx sendbox`, terminated by its parent, leaves no node process behind.
 */

const HERE = fileURLToPath(new URL('.', import.meta.url))
const DRIVER = join(HERE, 'python', 'check_stop.py')

function hasPython(): boolean {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const python = hasPython()
if (!python) console.warn('python3 not found: skipping the Python recipe tests')

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat[stat.lastIndexOf(')') + 2] !== 'Z'
  } catch {
    return false
  }
}

function runPython(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'python3',
      [DRIVER, ...args],
      { cwd, env: childEnv(env), timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr })
      },
    )
  })
}

let app: string
beforeAll(async () => {
  // A project with sendbox installed (linked), for `npx sendbox`.
  app = await projectWithSendbox(await tempDir('sendbox-python-'))
  await mkdir(join(app, 'templates'))
  await writeFile(join(app, 'templates', 'hello.liquid'), 'Hello {{ name }}')
})
afterAll(async () => {
  // A failing run can leave a server behind: stop any process started in this test's project.
  for (const entry of existsSync('/proc') && app ? readdirSync('/proc') : []) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(app))
        process.kill(Number(entry), 'SIGKILL')
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  if (app) await rm(app, { recursive: true, force: true })
})

const NPX = ['npx', '--yes=false', 'sendbox']
const NPM_OFFLINE = { npm_config_offline: 'true', npm_config_update_notifier: 'false' }

describe.skipIf(!python)('Python: the sendbox_process recipe', { timeout: 90_000 }, () => {
  it.each([
    ['node bin/sendbox.js', [process.execPath, BIN]],
    ['npx sendbox', NPX],
  ])(
    'started as %s: leaving the with block terminates it, and no process is left',
    async (_name, command) => {
      const result = await runPython(['terminate', ...command], app, NPM_OFFLINE)
      expect(result.code, result.stderr).toBe(0)
      const report = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {
        status: string
        pids: number[]
        left: number[]
      }
      expect(report.status).toBe('ok')
      expect(report.pids.length).toBeGreaterThan(0)
      expect(report.left).toEqual([])
    },
  )

  it.each([
    ['node bin/sendbox.js', [process.execPath, BIN]],
    ['npx sendbox', NPX],
  ])(
    'started as %s: when the Python process is killed (SIGKILL), sendbox stops by itself',
    async (_name, command) => {
      const result = await runPython(['die', ...command], app, NPM_OFFLINE)
      expect(result.code).not.toBe(0)
      const { url, pids } = JSON.parse(result.stdout.trim().split('\n')[0]!) as {
        url: string
        pids: number[]
      }
      expect(pids.length).toBeGreaterThan(0)
      await expect.poll(() => pids.filter(alive), { timeout: 10_000, interval: 100 }).toEqual([])
      await expect(fetch(`${url}/_sandbox/api/health`)).rejects.toThrow()
    },
  )
})

describe('npx sendbox, stopped by its parent', { timeout: 60_000 }, () => {
  /** Starts `npx sendbox` (no --exit-with-parent) and returns npx's pid and the node server's. */
  async function startNpx() {
    const child = spawn(NPX[0]!, [...NPX.slice(1), '--port', '0', '--memory'], {
      cwd: app,
      env: childEnv(NPM_OFFLINE),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stderr.on('data', (d) => (output += d))
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        output += d
        const ready = /^sendbox ready (\S+)$/m.exec(output)
        if (ready) resolve(ready[1]!)
      })
      child.on('exit', () => reject(new Error(`npx sendbox exited before it was ready\n${output}`)))
    })
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
    return { child, url, exited }
  }

  it.skipIf(!existsSync('/proc/self/stat'))(
    'SIGTERM to npx stops the node server under it (npm passes it only to its sh -c)',
    async () => {
      const { child, url, exited } = await startNpx()
      const health = (await (await fetch(`${url}/_sandbox/api/health`)).json()) as {
        status: string
      }
      expect(health.status).toBe('ok')
      child.kill('SIGTERM')
      await exited
      // Nothing answers any more: the node process went too, not only npx.
      await expect
        .poll(
          () =>
            fetch(`${url}/_sandbox/api/health`).then(
              () => 'answering',
              () => 'gone',
            ),
          { timeout: 10_000, interval: 100 },
        )
        .toBe('gone')
    },
  )
})
