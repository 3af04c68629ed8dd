import fs from 'node:fs'
import fsp from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { watchFolders } from '../../src/templates/watcher.js'
import { tempDir } from './helpers.js'

/**
 * The real chokidar, with a folder created in the window between its listing of the root and
 * its watch of it: the first snapshot accepted while the watch starts did that, and the snapshot
 * test that followed waited forever for a change written inside it. `readdir` is wrapped (and
 * the builtin's ESM exports synced, since chokidar's readdirp imports it by name) so the folder
 * is made just after the root's listing is read, before chokidar can watch the root.
 */
const { readdir } = fsp
afterEach(() => {
  fsp.readdir = readdir
  syncBuiltinESMExports()
})

it('watches a folder created between chokidar listing the root and watching it', async () => {
  const root = path.join(await tempDir(), 'snapshots')
  fs.mkdirSync(root)
  const late = path.join(root, 'receipt')
  let listed = 0
  fsp.readdir = (async (...args: Parameters<typeof readdir>) => {
    const entries = await readdir(...args)
    if (path.resolve(String(args[0])) === root && listed++ === 0) fs.mkdirSync(late)
    return entries
  }) as typeof readdir
  syncBuiltinESMExports()

  const reported: string[] = []
  let heard: (() => void) | undefined
  const watcher = await watchFolders({
    folders: [root],
    onBatch: (paths) => {
      reported.push(...paths)
      heard?.()
    },
    warn: () => {},
    debounceMs: 0,
    pollMs: 60_000,
  })
  try {
    expect(listed).toBeGreaterThan(0)
    expect(fs.existsSync(late)).toBe(true)
    // A file written in the late folder now is reported (without the fix: never, and the test
    // times out).
    const file = path.join(late, 'default.txt')
    const seen = new Promise<void>((resolve) => {
      heard = () => {
        if (reported.includes(file)) resolve()
      }
    })
    fs.writeFileSync(file, 'Order 0\n')
    await seen
  } finally {
    await watcher.close()
  }
}, 20_000)
