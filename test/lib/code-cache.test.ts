import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { codeCacheFile, requireWithCodeCache, writeCodeCache } from '../../src/lib/code-cache.js'
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
    if (cache) writeFileSync(codeCacheFile(file), cache)
    return file
  }

  /** The cache `writeCodeCache` keeps for `source` (after it ran). */
  function cacheFor(source: string): Buffer {
    const file = fileOf(source)
    writeCodeCache(file, requireWithCodeCache(file).script)
    return readFileSync(codeCacheFile(file))
  }

  it('runs a file without a cache as require does: its exports, __dirname and require', () => {
    const file = fileOf(version('aaa'))
    const loaded = requireWithCodeCache(file)
    expect(loaded.exports).toEqual({ answer: 'aaa', dirname: dir, sum: 1225, path: '/' })
    expect(loaded.exports).toEqual(createRequire(import.meta.url)(file))
    expect(loaded.cacheTaken).toBe(false)
  })

  it('takes the cache kept beside the file, and the file means the same', () => {
    const loaded = requireWithCodeCache(fileOf(version('aaa'), cacheFor(version('aaa'))))
    expect(loaded.cacheTaken).toBe(true)
    expect(loaded.exports).toEqual({ answer: 'aaa', dirname: dir, sum: 1225, path: '/' })
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

  it('runs the file when the cache is shorter than its digest', () => {
    const loaded = requireWithCodeCache(fileOf(version('aaa'), Buffer.from('short')))
    expect(loaded).toMatchObject({ exports: { answer: 'aaa' }, cacheTaken: false })
  })

  it('runs the file when V8 refuses a cache that is whole (made by another V8)', () => {
    const cache = cacheFor(version('aaa'))
    const data = cache.subarray(32)
    // V8's own header says another version made it; the digest is redone to match.
    data.fill(0, 0, 8)
    const digest = createHash('sha256').update(version('aaa')).update(data).digest()
    const loaded = requireWithCodeCache(fileOf(version('aaa'), Buffer.concat([digest, data])))
    expect(loaded).toMatchObject({ exports: { answer: 'aaa' }, cacheTaken: false })
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
