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

export async function watchFolders(options: WatchOptions): Promise<FolderWatcher> {
  const { onBatch, warn } = options
  const debounceMs = options.debounceMs ?? 25
  const pollMs = options.pollMs ?? 500
  const roots = [...new Set(options.folders.map((f) => path.resolve(f)))]
  const pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let closed = false

  const flush = () => {
    timer = undefined
    if (closed || pending.size === 0) return
    const paths = [...pending]
    pending.clear()
    try {
      onBatch(paths)
    } catch (err) {
      warn(`Template watcher: ${(err as Error).message}`)
    }
  }
  const push = (file: string) => {
    pending.add(file)
    if (timer) clearTimeout(timer)
    timer = setTimeout(flush, debounceMs)
  }

  let watcher: FSWatcher | undefined
  /** The roots watched by the current chokidar watcher, each held open. */
  let watched = new Map<string, HeldFolder>()
  const releaseAll = () => {
    for (const { fd } of watched.values()) release(fd)
    watched = new Map()
  }

  const start = async () => {
    await watcher?.close()
    releaseAll()
    for (const root of roots) {
      const held = holdFolder(root)
      if (held) watched.set(root, held)
    }
    const current = watch([...watched.keys()], {
      ignoreInitial: true,
      // The roots themselves may be hidden folders; only what is inside them is filtered.
      ignored: (file: string) => !roots.includes(path.resolve(file)) && isEditorArtifact(file),
      depth: 16,
    })
    watcher = current
    current.on('all', (event, file) => {
      if (closed || watcher !== current) return
      const absolute = path.resolve(file)
      push(absolute)
      if (event === 'unlinkDir' && roots.includes(absolute)) void restart(absolute)
    })
    current.on('error', (err) =>
      warn(`Template watcher: ${(err as Error)?.message ?? String(err)}`),
    )
    // chokidar never reports "ready" for an empty list of paths.
    if (watched.size > 0)
      await new Promise<void>((resolve) => current.once('ready', () => resolve()))
  }

  // Restarts run one after the other. A restart for a root that came or went reports that root
  // once the new watch is in place: a file written while it starts is part of its initial scan,
  // which is not reported (ignoreInitial), so only the rescan the report causes finds it.
  let restarting: Promise<void> = Promise.resolve()
  let restartsQueued = 0
  const restart = (root?: string) => {
    restartsQueued++
    restarting = restarting
      .then(() => (closed ? undefined : start()))
      .catch((err: unknown) => warn(`Template watcher: ${(err as Error).message}`))
      .then(() => {
        restartsQueued--
        if (root !== undefined) push(root)
      })
    return restarting
  }

  await restart()

  // Roots that come, go or are replaced (checked cheaply: one stat per folder).
  const poll = setInterval(() => {
    // A restart on its way looks again anyway; queueing one per tick would only repeat it.
    if (restartsQueued > 0) return
    for (const root of roots) {
      if (folderIdentity(root) !== watched.get(root)?.identity) {
        void restart(root)
        return
      }
    }
  }, pollMs)
  poll.unref()

  return {
    async close() {
      if (closed) return
      closed = true
      clearInterval(poll)
      if (timer) clearTimeout(timer)
      pending.clear()
      await restarting
      await watcher?.close()
      releaseAll()
    },
  }
}
