/**
 * Watch folders with chokidar and hand over changed paths in small batches.
 *
 * - No `awaitWriteFinish`: it delays every event by its stability threshold. Editors write a
 *   file in one go or save atomically (temp file + rename), and chokidar's `atomic` handling
 *   (on by default) turns a delete+re-create into a change. A short debounce groups the events
 *   of one save (and of a rename: unlink + add) into one batch.
 * - Editor droppings (`x~`, `.x.swp`, vim's `4913` probe, emacs `.#x`/`#x#`, hidden files) are
 *   ignored.
 * - chokidar does not notice a folder created after the watch started, nor one deleted and
 *   created again (it keeps the handle of the old one, and says nothing when the folder is back
 *   before it looks). So each folder's identity is polled for (see `holdFolder`), and when one
 *   appears, disappears or is replaced by another, the chokidar watcher is started afresh.
 * - chokidar lists a folder before it watches it, so a folder created in between (the first
 *   snapshot accepted while the watch starts) is in no listing and never watched: nothing
 *   written in it would be reported. After each start, the folders on disk are compared with
 *   the watched ones, and a start that missed one is made again (see `unwatchedFolders`).
 */
import fs from 'node:fs'
import path from 'node:path'
import { watch, type FSWatcher } from 'chokidar'
import { isEditorArtifact } from './editor-files.js'

export { isEditorArtifact }

export interface FolderWatcher {
  close(): Promise<void>
}

export interface WatchOptions {
  /** Absolute folders. */
  folders: string[]
  /** Called with the absolute paths that changed (a folder that came or went counts as one). */
  onBatch: (paths: string[]) => void
  warn: (message: string) => void
  debounceMs?: number
  pollMs?: number
}

/** A watched folder: what tells it from another at the same path, and the handle that keeps it so. */
interface HeldFolder {
  identity: string
  fd: number | undefined
}

/**
 * Opens a folder and holds it while it is watched, or undefined when there is none. Its identity
 * is `dev:ino`. That alone would not do (Linux hands a deleted folder's inode number to the next
 * one created) but for the handle: an inode still open is not reused, so a folder deleted and
 * created again has a new identity. (Birth times would tell them apart too, but without statx
 * libuv reports the change time there, which moves on every save.) Where folders cannot be
 * opened, the identity comes from stat and nothing is held.
 */
function holdFolder(dir: string): HeldFolder | undefined {
  let fd: number | undefined
  try {
    fd = fs.openSync(dir, 'r')
  } catch {
    fd = undefined
  }
  const identity = identityOf(() => (fd === undefined ? fs.statSync(dir) : fs.fstatSync(fd)))
  if (identity !== undefined) return { identity, fd }
  release(fd)
  return undefined
}

/** `dev:ino` of what `stat` finds, or undefined when it is not a folder (or not there). */
function identityOf(stat: () => fs.Stats): string | undefined {
  try {
    const stats = stat()
    return stats.isDirectory() ? `${stats.dev}:${stats.ino}` : undefined
  } catch {
    return undefined
  }
}

const folderIdentity = (dir: string): string | undefined => identityOf(() => fs.statSync(dir))

function release(fd: number | undefined): void {
  if (fd === undefined) return
  try {
    fs.closeSync(fd)
  } catch {
    // already closed
  }
}

/**
 * Watches folders; see the top of this file.
 *
 * @example
 * const watcher = await watchFolders({ folders: ['/app/templates'], onBatch: console.log, warn: console.warn })
 * await watcher.close()
 */
export async function watchFolders(options: WatchOptions): Promise<FolderWatcher> {
  const pollMs = options.pollMs ?? 500
  const roots = [...new Set(options.folders.map((f) => path.resolve(f)))]
  const batches = createChangeBatches(options.onBatch, options.warn, options.debounceMs ?? 25)
  const w: Watching = {
    roots,
    warn: options.warn,
    batches,
    closed: false,
    watched: new Map(),
    missedStarts: 0,
  }
  const restarts = createRestarts(w)
  await restarts.restart()
  // A start that missed a folder queued another: the watch is whole once that one is in place.
  while (restarts.queued() > 0) await restarts.settled()

  // Roots that come, go or are replaced (checked cheaply: one stat per folder).
  const poll = setInterval(() => {
    // A restart on its way looks again anyway; queueing one per tick would only repeat it.
    if (restarts.queued() > 0) return
    for (const root of roots) {
      if (folderIdentity(root) !== w.watched.get(root)?.identity) {
        void restarts.restart([root])
        return
      }
    }
  }, pollMs)
  poll.unref()

  return {
    async close() {
      if (w.closed) return
      w.closed = true
      clearInterval(poll)
      batches.cancel()
      await restarts.settled()
      await w.watcher?.close()
      releaseAll(w)
    },
  }
}

/** What the parts of one `watchFolders` share. */
interface Watching {
  roots: string[]
  warn: (message: string) => void
  batches: ReturnType<typeof createChangeBatches>
  closed: boolean
  watcher?: FSWatcher
  /** The roots watched by the current chokidar watcher, each held open. */
  watched: Map<string, HeldFolder>
  /** Starts made again in a row because the one before missed a folder (bounded: see `startChokidar`). */
  missedStarts: number
}

/** Changed paths gathered for `debounceMs` after the last one, then handed over at once. */
function createChangeBatches(
  onBatch: (paths: string[]) => void,
  warn: (message: string) => void,
  debounceMs: number,
) {
  const pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    timer = undefined
    if (pending.size === 0) return
    const paths = [...pending]
    pending.clear()
    try {
      onBatch(paths)
    } catch (err) {
      warn(`Template watcher: ${(err as Error).message}`)
    }
  }
  return {
    push(file: string) {
      pending.add(file)
      if (timer) clearTimeout(timer)
      timer = setTimeout(flush, debounceMs)
    },
    cancel() {
      if (timer) clearTimeout(timer)
      pending.clear()
    },
  }
}

function releaseAll(w: Watching): void {
  for (const { fd } of w.watched.values()) release(fd)
  w.watched = new Map()
}

/**
 * Restarts run one after the other. A restart for a folder that came or went reports that
 * folder once the new watch is in place: a file written while it starts is part of its initial
 * scan, which is not reported (ignoreInitial), so only the rescan the report causes finds it.
 */
function createRestarts(w: Watching) {
  let restarting: Promise<void> = Promise.resolve()
  let queued = 0
  const restart = (report: readonly string[] = []): Promise<void> => {
    queued++
    restarting = restarting
      .then(() => (w.closed ? undefined : startChokidar(w, restart)))
      .catch((err: unknown) => w.warn(`Template watcher: ${(err as Error).message}`))
      .then(() => {
        queued--
        if (!w.closed) for (const folder of report) w.batches.push(folder)
      })
    return restarting
  }
  return { restart, queued: () => queued, settled: () => restarting }
}

/** A chokidar watcher on the roots there now (each held open), in place of the last one. */
async function startChokidar(w: Watching, restart: (report: readonly string[]) => Promise<void>) {
  await w.watcher?.close()
  releaseAll(w)
  const { roots } = w
  for (const root of roots) {
    const held = holdFolder(root)
    if (held) w.watched.set(root, held)
  }
  const current = watch([...w.watched.keys()], {
    ignoreInitial: true,
    // The roots themselves may be hidden folders; only what is inside them is filtered.
    ignored: (file: string) => !roots.includes(path.resolve(file)) && isEditorArtifact(file),
    depth: 16,
  })
  w.watcher = current
  current.on('all', (event, file) => {
    if (w.closed || w.watcher !== current) return
    const absolute = path.resolve(file)
    w.batches.push(absolute)
    if (event === 'unlinkDir' && roots.includes(absolute)) void restart([absolute])
  })
  current.on('error', (err) =>
    w.warn(`Template watcher: ${(err as Error)?.message ?? String(err)}`),
  )
  // chokidar never reports "ready" for an empty list of paths.
  if (w.watched.size === 0) return
  await new Promise<void>((resolve) => current.once('ready', () => resolve()))
  if (w.closed || w.watcher !== current) return
  const missed = unwatchedFolders([...w.watched.keys()], current.getWatched())
  // Each start lists afresh, so a folder missed once is found by the next; the bound only
  // keeps a folder chokidar cannot watch at all from starting it again forever.
  w.missedStarts = missed.length > 0 ? w.missedStarts + 1 : 0
  if (missed.length === 0) return
  if (w.missedStarts <= MAX_MISSED_STARTS) void restart(missed)
  else w.warn(`Template watcher: cannot watch ${missed.join(', ')}`)
}

const MAX_MISSED_STARTS = 3
/** chokidar's `depth` above: folders deeper than this are not watched. */
const WATCH_DEPTH = 16

/**
 * The folders on disk under `roots` that chokidar has no entry for (`getWatched()` has one for
 * each folder it listed, empty ones included): those created between a folder's listing and
 * its watch. One `readdir` per folder, only once a start is ready.
 *
 * @example
 * unwatchedFolders(['/app/snapshots'], watcher.getWatched()) // ['/app/snapshots/receipt']
 */
function unwatchedFolders(roots: readonly string[], watched: Record<string, string[]>): string[] {
  const missed: string[] = []
  const visit = (dir: string, depth: number) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return // gone or unreadable: chokidar says so itself
    }
    for (const entry of entries) {
      const folder = path.join(dir, entry.name)
      if (!entry.isDirectory() || isEditorArtifact(folder)) continue
      if (!Object.hasOwn(watched, folder)) missed.push(folder)
      else if (depth < WATCH_DEPTH) visit(folder, depth + 1)
    }
  }
  for (const root of roots) visit(root, 1)
  return missed
}
