/**
 * `watchFolders`, with chokidar loaded at its first use: a server starts its watchers once its
 * port is open, so chokidar (and readdirp) are no part of what a start compiles before it
 * answers.
 */
import type { FolderWatcher, WatchOptions } from './watcher.js'

/**
 * Watches folders (see `./watcher.js`), loading the watcher the first time.
 *
 * @example
 * const watcher = await watchFolders({ folders: ['/app/templates'], onBatch: console.log, warn: console.warn })
 * await watcher.close()
 */
export async function watchFolders(options: WatchOptions): Promise<FolderWatcher> {
  const watcher = await import('./watcher.js')
  return watcher.watchFolders(options)
}
