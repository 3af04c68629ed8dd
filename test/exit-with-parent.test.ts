import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BIN, childEnv, ROOT } from './helpers/cli.js'
import { tempDir } from './helpers/sandbox.js'

/**
 * --exit-with-parent: sendbox stops cleanly (log flushed, lock freed) when the process that
 * started it is gone, or when its stdin, a pipe, is closed.
 */

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const readyIn = async (file: string) =>
  /^sendbox ready (\S+)$/m.exec(await readFile(file, 'utf8').catch(() => ''))?.[1]

describe('--exit-with-parent', { timeout: 30_000 }, () => {
  it('stops, flushing the log and freeing its lock, when its parent dies', async () => {
    const dir = await tempDir('sendbox-parent-')
    dirs.push(dir)
    const db = join(dir, 'log.jsonl')
    const out = join(dir, 'out.txt')
    // A shell that starts sendbox and is then killed outright: sendbox is left to init.
    const parent = spawn(
      'sh',
      [
        '-c',
        `"$0" "$1" --port 0 --db "$2" --templates "$3" --exit-with-parent >"$4" 2>&1 & wait`,
        process.execPath,
        BIN,
        db,
        join(ROOT, 'templates'),
        out,
      ],
      { env: childEnv(), stdio: 'ignore' },
    )
    await expect.poll(() => readyIn(out), { timeout: 15_000, interval: 50 }).toBeDefined()
    const url = (await readyIn(out))!
    const sent = await fetch(`${url}/messages`, {
      method: 'POST',
      headers: { authorization: 'token sandbox_parent', 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'welcome',
        from: 'a@acme.test',
        to: 'ada@example.com',
        subject: 'Kept',
        templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test' },
      }),
    })
    const { id } = (await sent.json()) as { id: string }
    expect(existsSync(`${db}.lock`)).toBe(true)
    parent.kill('SIGKILL')
    await expect.poll(() => existsSync(`${db}.lock`), { timeout: 10_000, interval: 50 }).toBe(false)
    await expect(fetch(`${url}/_sandbox/api/health`)).rejects.toThrow()
    expect(await readFile(out, 'utf8')).toMatch(
      /sendbox: stopping, its parent process \(pid \d+\) is gone\./,
    )
    expect(await readFile(db, 'utf8')).toContain(id)
  })

  it('stops with exit 0 when its stdin (a pipe) is closed', async () => {
    const child = spawn(process.execPath, [BIN, '--port', '0', '--memory', '--exit-with-parent'], {
      env: childEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    )
    const url = await new Promise<string>((resolve) => {
      child.stdout.on('data', (d) => {
        stdout += d
        const ready = /^sendbox ready (\S+)$/m.exec(stdout)
        if (ready) resolve(ready[1]!)
      })
    })
    expect((await fetch(`${url}/_sandbox/api/health`)).status).toBe(200)
    child.stdin.end()
    expect(await exited).toBe(0)
    expect(stderr).toContain('sendbox: stopping, its stdin was closed.')
  })

  it('without it (and not under npm), a closed stdin is nothing special: sendbox runs on', async () => {
    const child = spawn(process.execPath, [BIN, '--port', '0', '--memory'], {
      env: childEnv({ npm_lifecycle_event: undefined, npm_command: undefined }),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    )
    const url = await new Promise<string>((resolve) => {
      child.stdout.on('data', (d) => {
        stdout += d
        const ready = /^sendbox ready (\S+)$/m.exec(stdout)
        if (ready) resolve(ready[1]!)
      })
    })
    child.stdin.end()
    // A wait that runs its full 300 ms after stdin ended: the server was there all along.
    expect((await fetch(`${url}/_sandbox/api/messages/wait?to=nobody&timeout=300`)).status).toBe(
      404,
    )
    expect((await fetch(`${url}/_sandbox/api/health`)).status).toBe(200)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('--help lists it with its variable', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { env: childEnv() })
    let stdout = ''
    child.stdout.on('data', (d) => (stdout += d))
    await new Promise((resolve) => child.on('close', resolve))
    expect(stdout).toMatch(/--exit-with-parent .*SENDBOX_EXIT_WITH_PARENT/)
  })
})
