/**
 * CommonJS files run with V8's code cache of each, kept beside it by the build: the CLI's
 * bundles (bin/sendbox.js runs them through `createCodeCacheLoader`) and the text converter
 * (dist/sendbox-html-to-text.cjs, which every text part's first use loads). V8 then skips
 * compiling what a cache holds, the functions the build's run of `serve` ran included
 * (scripts/code-cache-run.js): the first send of `serve --memory` answered 2.21x a bare
 * `node:http` server's first answer where it took 2.69x (docs/performance.md). Node 22 has
 * `module.enableCompileCache()`; Node 20, which sendbox supports, only `vm.Script`'s `cachedData`,
 * for a script, never for an ES module.
 *
 * V8 refuses a cache made by another V8 version or under other V8 flags (`--max-old-space-size`,
 * `--expose-gc`, …): a cache is named for both (`v8Stamp`), so such a process neither reads nor
 * hashes one, and compiles the files itself. V8 knows a file by its length only, and checks no
 * checksum of the data (a cache with its header intact and the rest garbled crashed Node 20.20
 * with a segmentation fault): so a cache starts with a digest of the file it was made from and
 * of the data, and one that does not match is never handed to V8. A cache can make a load
 * faster, never wrong.
 */
import { createHash } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import vm from 'node:vm'

/** A file run: its exports, the script and the bytes it was compiled from (what the build's cache is made of), whether V8 took the cache. */
export interface CachedModule {
  exports: unknown
  script: vm.Script
  bytes: Buffer
  cacheTaken: boolean
}

/**
 * What V8 compares a cache with, besides the file: its version and the hash of its flags, the
 * 5th-8th and 13th-16th bytes of the header of any cache it makes (here of an empty script, 0.04
 * ms once the first `vm.Script` was made). Should V8 lay its header out otherwise, this is still
 * one stamp per V8 and flags, only a finer one.
 *
 * @example
 * v8Stamp() // '0bc2e40053214650'
 */
export function v8Stamp(): string {
  const header = new vm.Script('').createCachedData()
  return Buffer.concat([header.subarray(4, 8), header.subarray(12, 16)]).toString('hex')
}

/**
 * Where a file's code cache is kept: beside it, named for the V8 and the flags of the process
 * that made it.
 *
 * @example
 * codeCacheFile('/app/dist/sendbox-cli.cjs', v8Stamp())
 * // '/app/dist/sendbox-cli.cjs.0bc2e40053214650.v8cache'
 */
export function codeCacheFile(file: string, stamp: string): string {
  return `${file}.${stamp}.v8cache`
}

const HASH_BYTES = 20

/**
 * What a cache starts with: a SHA-1 of the file's bytes, then of V8's data. For integrity, not
 * secrecy (whoever can write a cache can write the code beside it): SHA-1 took 3.2 ms for the
 * 3.8 MB of bundles and caches in dist/ where SHA-256 took 5.8.
 */
const digestOf = (bytes: Buffer, data: Buffer) =>
  createHash('sha1').update(bytes).update(data).digest()

/** The V8 data of `file`'s cache when it was made from `bytes`, whole; none when there is no such cache. */
function cacheOf(file: string, bytes: Buffer, stamp: string): Buffer | undefined {
  let kept: Buffer
  try {
    kept = readFileSync(codeCacheFile(file, stamp))
  } catch {
    // No cache for this V8 and its flags: the file compiles as `require` would compile it.
    return undefined
  }
  const data = kept.subarray(HASH_BYTES)
  return kept.subarray(0, HASH_BYTES).equals(digestOf(bytes, data)) ? data : undefined
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
  return runWithCodeCache(file, { exports: {} }, createRequire(file), v8Stamp())
}

/** Compiles `file` with its cache and runs it into `module`, its `require` calls going to `require`. */
function runWithCodeCache(
  file: string,
  module: { exports: unknown },
  require: (id: string) => unknown,
  stamp: string,
): CachedModule {
  const bytes = readFileSync(file)
  const cachedData = cacheOf(file, bytes, stamp)
  const script = new vm.Script(wrap(bytes.toString('utf8')), {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  })
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run.call(module.exports, module.exports, require, module, file, dirname(file))
  const cacheTaken = cachedData !== undefined && script.cachedDataRejected !== true
  return { exports: module.exports, script, bytes, cacheTaken }
}

/** The bundles' own files, as they require each other (`require("./sendbox-lib.cjs")`). */
const OWN_FILE = /^\.\/sendbox[^/\\]*\.cjs$/

/** A set of files loaded together with their code caches: the CLI and what it loads. */
export interface CodeCacheLoader {
  /** `require` of `file` (absolute), and of the bundles it requires, each with its cache, each once. */
  require(file: string): unknown
  /** Each file this loader ran, and whether V8 took its cache. */
  loaded(): Array<{ file: string; cacheTaken: boolean }>
  /** Keeps the cache of each file this loader ran beside it (after the code worth caching ran). */
  writeCaches(): void
}

/**
 * A loader of the CommonJS bundles (dist/sendbox-*.cjs) with their code caches: each of them
 * that one requires is loaded by this loader too, once; anything else (Node's modules, packages)
 * by Node's own `require`. Each is in Node's `require.cache` (where adding a module is
 * documented): a `require` of it by Node gets the same copy, as does a second loader. Two
 * things scripts/bundle.js has the bundles call, on the `require` given to them:
 * - `require.sendboxImport` for their `import()`s of packages (`nodemailer`, `open`, …): V8 runs
 *   a `vm.Script`'s own `import()` only with a flag, or an experimental option that warns;
 * - `require.sendboxLater` for their loads of each other, a turn of the event loop later: a
 *   `require` runs at once where an ES module's `import()` reads its file first, and the start's
 *   loads one after another (the app, the templates, the watcher) held the first health answer.
 *
 * `stamp`: this process's `v8Stamp()`, which a caller that looked for a cache already has.
 *
 * @example
 * const { main } = createCodeCacheLoader().require('/app/dist/sendbox-cli.cjs')
 */
export function createCodeCacheLoader(stamp = v8Stamp()): CodeCacheLoader {
  // Each file this loader runs, with what its run gave once it has run.
  const ran = new Map<string, CachedModule | undefined>()
  const load = (file: string): unknown => {
    const nodeRequire = createRequire(file)
    const known = nodeRequire.cache[file]
    if (known) return known.exports
    // In the cache before it runs: a file that requires it back meanwhile gets what it has so far.
    const module = { id: file, filename: file, loaded: false, exports: {}, children: [], paths: [] }
    ran.set(file, undefined)
    nodeRequire.cache[file] = module as unknown as NodeJS.Module
    const require = Object.assign(
      (id: string) => (OWN_FILE.test(id) ? load(join(dirname(file), id)) : nodeRequire(id)),
      {
        resolve: nodeRequire.resolve,
        cache: nodeRequire.cache,
        sendboxImport: (specifier: string) => import(specifier),
        sendboxLater: <T>(load: () => T) =>
          new Promise<void>((resolve) => setImmediate(resolve)).then(load),
      },
    )
    try {
      ran.set(file, runWithCodeCache(file, module, require, stamp))
    } catch (error) {
      // As Node does: a file that threw is no module, and the next require runs it again.
      ran.delete(file)
      delete nodeRequire.cache[file]
      throw error
    }
    module.loaded = true
    return module.exports
  }
  return {
    require: load,
    loaded: () => [...ran].map(([file, run]) => ({ file, cacheTaken: run?.cacheTaken ?? false })),
    writeCaches() {
      for (const [file, run] of ran) if (run) writeCodeCache(file, run)
    },
  }
}

/**
 * Keeps the code cache of `file` beside it, from what `requireWithCodeCache` (or a loader) ran,
 * after the code worth caching ran: named for this process's V8 and flags, its digest of the
 * bytes the script was compiled from (the file may have changed since), written whole or not at all.
 *
 * @example
 * const ran = requireWithCodeCache(file)
 * ran.exports.compile(options)('<p>Hello</p>')
 * writeCodeCache(file, ran)
 */
export function writeCodeCache(file: string, ran: Pick<CachedModule, 'script' | 'bytes'>): void {
  const data = ran.script.createCachedData()
  const cache = codeCacheFile(file, v8Stamp())
  const partial = `${cache}.${process.pid}.partial`
  writeFileSync(partial, Buffer.concat([digestOf(ran.bytes, data), data]))
  renameSync(partial, cache)
}
