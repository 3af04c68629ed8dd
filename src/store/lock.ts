import { randomBytes } from 'node:crypto'
import { readFileSync, unlinkSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { LogOpenError, errnoCode, unreadable } from './errors.js'
import { type LogFs, nodeFs } from './log-fs.js'

/** A held `<file>.lock`. */
export interface LogLock {
  readonly path: string
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): Promise<void>
}

interface Holder {
  pid: number
  startedAt?: string
}

/** Locks held by this process, path → token; the exit hook removes them if close() never ran. */
const held = new Map<string, string>()
let exitHookInstalled = false

/**
 * Takes `<file>.lock`, created exclusively. A lock whose process is gone (or whose content is
 * garbage) was left by a killed sendbox and is taken over with a warning; a live one refuses
 * with `log_locked`. Two opens in one process conflict too: the holder's pid is ours, alive.
 */
export async function acquireLock(
  file: string,
  warn: (message: string) => void,
  fs: LogFs = nodeFs,
): Promise<LogLock> {
  const lockPath = `${file}.lock`
  const token = randomBytes(8).toString('hex')
  const body = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), token })}\n`

  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(lockPath, body, { flag: 'wx', mode: 0o600 })
      break
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw unreadable(file, 'lock', error)
    }
    const holder = await readHolder(lockPath, fs)
    if (holder === 'gone') continue // released between our attempt and the read: try again
    if (holder && isAlive(holder.pid)) throw lockedError(file, lockPath, holder)
    if (attempt >= 3) {
      // Someone keeps re-creating it: another sendbox is racing us for this log.
      throw lockedError(file, lockPath, holder)
    }
    warn(
      holder
        ? `${lockPath}: taking over a stale lock left by sendbox pid ${holder.pid} (that process is gone).`
        : `${lockPath}: taking over an unreadable lock file.`,
    )
    await fs.unlink(lockPath).catch((error: unknown) => {
      if (errnoCode(error) !== 'ENOENT') throw unreadable(file, 'lock', error)
    })
  }

  held.set(lockPath, token)
  installExitHook()
  return {
    path: lockPath,
    async release() {
      if (held.get(lockPath) !== token) return
      held.delete(lockPath)
      // Only remove the file while it still holds our token: never someone else's lock.
      const content = await fs.readFile(lockPath, 'utf8').catch(() => '')
      if (content.includes(token)) await fs.unlink(lockPath).catch(() => {})
    },
  }
}

/** Whether a process with this pid exists. EPERM means it exists but belongs to someone else. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errnoCode(error) !== 'ESRCH'
  }
}

/** The lock's holder; null when the content is unparseable, 'gone' when the file vanished. */
async function readHolder(lockPath: string, fs: LogFs): Promise<Holder | null | 'gone'> {
  // The creator writes its content just after the exclusive create, so an empty or partial
  // file may be a lock being born, not a stale one: look twice before calling it garbage.
  for (let look = 0; look < 2; look++) {
    let text: string
    try {
      text = await fs.readFile(lockPath, 'utf8')
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return 'gone'
      throw error
    }
    const holder = parseHolder(text)
    if (holder) return holder
    if (look === 0) await sleep(50)
  }
  return null
}

function parseHolder(text: string): Holder | null {
  try {
    const value = JSON.parse(text) as { pid?: unknown; startedAt?: unknown }
    if (!Number.isSafeInteger(value.pid) || (value.pid as number) <= 0) return null
    return {
      pid: value.pid as number,
      ...(typeof value.startedAt === 'string' ? { startedAt: value.startedAt } : {}),
    }
  } catch {
    return null
  }
}

function lockedError(file: string, lockPath: string, holder: Holder | null): LogOpenError {
  const who =
    holder?.pid === process.pid
      ? `this process (pid ${holder.pid}) already has it open`
      : holder
        ? `another sendbox (pid ${holder.pid}${holder.startedAt ? `, started ${holder.startedAt}` : ''}) is using it`
        : 'another sendbox is using it'
  return new LogOpenError(
    'log_locked',
    file,
    `The message log ${file} is locked: ${who}. Stop that sendbox, or give this one its own log with --db <file> or --memory. ` +
      `If no sendbox is running, delete ${lockPath}.`,
  )
}

/** Best effort for a process that exits without close(): synchronous, as 'exit' handlers must be. */
function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const [lockPath, token] of held) {
      try {
        if (readFileSync(lockPath, 'utf8').includes(token)) unlinkSync(lockPath)
      } catch {
        // Nothing more can be done while exiting; the next start treats it as stale.
      }
    }
  })
}
