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
  /**
   * Takes the lock anew unless the file still holds ours (it went with a removed folder): throws
   * `log_locked` when another sendbox took it meanwhile.
   */
  renew(): Promise<void>
}

interface Holder {
  pid: number
  startedAt?: string
  /** The holder's start time, field 22 of /proc/<pid>/stat (clock ticks since boot). */
  pidStart?: string
  /** /proc/sys/kernel/random/boot_id when the lock was taken. */
  boot?: string
}

/** Locks held by this process, path → token; the exit hook removes them if close() never ran. */
const held = new Map<string, string>()
let exitHookInstalled = false

/**
 * Takes `<file>.lock`, created exclusively. A lock whose process is gone (or whose content is
 * garbage) was left by a killed sendbox and is taken over with a warning; a live one refuses
 * with `log_locked`. Two opens in one process conflict too: the holder's pid is ours, alive.
 *
 * The takeover is atomic: two starts that both judged the same lock stale used to both remove it
 * and make their own, the second removing the first's (issue 20, defect 3). Now a start takes a
 * stale lock only while it holds `<file>.lock.takeover` (created exclusively), and only if the
 * lock still holds exactly what it judged stale; the other start finds the marker, looks again,
 * and meets a live lock. (proper-lockfile was weighed: it judges staleness by an mtime it keeps
 * fresh with a timer, where sendbox's lock names a pid, and its own stale removal has the same
 * check-then-remove window.)
 *
 * @example
 * const lock = await acquireLock('/repo/.sendbox/messages.jsonl', console.warn)
 * await lock.release()
 */
export async function acquireLock(
  file: string,
  warn: (message: string) => void,
  fs: LogFs = nodeFs,
): Promise<LogLock> {
  const lockPath = `${file}.lock`
  let token = await take(file, lockPath, warn, fs)
  held.set(lockPath, token)
  installExitHook()
  const ours = async () => (await fs.readFile(lockPath, 'utf8').catch(() => '')).includes(token)
  return {
    path: lockPath,
    async release() {
      if (held.get(lockPath) !== token) return
      held.delete(lockPath)
      // Only remove the file while it still holds our token: never someone else's lock.
      if (await ours()) await fs.unlink(lockPath).catch(() => {})
    },
    async renew() {
      if (held.get(lockPath) !== token || (await ours())) return
      held.delete(lockPath)
      token = await take(file, lockPath, warn, fs)
      held.set(lockPath, token)
    },
  }
}

/** Makes `<file>.lock` ours (creating it, or taking over a stale one); resolves with its token. */
async function take(
  file: string,
  lockPath: string,
  warn: (message: string) => void,
  fs: LogFs,
): Promise<string> {
  const token = randomBytes(8).toString('hex')
  const pidStart = processStart(process.pid)
  const boot = bootId()
  const body = `${JSON.stringify({
    pid: process.pid,
    startedAt: new Date().toISOString(),
    token,
    ...(pidStart ? { pidStart } : {}),
    ...(boot ? { boot } : {}),
  })}\n`
  for (let attempt = 0; ; attempt++) {
    if (await createLock(file, lockPath, body, fs)) return token
    const seen = await readHolder(lockPath, fs)
    if (seen === 'gone') continue // released between our attempt and the read: try again
    const { holder, text } = seen
    if (holder && holds(holder)) throw lockedError(file, lockPath, holder)
    if (attempt >= 3) {
      // Someone keeps re-creating it, or holds the takeover: another sendbox is racing us for this log.
      throw lockedError(file, lockPath, holder)
    }
    const took = await takeOver(file, lockPath, text, body, fs, () =>
      warn(
        holder
          ? `${lockPath}: taking over a stale lock left by sendbox pid ${holder.pid} (that process is gone${holder.pidStart || holder.boot ? ', or the pid is now another process' : ''}).`
          : `${lockPath}: taking over an unreadable lock file.`,
      ),
    )
    if (took) return token
    // Another start is taking it over, or took it: look again once it is done.
    await sleep(25 * (attempt + 1))
  }
}

/** Creates the lock file with its content; false when there is one already. */
async function createLock(
  file: string,
  lockPath: string,
  body: string,
  fs: LogFs,
): Promise<boolean> {
  try {
    await fs.writeFile(lockPath, body, { flag: 'wx', mode: 0o600 })
    return true
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false
    throw unreadable(file, 'lock', error)
  }
}

/**
 * Replaces the stale lock whose content is `staleText` with ours, while holding the takeover
 * marker. False when another start holds the marker, or the lock is no longer the one judged
 * stale (someone took it over, or released it and another made a fresh one).
 */
async function takeOver(
  file: string,
  lockPath: string,
  staleText: string,
  body: string,
  fs: LogFs,
  announce: () => void,
): Promise<boolean> {
  const marker = `${lockPath}.takeover`
  if (!(await createLock(file, marker, body, fs))) {
    const other = await readHolder(marker, fs)
    if (other === 'gone' || (other.holder && holds(other.holder))) return false
    // A start died in the middle of a takeover (a window of microseconds): say what to do.
    throw new LogOpenError(
      'log_locked',
      file,
      `The message log ${file} is locked: a sendbox stopped while taking over its lock, leaving ${marker}. If no sendbox is running, delete ${marker} and ${lockPath}.`,
    )
  }
  try {
    const now = await fs.readFile(lockPath, 'utf8').catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') return null
      throw unreadable(file, 'lock', error)
    })
    if (now !== staleText && now !== null) return false
    announce()
    if (now !== null)
      await fs.unlink(lockPath).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw unreadable(file, 'lock', error)
      })
    return await createLock(file, lockPath, body, fs)
  } finally {
    await fs.unlink(marker).catch(() => {})
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

/**
 * Whether the process that wrote a lock still runs. Its pid alone cannot say: a pid is reused
 * (a server that was PID 1 in its container leaves pid 1, which is always alive), so the lock
 * also names the boot it was taken in and the process's start time, and a holder whose boot is
 * over, or whose pid now belongs to a process started at another time, is gone. Where /proc is
 * not there (macOS, Windows), the pid is all there is.
 */
function holds(holder: Holder): boolean {
  const boot = bootId()
  if (holder.boot && boot && holder.boot !== boot) return false
  if (!isAlive(holder.pid)) return false
  if (!holder.pidStart) return true
  const start = processStart(holder.pid)
  return start === undefined || start === holder.pidStart
}

/**
 * Field 22 of /proc/<pid>/stat, the process's start time in clock ticks since boot; undefined
 * without /proc. The command name (field 2) may hold spaces and parentheses: fields are counted
 * after its closing one.
 */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

/** This boot's id (Linux); undefined elsewhere. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

/** The lock's holder; null when the content is unparseable, 'gone' when the file vanished. */
async function readHolder(
  lockPath: string,
  fs: LogFs,
): Promise<{ holder: Holder | null; text: string } | 'gone'> {
  // The creator writes its content just after the exclusive create, so an empty or partial
  // file may be a lock being born, not a stale one: look twice before calling it garbage.
  let text = ''
  for (let look = 0; look < 2; look++) {
    try {
      text = await fs.readFile(lockPath, 'utf8')
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return 'gone'
      throw error
    }
    const holder = parseHolder(text)
    if (holder) return { holder, text }
    if (look === 0) await sleep(50)
  }
  return { holder: null, text }
}

function parseHolder(text: string): Holder | null {
  try {
    const value = JSON.parse(text) as Record<string, unknown>
    if (!Number.isSafeInteger(value.pid) || (value.pid as number) <= 0) return null
    const field = (name: string) =>
      typeof value[name] === 'string' ? { [name]: value[name] as string } : {}
    return {
      pid: value.pid as number,
      ...field('startedAt'),
      ...field('pidStart'),
      ...field('boot'),
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
