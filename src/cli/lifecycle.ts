import { fstatSync, readFileSync } from 'node:fs'

/**
 * Stopping with the process that started sendbox, for test runners in other languages: a
 * Python suite that starts `npx sendbox` and dies (or is killed) must not leave a server holding
 * the port and the log's lock.
 *
 * - The parent: its pid is noted at start and checked every 250 ms; once it is gone (this
 *   process was re-parented, or the pid no longer exists) sendbox stops. Node has no
 *   parent-death signal, and `process.ppid` is read once at start, so the check reads
 *   /proc/self/stat on Linux and falls back to `process.kill(pid, 0)` elsewhere.
 * - stdin: when it is a pipe or a socket (never a terminal, a file or /dev/null), its end means
 *   the other side closed it — the parent died, or asked sendbox to stop by closing it.
 *
 * Under npm (`npx sendbox`, `npm start`) the parent is npm's `sh -c`, which npm kills on SIGTERM
 * without passing the signal on: the node process would be left running, adopted by pid 1. So
 * the parent check is on there by default; the stdin check only when asked for.
 */

export interface ParentWatchOptions {
  /** Watch the parent process (default true). */
  parent?: boolean
  /** Stop when stdin, a pipe, ends (default false). */
  stdin?: boolean
  pollMs?: number
}

/** The current parent pid: live on Linux (/proc), else null (unknown). */
function currentParentPid(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    return Number.isInteger(ppid) ? ppid : null
  } catch {
    return null
  }
}

/** Whether the process `pid`, this one's parent at start, still is. */
export function parentAlive(pid: number): boolean {
  const live = currentParentPid()
  if (live !== null) return live === pid
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function stdinIsPipe(): boolean {
  try {
    const stat = fstatSync(0)
    return stat.isFIFO() || stat.isSocket()
  } catch {
    return false
  }
}

/**
 * Calls `onGone` once, with the reason, when the parent is gone or stdin (a pipe) ends. Returns
 * a function that stops watching.
 *
 * @example
 * const stop = watchParent((reason) => shutdown(reason), { stdin: true })
 */
export function watchParent(
  onGone: (reason: string) => void,
  options: ParentWatchOptions = {},
): () => void {
  const { parent = true, stdin = false, pollMs = 250 } = options
  let done = false
  const cleanups: Array<() => void> = []
  const stop = () => {
    done = true
    for (const cleanup of cleanups.splice(0)) cleanup()
  }
  const gone = (reason: string) => {
    if (done) return
    stop()
    onGone(reason)
  }
  if (parent) {
    const pid = process.ppid
    // pid 1 (or 0): started by init or a container's entry point, nothing to outlive.
    if (pid > 1) {
      const timer = setInterval(() => {
        if (!parentAlive(pid)) gone(`its parent process (pid ${pid}) is gone`)
      }, pollMs)
      timer.unref()
      cleanups.push(() => clearInterval(timer))
    }
  }
  if (stdin && stdinIsPipe()) {
    const onEnd = () => gone('its stdin was closed')
    process.stdin.on('end', onEnd)
    process.stdin.on('error', onEnd)
    // Read (and drop) whatever comes, so that the end is seen.
    process.stdin.on('data', () => {})
    process.stdin.resume()
    cleanups.push(() => {
      process.stdin.off('end', onEnd)
      process.stdin.off('error', onEnd)
      process.stdin.pause()
      process.stdin.unref?.()
    })
  }
  return stop
}

/** Whether this process was started by npm (`npx`, `npm start`, `npm test`, …). */
export function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.npm_lifecycle_event || env.npm_command)
}
