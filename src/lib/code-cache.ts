/**
 * A CommonJS file loaded with V8's code cache of it: what the build keeps beside a file that a
 * first send loads (dist/sendbox-html-to-text.cjs, scripts/bundle.js). V8 then skips
 * compiling what the cache holds, the functions a conversion ran included: the converter loaded,
 * compiled and ran its first conversion in 17 ms where it took 26 (the first send of
 * `serve --memory`, 9 alternating starts). Node 22 has `module.enableCompileCache()` for this;
 * Node 20, which sendbox supports, has only `vm.Script`'s `cachedData`.
 *
 * A cache that this V8 does not take (another Node version, other flags) is ignored by V8, and
 * the file compiles as it would without one. But V8 knows a file only by its length, and checks
 * no checksum of the data (a cache with its header intact and the rest garbled crashed Node
 * 20.20 with a segmentation fault): so the cache starts with the SHA-256 of the file it was made
 * from followed by the data, and a cache that does not match it is never handed to V8 (about
 * 1 ms for the converter's 221 KB and its 233 KB cache). The cache can make a load faster, never
 * wrong.
 */
import { createHash } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import vm from 'node:vm'

/** A loaded file: its exports, the script (whose cache the build writes) and whether V8 took the cache. */
export interface CachedModule {
  exports: unknown
  script: vm.Script
  cacheTaken: boolean
}

/**
 * Where a file's code cache is kept: beside it.
 *
 * @example
 * codeCacheFile('/app/dist/sendbox-html-to-text.cjs') // '/app/dist/sendbox-html-to-text.cjs.v8cache'
 */
export function codeCacheFile(file: string): string {
  return `${file}.v8cache`
}

const HASH_BYTES = 32

/** What a cache starts with: the SHA-256 of the file's source, then of V8's data. */
const digestOf = (source: string, data: Buffer) =>
  createHash('sha256').update(source).update(data).digest()

/** The V8 data of `file`'s cache when it was made from `source`, whole; none when there is no such cache. */
function cacheOf(file: string, source: string): Buffer | undefined {
  let kept: Buffer
  try {
    kept = readFileSync(codeCacheFile(file))
  } catch {
    // No cache: the file compiles as `require` would compile it.
    return undefined
  }
  const data = kept.subarray(HASH_BYTES)
  return kept.subarray(0, HASH_BYTES).equals(digestOf(source, data)) ? data : undefined
}

/** The wrapper `require` puts around a file, so the code means the same. */
const wrap = (source: string) =>
  `(function (exports, require, module, __filename, __dirname) {${source}\n})`

/**
 * Runs the CommonJS file `file` (an absolute path) as `require` would, with its code cache when
 * there is one; each call runs the file again (the caller keeps the exports).
 *
 * @example
 * const { exports } = requireWithCodeCache('/app/dist/sendbox-html-to-text.cjs')
 */
export function requireWithCodeCache(file: string): CachedModule {
  const source = readFileSync(file, 'utf8')
  const cachedData = cacheOf(file, source)
  const script = new vm.Script(wrap(source), {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  })
  const module = { exports: {} as unknown }
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file))
  const cacheTaken = cachedData !== undefined && script.cachedDataRejected !== true
  return { exports: module.exports, script, cacheTaken }
}

/**
 * Keeps the code cache of `file` beside it, from `script` (what `requireWithCodeCache` returned,
 * after the code worth caching has run): written whole or not at all.
 *
 * @example
 * const { exports, script } = requireWithCodeCache(file)
 * exports.compile(options)('<p>Hello</p>')
 * writeCodeCache(file, script)
 */
export function writeCodeCache(file: string, script: vm.Script): void {
  const data = script.createCachedData()
  const kept = Buffer.concat([digestOf(readFileSync(file, 'utf8'), data), data])
  const partial = `${codeCacheFile(file)}.${process.pid}.partial`
  writeFileSync(partial, kept)
  renameSync(partial, codeCacheFile(file))
}
