import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  codeCacheFile,
  createCodeCacheLoader,
  requireWithCodeCache,
  v8Stamp,
  writeCodeCache,
} from '../../src/lib/code-cache.js'
import { PLAIN_TEXT_OPTIONS } from '../../src/templates/plain-text.js'
import { tempDir } from '../helpers/sandbox.js'

// Big enough for V8 to keep a cache of it; two versions of the same length (V8 itself compares lengths only).
const version = (answer: string) =>
  `const parts = []\nfor (let i = 0; i < 50; i++) parts.push(i)\nmodule.exports = { answer: '${answer}', dirname: __dirname, sum: parts.reduce((a, b) => a + b, 0), path: require('node:path').sep }\n`

describe('requireWithCodeCache', () => {
  let dir: string
  let loads = 0
  beforeEach(async () => {
    dir = await tempDir('sendbox-code-cache-')
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  /**
   * `source` as a file of a name never loaded before, with `cache` beside it: V8 keeps what this
   * process compiled by source and name, and a second load of a name would be answered from there.
   */
  function fileOf(source: string, cache?: Buffer): string {
    const file = join(dir, `module-${++loads}.cjs`)
    writeFileSync(file, source)
    if (cache) writeFileSync(codeCacheFile(file, v8Stamp()), cache)
    return file
  }

  /** The cache `writeCodeCache` keeps for `source` (after it ran). */
  function cacheFor(source: string): Buffer {
    const file = fileOf(source)
    writeCodeCache(file, requireWithCodeCache(file))
    return readFileSync(codeCacheFile(file, v8Stamp()))
  }

  it('runs a file without a cache as require does: its exports, __dirname and require', () => {
    const file = fileOf(version('aaa'))
    const loaded = requireWithCodeCache(file)
    expect(loaded.exports).toEqual({ answer: 'aaa', dirname: dir, sum: 1225, path: sep })
    expect(loaded.exports).toEqual(createRequire(import.meta.url)(file))
    expect(loaded.cacheTaken).toBe(false)
  })

  it('takes the cache kept beside the file, and the file means the same', () => {
    const loaded = requireWithCodeCache(fileOf(version('aaa'), cacheFor(version('aaa'))))
    expect(loaded.cacheTaken).toBe(true)
    expect(loaded.exports).toEqual({ answer: 'aaa', dirname: dir, sum: 1225, path: sep })
  })

  it('never hands V8 the cache of another file of the same length: the file runs as it is now', () => {
    const loaded = requireWithCodeCache(fileOf(version('bbb'), cacheFor(version('aaa'))))
    expect(loaded.exports).toMatchObject({ answer: 'bbb' })
    expect(loaded.cacheTaken).toBe(false)
  })

  it('never hands V8 a damaged cache (V8 checks none, and crashed on one): the file runs', () => {
    const cache = cacheFor(version('aaa'))
    cache.fill(7, cache.length - 64)
    const loaded = requireWithCodeCache(fileOf(version('aaa'), cache))
    expect(loaded.exports).toMatchObject({ answer: 'aaa' })
    expect(loaded.cacheTaken).toBe(false)
  })

  it('runs the file when V8 refuses a cache that is whole (made by another V8)', () => {
    const cache = cacheFor(version('aaa'))
    const data = cache.subarray(20)
    // V8's own header says another version made it; the digest is redone to match.
    data.fill(0, 0, 8)
    const digest = createHash('sha1').update(version('aaa')).update(data).digest()
    const loaded = requireWithCodeCache(fileOf(version('aaa'), Buffer.concat([digest, data])))
    expect(loaded).toMatchObject({ exports: { answer: 'aaa' }, cacheTaken: false })
  })
})

describe('createCodeCacheLoader', () => {
  let dir: string
  beforeEach(async () => {
    dir = await tempDir('sendbox-code-cache-tree-')
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  /** Three bundles as rolldown writes them: an entry, a chunk both use, one that requires the entry back. */
  function bundles(folder: string): string {
    mkdirSync(folder, { recursive: true })
    const files: Record<string, string> = {
      'sendbox-entry.cjs': `const shared = require("./sendbox-shared.cjs")\nconst back = require("./sendbox-back.cjs")\nexports.shared = shared\nexports.back = back\nexports.path = require("node:path").sep\nexports.later = (load) => require.sendboxLater(load)\nexports.load = (specifier) => require.sendboxImport(specifier)\n`,
      'sendbox-shared.cjs': `exports.count = (globalThis.sharedRuns = (globalThis.sharedRuns ?? 0) + 1)\n`,
      'sendbox-back.cjs': `const entry = require("./sendbox-entry.cjs")\nexports.sawEntryShared = "shared" in entry\nexports.shared = require("./sendbox-shared.cjs")\n`,
    }
    for (const [name, source] of Object.entries(files)) writeFileSync(join(folder, name), source)
    return join(folder, 'sendbox-entry.cjs')
  }

  it("loads an entry and the bundles it requires, each once, and is Node's own copy of each", () => {
    const entry = bundles(join(dir, 'a'))
    const exports = createCodeCacheLoader().require(entry) as Record<string, any>
    expect(exports.shared).toBe(exports.back.shared)
    expect(exports.path).toBe(sep)
    // Required back while the entry ran: what it had so far, as Node's require gives.
    expect(exports.back.sawEntryShared).toBe(false)
    expect(createRequire(import.meta.url)(entry)).toBe(exports)
    expect(createRequire(import.meta.url)(join(dir, 'a', 'sendbox-shared.cjs'))).toBe(
      exports.shared,
    )
  })

  it('forgets a file that threw as it ran, as Node does: the next require runs it again', () => {
    const file = join(dir, 'sendbox-fails.cjs')
    writeFileSync(
      file,
      'if (!globalThis.sendboxMayRun) throw new Error("not yet")\nexports.ran = true\n',
    )
    const loader = createCodeCacheLoader()
    expect(() => loader.require(file)).toThrow('not yet')
    expect(createRequire(import.meta.url).cache[file]).toBeUndefined()
    ;(globalThis as { sendboxMayRun?: boolean }).sendboxMayRun = true
    try {
      expect(loader.require(file)).toEqual({ ran: true })
    } finally {
      delete (globalThis as { sendboxMayRun?: boolean }).sendboxMayRun
    }
  })

  it('takes the caches it wrote, for every file', () => {
    const first = createCodeCacheLoader()
    first.require(bundles(join(dir, 'a')))
    expect(first.loaded().map((l) => l.cacheTaken)).toEqual([false, false, false])
    first.writeCaches()
    // The same files and caches under another folder: new names, which V8 has not compiled here.
    const again = join(dir, 'b')
    bundles(again)
    for (const name of ['sendbox-entry.cjs', 'sendbox-shared.cjs', 'sendbox-back.cjs'])
      copyFileSync(
        codeCacheFile(join(dir, 'a', name), v8Stamp()),
        codeCacheFile(join(again, name), v8Stamp()),
      )
    const second = createCodeCacheLoader()
    second.require(join(again, 'sendbox-entry.cjs'))
    expect(second.loaded()).toEqual([
      { file: join(again, 'sendbox-entry.cjs'), cacheTaken: true },
      { file: join(again, 'sendbox-shared.cjs'), cacheTaken: true },
      { file: join(again, 'sendbox-back.cjs'), cacheTaken: true },
    ])
  })

  it("runs a bundle's later load a turn of the event loop later, after what was queued first", async () => {
    const exports = createCodeCacheLoader().require(bundles(join(dir, 'a'))) as Record<string, any>
    const order: string[] = []
    setImmediate(() => order.push('queued first'))
    await exports.later(() => order.push('load'))
    expect(order).toEqual(['queued first', 'load'])
  })

  it("imports a package for a bundle (V8 runs no import() of a vm script's own)", async () => {
    const exports = createCodeCacheLoader().require(bundles(join(dir, 'a'))) as Record<string, any>
    expect((await exports.load('node:path')).sep).toBe(sep)
  })
})

// The build keeps the text converter's cache beside the bundle of it (scripts/bundle.js).
const CONVERTER = fileURLToPath(new URL('../../dist/sendbox-html-to-text.cjs', import.meta.url))

describe('the built text converter (test/global-setup.ts builds it)', () => {
  it('loads with the cache the build kept, and converts as the package does', () => {
    const loaded = requireWithCodeCache(CONVERTER)
    expect(loaded.cacheTaken).toBe(true)
    const sample = readFileSync(
      new URL('../../scripts/text-converter-sample.html', import.meta.url),
      'utf8',
    )
    const bundled = (loaded.exports as typeof import('html-to-text')).compile(PLAIN_TEXT_OPTIONS)
    const published = (
      createRequire(import.meta.url)('html-to-text') as typeof import('html-to-text')
    ).compile(PLAIN_TEXT_OPTIONS)
    expect(bundled(sample)).toBe(published(sample))
    expect(bundled(sample)).toContain('Thanks, Ada!')
  })
})

describe('the built CLI (test/global-setup.ts builds it)', () => {
  const DIST = fileURLToPath(new URL('../../dist/', import.meta.url))
  /**
   * In a process of its own (V8 would answer a second load in this one from what it compiled),
   * with `flags`: the CLI's entry and every bundle the build kept a cache of, through one loader.
   */
  function loadAll(flags: string[] = []): Array<{ file: string; cacheTaken: boolean }> {
    const script = `
      const { readdirSync } = require('node:fs')
      const { createCodeCacheLoader } = require(${JSON.stringify(join(DIST, 'sendbox-code-cache.cjs'))})
      const loader = createCodeCacheLoader()
      const dist = ${JSON.stringify(DIST)}
      const cached = readdirSync(dist).filter((n) => /^sendbox.*\\.cjs\\..*\\.v8cache$/.test(n) && !n.startsWith('sendbox-html-to-text'))
      for (const name of ['sendbox-cli.cjs', ...cached.map((n) => n.replace(/\\.cjs\\..*$/, '.cjs'))]) loader.require(dist + name)
      console.log(JSON.stringify(loader.loaded()))`
    return JSON.parse(
      execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }),
    )
  }

  it('loads with the caches the build kept: every file of the CLI it kept one of, serve’s too', () => {
    const loaded = loadAll()
    // The CLI, the library, the app, its health app, Liquid's and yaml's, the watcher, …
    expect(loaded.length).toBeGreaterThan(10)
    expect(loaded.filter((l) => !l.cacheTaken)).toEqual([])
  })

  it('under other V8 flags, finds no cache to read (V8 would refuse them) and runs every file', () => {
    const flags = ['--max-old-space-size=300']
    const stamp = execFileSync(
      process.execPath,
      [
        ...flags,
        '-e',
        `console.log(require(${JSON.stringify(join(DIST, 'sendbox-code-cache.cjs'))}).v8Stamp())`,
      ],
      { encoding: 'utf8' },
    ).trim()
    expect(stamp).not.toBe(v8Stamp())
    expect(readdirSync(DIST).filter((name) => name.includes(stamp))).toEqual([])
    const loaded = loadAll(flags)
    expect(loaded.length).toBeGreaterThan(10)
    expect(loaded.filter((l) => l.cacheTaken)).toEqual([])
  })
})
