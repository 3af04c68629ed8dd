import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { isLogOpenError, openMessageLog, type LogOpenError } from '../../src/store/index.js'
import { acquireLock } from '../../src/store/lock.js'
import { nodeFs } from '../../src/store/log-fs.js'
import { makeRecord, tempDir } from './helpers.js'

const children: ReturnType<typeof spawn>[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''])
  await once(child, 'exit')
  return child.pid!
}

function livePid(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
  children.push(child)
  return child.pid!
}

async function rejection(promise: Promise<unknown>): Promise<LogOpenError> {
  const error = await promise.then(
    () => expect.fail('expected a LogOpenError'),
    (e: unknown) => e,
  )
  expect(isLogOpenError(error)).toBe(true)
  return error as LogOpenError
}

describe('the lock', () => {
  it('writes <file>.lock with our pid and a start time, and removes it at close', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const log = await openMessageLog({ file })
    const lock = JSON.parse(await readFile(`${file}.lock`, 'utf8')) as {
      pid: number
      startedAt: string
    }
    expect(lock.pid).toBe(process.pid)
    expect(Number.isNaN(Date.parse(lock.startedAt))).toBe(false)
    await log.close()
    expect(await readdir(path.dirname(file))).toEqual(['messages.jsonl'])
  })

  it('refuses a second open of the same file in the same process, until the first closes', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const first = await openMessageLog({ file })
    await first.append(makeRecord({ id: 'a' }))
    const error = await rejection(openMessageLog({ file }))
    expect(error.code).toBe('log_locked')
    expect(error.message).toContain(file)
    expect(error.message).toContain(`pid ${process.pid}`)
    expect(await readFile(`${file}.lock`, 'utf8')).toContain(String(process.pid)) // still the first's
    await first.close()
    const second = await openMessageLog({ file })
    expect(second.get('a')).toBeDefined()
    await second.close()
  })

  it('refuses a log locked by another live process, saying how to proceed', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const pid = livePid()
    const lock = `${JSON.stringify({ pid, startedAt: '2026-11-21T10:00:00.000Z', token: 'other' })}\n`
    await writeFile(`${file}.lock`, lock)
    const error = await rejection(openMessageLog({ file }))
    expect(error.code).toBe('log_locked')
    expect(error.message).toContain(`another sendbox (pid ${pid}`)
    expect(error.message).toMatch(/--db/)
    expect(error.message).toMatch(/--memory/)
    expect(await readFile(`${file}.lock`, 'utf8')).toBe(lock)
    expect(await readdir(path.dirname(file))).toEqual(['messages.jsonl.lock']) // no log file created
  })

  it('takes over the lock of a process that is gone, with a warning', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const pid = await deadPid()
    await writeFile(
      `${file}.lock`,
      JSON.stringify({ pid, startedAt: '2026-11-21T10:00:00.000Z', token: 'dead' }),
    )
    const warn = vi.fn()
    const log = await openMessageLog({ file, warn })
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining(`stale lock left by sendbox pid ${pid}`),
    )
    expect(await readFile(`${file}.lock`, 'utf8')).toContain(String(process.pid))
    await log.close()
  })

  it('takes over an unparseable lock file', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    await writeFile(`${file}.lock`, 'garbage')
    const warn = vi.fn()
    const log = await openMessageLog({ file, warn })
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('unreadable lock'))
    await log.close()
  })

  it('does not remove a lock that is no longer ours', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const log = await openMessageLog({ file })
    const theirs = JSON.stringify({
      pid: 1,
      startedAt: '2026-11-21T10:00:00.000Z',
      token: 'theirs',
    })
    await writeFile(`${file}.lock`, theirs)
    await log.close()
    expect(await readFile(`${file}.lock`, 'utf8')).toBe(theirs)
  })

  it('releases the lock when the file turns out not to be a log', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    await writeFile(file, 'not a log\n')
    await rejection(openMessageLog({ file }))
    expect(await readdir(path.dirname(file))).toEqual(['messages.jsonl'])
  })

  it('two starts that both judged one lock stale: exactly one takes it over', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const lockPath = `${file}.lock`
    const stale = JSON.stringify({ pid: await deadPid(), startedAt: '2026-11-21T10:00:00.000Z' })
    await writeFile(lockPath, stale)
    // B is held just before it removes the stale lock, until A has finished: the window in which
    // a takeover that is not atomic lets B remove the lock A just made, and both proceed.
    let aSettled!: () => void
    const aDone = new Promise<void>((resolve) => {
      aSettled = resolve
    })
    let bAtUnlink!: () => void
    const bPaused = new Promise<void>((resolve) => {
      bAtUnlink = resolve
    })
    const bFs = {
      ...nodeFs,
      async unlink(target: string) {
        if (target === lockPath) {
          bAtUnlink()
          await aDone
        }
        return nodeFs.unlink(target)
      },
    }
    const b = acquireLock(file, () => {}, bFs)
    await bPaused
    const a = acquireLock(file, () => {}).finally(aSettled)
    const results = await Promise.allSettled([a, b])
    const won = results.filter((r) => r.status === 'fulfilled')
    expect(won).toHaveLength(1)
    const lost = results.find((r) => r.status === 'rejected')!
    expect((lost.reason as LogOpenError).code).toBe('log_locked')
    const winner = won[0]!.value
    const token = (JSON.parse(await readFile(lockPath, 'utf8')) as { token: string }).token
    expect(token).toMatch(/^[0-9a-f]{16}$/)
    await winner.release()
    expect(await readdir(path.dirname(file))).toEqual([]) // no marker or temp file left behind
  })

  describe('is taken on the real path: another spelling of a held log is refused', () => {
    async function held() {
      const root = await tempDir()
      const file = path.join(root, 'a', 'messages.jsonl')
      const log = await openMessageLog({ file })
      await log.append(makeRecord({ id: 'kept' }))
      return { root, file, log }
    }

    it('a symlink to the log file', async () => {
      const { root, file, log } = await held()
      await mkdir(path.join(root, 'b'))
      await symlink(file, path.join(root, 'b', 'link.jsonl'))
      const error = await rejection(openMessageLog({ file: path.join(root, 'b', 'link.jsonl') }))
      expect(error.code).toBe('log_locked')
      expect(error.message).toContain(file) // names the real file
      await log.close()
    })

    it('a path through a symlinked folder, and a dotted one', async () => {
      const { root, file, log } = await held()
      // q/link → a/inner, so q/link/../messages.jsonl is a/messages.jsonl to the OS.
      await mkdir(path.join(root, 'a', 'inner'))
      await mkdir(path.join(root, 'q'))
      await symlink(path.join(root, 'a', 'inner'), path.join(root, 'q', 'link'))
      const through = `${path.join(root, 'q', 'link')}/../messages.jsonl`
      expect((await rejection(openMessageLog({ file: through }))).code).toBe('log_locked')
      const dotted = `${root}/a/../a/./messages.jsonl`
      expect((await rejection(openMessageLog({ file: dotted }))).code).toBe('log_locked')
      expect(await readdir(path.join(root, 'q'))).toEqual(['link']) // no second log made there
      await log.close()
      const reopened = await openMessageLog({ file: through })
      expect(reopened.file).toBe(file)
      expect(reopened.get('kept')).toBeDefined()
      await reopened.close()
    })
  })
})
