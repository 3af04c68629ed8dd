import { spawn, type ChildProcess } from 'node:child_process'
import { cp, mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../../bin/sendbox.js', import.meta.url))
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * A project with sendbox installed as a user's is (linked into `node_modules`, its bin in
 * `node_modules/.bin`), so `npx sendbox` there runs this checkout at once. Run from this checkout
 * itself, npx installs the package into its own cache first (a package does not link its own
 * bin): ~27 s of CPU, over a minute on a loaded machine, which made the shell recipes time out.
 * With `templates`, the example templates and fixtures are copied in.
 */
export async function projectWithSendbox(dir: string, { templates = false } = {}): Promise<string> {
  await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true })
  await symlink(ROOT, join(dir, 'node_modules', 'sendbox'), 'dir')
  await symlink(
    join('..', 'sendbox', 'bin', 'sendbox.js'),
    join(dir, 'node_modules', '.bin', 'sendbox'),
  )
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true }))
  if (templates)
    for (const folder of ['templates', 'fixtures'])
      await cp(join(ROOT, folder), join(dir, folder), { recursive: true })
  return dir
}

/** Environment for a child sendbox: no browser, no inherited SENDBOX_* settings. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true', NO_COLOR: '1' }
  for (const key of Object.keys(env)) if (key.startsWith('SENDBOX_')) delete env[key]
  return { ...env, ...extra }
}

/** Runs the CLI to completion. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: childEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(
          `sendbox ${args.join(' ')} did not exit within ${options.timeout ?? 15000} ms\n${stdout}\n${stderr}`,
        ),
      )
    }, options.timeout ?? 15_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

export interface RunningCli {
  url: string
  child: ChildProcess
  output(): { stdout: string; stderr: string }
  /** Resolves with the exit once the process ends. */
  exited: Promise<CliResult>
  stop(signal?: NodeJS.Signals): Promise<CliResult>
}

/** Starts `sendbox` and resolves once it printed `sendbox ready <url>`. */
export function startCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<RunningCli> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  )
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`sendbox did not get ready within 15 s\n${stdout}\n${stderr}`))
    }, 15_000)
    child.stderr!.on('data', (d) => (stderr += d))
    child.stdout!.on('data', (d) => {
      stdout += d
      const ready = /^sendbox ready (\S+)$/m.exec(stdout)
      if (ready) {
        clearTimeout(timer)
        resolve({
          url: ready[1]!,
          child,
          output: () => ({ stdout, stderr }),
          exited,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal)
            return exited
          },
        })
      }
    })
    void exited.then((result) => {
      clearTimeout(timer)
      reject(
        new Error(`sendbox exited before it was ready (code ${result.code})\n${stdout}\n${stderr}`),
      )
    })
  })
}
