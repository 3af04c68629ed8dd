import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { openMessageLog } from '../../src/store/index.js'
import { BIN, childEnv, ROOT } from '../helpers/cli.js'
import { tempDir } from './helpers.js'

/**
 * A lock whose pid was reused (issue 31): a sendbox that was PID 1 in its own PID namespace (a
 * container's first process) is killed; its lock names pid 1, which on the host is always alive.
 * The next start must see that this pid 1 is not the process that took the lock (another start
 * time) and take the lock over, not refuse the log for good.
 */

// `unshare -p` needs CAP_SYS_ADMIN (root, or a user namespace): without it there is no such server to run.
const unshare = spawnSync('unshare', ['-pf', '--mount-proc', '--kill-child', 'true'])
const canUnshare = unshare.status === 0

describe('a stale lock whose pid is alive again', () => {
  it.skipIf(!canUnshare)(
    'a server run as PID 1 in its own PID namespace and killed: the next start takes its lock over',
    async () => {
      const dir = await tempDir()
      const file = path.join(dir, 'messages.jsonl')
      const child = spawn(
        'unshare',
        [
          '-pf',
          '--mount-proc',
          '--kill-child',
          process.execPath,
          BIN,
          'serve',
          '--db',
          file,
          '--port',
          '0',
          '--no-open',
          '--templates',
          path.join(ROOT, 'templates'),
        ],
        { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      )
      let output = ''
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes('sendbox ready')) resolve()
        })
        child.stderr.on('data', (chunk: Buffer) => {
          output += chunk.toString()
        })
        child.on('exit', () =>
          reject(new Error(`the server ended before it was ready:\n${output}`)),
        )
      })
      await ready
      const lock = JSON.parse(await readFile(`${file}.lock`, 'utf8')) as { pid: number }
      expect(lock.pid).toBe(1)
      // The server is unshare's child; the whole namespace dies with it (--kill-child).
      const server = (await readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8'))
        .trim()
        .split(' ')[0]
      child.kill('SIGKILL')
      await expect.poll(() => existsSync(`/proc/${server}`), { timeout: 10_000 }).toBe(false)
      expect(existsSync(`${file}.lock`)).toBe(true)

      const warn = vi.fn()
      const log = await openMessageLog({ file, warn })
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('stale lock left by sendbox pid 1'))
      await log.close()
    },
    60_000,
  )
})
