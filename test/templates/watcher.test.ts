import { EventEmitter } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { tempDir } from './helpers.js'

/**
 * chokidar replaced by watchers the test drives, to order events as a loaded machine can: the
 * events of a deleted folder arriving late, and a file written while the new watch scans.
 */
const fakes: FakeWatcher[] = []
class FakeWatcher extends EventEmitter {
  constructor(readonly paths: string[]) {
    super()
  }
  close = vi.fn(async () => {})
  /** Nothing under the roots these tests make is a folder, so none can be missed. */
  getWatched = () => ({})
  ready(): void {
    this.emit('ready')
  }
}
vi.mock('chokidar', () => ({
  watch: (paths: string[]) => {
    const fake = new FakeWatcher(paths)
    fakes.push(fake)
    return fake
  },
}))
const { watchFolders } = await import('../../src/templates/watcher.js')

afterEach(() => {
  fakes.length = 0
})

/** Waits for `predicate` to hold, checking on each turn of the event loop. */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setImmediate(resolve))
}

/** Watches `root` through a fake chokidar, once its first watch is ready; `batches` collects what it reports. */
async function startWatching(root: string, pollMs: number) {
  const batches: string[][] = []
  const starting = watchFolders({
    folders: [root],
    onBatch: (paths) => batches.push(paths),
    warn: () => {},
    debounceMs: 0,
    pollMs,
  })
  await until(() => fakes.length === 1)
  fakes[0]!.ready()
  return { watcher: await starting, batches }
}

it('reports the folder once a restarted watch is ready, so files written during its scan are found', async () => {
  const root = path.join(await tempDir(), 'templates')
  fs.mkdirSync(root)
  const { watcher, batches } = await startWatching(root, 60_000)
  try {
    // The folder was deleted and created again; chokidar says so late, when it is already back.
    fakes[0]!.emit('all', 'unlinkDir', root)
    await until(() => fakes.length === 2 && batches.length === 1)
    expect(batches[0]).toEqual([root])
    expect(fakes[1]!.paths).toEqual([root])
    // A file written after that batch was handled, while the new watch is still scanning: its
    // initial scan is not reported (ignoreInitial), so only a report after "ready" finds it.
    fs.writeFileSync(path.join(root, 'b.liquid'), 'b')
    fakes[1]!.ready()
    await until(() => batches.length === 2)
    expect(batches[1]).toEqual([root])
  } finally {
    await watcher.close()
  }
})

it('starts afresh when the folder is deleted and created again between two polls, though chokidar said nothing', async () => {
  const root = path.join(await tempDir(), 'templates')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'a.liquid'), 'a')
  const { watcher, batches } = await startWatching(root, 10)
  try {
    // Linux gives the new folder the old one's inode number; the poll still tells them apart.
    fs.rmSync(root, { recursive: true })
    fs.mkdirSync(root)
    fs.writeFileSync(path.join(root, 'b.liquid'), 'b')
    await until(() => fakes.length === 2)
    expect(fakes[0]!.close).toHaveBeenCalled()
    expect(fakes[1]!.paths).toEqual([root])
    fakes[1]!.ready()
    await until(() => batches.length === 1)
    expect(batches[0]).toEqual([root])
  } finally {
    await watcher.close()
  }
})

it('does not start afresh when a save changes the folder, even where birth times follow the change time (no statx)', async () => {
  const root = path.join(await tempDir(), 'templates')
  fs.mkdirSync(root)
  // What libuv reports without statx: a "birth time" that moves with every change in the folder.
  let tick = 0
  const unstable = (stats: fs.Stats) =>
    Object.defineProperty(stats, 'birthtimeMs', { value: ++tick })
  const realStat = fs.statSync.bind(fs)
  const realFstat = fs.fstatSync.bind(fs)
  const stat = vi
    .spyOn(fs, 'statSync')
    .mockImplementation(((file: fs.PathLike) => unstable(realStat(file))) as typeof fs.statSync)
  const fstat = vi
    .spyOn(fs, 'fstatSync')
    .mockImplementation(((fd: number) => unstable(realFstat(fd))) as typeof fs.fstatSync)
  const { watcher } = await startWatching(root, 5)
  try {
    const polls = stat.mock.calls.length
    fs.writeFileSync(path.join(root, 'a.liquid'), 'a')
    await until(() => stat.mock.calls.length >= polls + 5)
    expect(fakes).toHaveLength(1)
  } finally {
    await watcher.close()
    stat.mockRestore()
    fstat.mockRestore()
  }
})
