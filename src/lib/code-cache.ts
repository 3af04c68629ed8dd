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
 * 20.20 with a segmentation fault): so the cache starts with a digest of the file it was made
 * from followed by the data, and a cache that does not match it is never handed to V8. The cache
 * can make a load faster, never wrong.
 */
import { createHash } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import vm from 'node:vm'

/** A loaded file: its exports, the script (whose cache the build writes) and whether V8 took the cache. */
export interface CachedModule {
  exports: unknown
  script: vm.Script
  cacheTaken: boolean
}

/**
 * Where a file's code cache is kept: beside it, named for the V8 that made it, so another Node
 * neither reads nor hashes a cache its V8 would refuse (1.6 MB for the CLI's files).
 *
 * @example
 * codeCacheFile('/app/dist/sendbox-html-to-text.cjs')
 * // '/app/dist/sendbox-html-to-text.cjs.11.3.244.8-node.33.v8cache' on Node 20.20
 */
export function codeCacheFile(file: string): string {
  return `${file}.${process.versions.v8}.v8cache`
}

const HASH_BYTES = 20

/**
 * What a cache starts with: a SHA-1 of the file's bytes, then of V8's data. For integrity, not
 * secrecy (whoever can write a cache can write the code beside it): SHA-1 took 3.2 ms for the
 * 3.8 MB of bundles and caches in dist/ where SHA-256 took 5.8.
 */
const digestOf = (bytes: Buffer, data: Buffer) =>
  createHash('sha1').update(bytes).update(data).digest()

/** The V8 data of `file`'s cache when it was made from `source`, whole; none when there is no such cache. */
function cacheOf(file: string, bytes: Buffer): Buffer | undefined {
  let kept: Buffer
  try {
    kept = readFileSync(codeCacheFile(file))
  } catch {
    // No cache: the file compiles as `require` would compile it.
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
  return runWithCodeCache(file, { exports: {} }, createRequire(file))
}

/** Compiles `file` with its cache and runs it into `module`, its `require` calls going to `require`. */
function runWithCodeCache(
  file: string,
  module: { exports: unknown },
  require: (id: string) => unknown,
): CachedModule {
  const bytes = readFileSync(file)
  const cachedData = cacheOf(file, bytes)
  const script = new vm.Script(wrap(bytes.toString('utf8')), {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  })
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run.call(module.exports, module.exports, require, module, file, dirname(file))
  const cacheTaken = cachedData !== undefined && script.cachedDataRejected !== true
  return { exports: module.exports, script, cacheTaken }
}

/** The bundles' own files, as they require each other (`require("./sendbox-lib.cjs")`). */
const OWN_FILE = /^\.\/sendbox[^/\\]*\.cjs$/

/** A set of files loaded together with their code caches: `serve` and what it loads. */
export interface CodeCacheLoader {
  /** `require` of `file` (absolute), and of the bundles it requires, each with its cache, each once. */
  require(file: string): unknown
  /** Each file loaded so far, and whether V8 took its cache. */
  loaded(): Array<{ file: string; cacheTaken: boolean }>
  /** Keeps the cache of each file loaded so far beside it (after the code worth caching ran). */
  writeCaches(): void
}

/**
 * A loader of the CommonJS bundles (dist/sendbox-*.cjs) with their code caches: each of them
 * that one requires is loaded by this loader too, once; anything else (Node's modules, packages)
 * by Node's own `require`. Their `import()`s of packages (`nodemailer`, `open`, …) go through
 * `require.sendboxImport`, which scripts/bundle.js has them call: V8 runs a `vm.Script`'s own
 * `import()` only with a flag or an experimental option that warns on the console.
 *
 * @example
 * const { main } = createCodeCacheLoader().require('/app/dist/sendbox-cli.cjs')
 */
export function createCodeCacheLoader(): CodeCacheLoader {
  const modules = new Map<string, { module: { exports: unknown }; run?: CachedModule }>()
  const load = (file: string): unknown => {
    const known = modules.get(file)
    if (known) return known.module.exports
    const nodeRequire = createRequire(file)
    // In the map before it runs: a file that requires it back meanwhile gets what it has so far.
    // In Node's `require.cache` too, where adding a module is documented: a `require` of the file
    // by Node gets this one, never a second copy, and what lists the modules loaded sees it.
    const module = { id: file, filename: file, loaded: false, exports: {}, children: [], paths: [] }
    const entry: { module: { exports: unknown }; run?: CachedModule } = { module }
    modules.set(file, entry)
    nodeRequire.cache[file] = module as unknown as NodeJS.Module
    const require = Object.assign(
      (id: string) => (OWN_FILE.test(id) ? load(join(dirname(file), id)) : nodeRequire(id)),
      {
        resolve: nodeRequire.resolve,
        sendboxImport: (specifier: string) => import(specifier),
        sendboxLater: <T>(load: () => T) =>
          new Promise<void>((resolve) => setImmediate(resolve)).then(load),
      },
    )
    entry.run = runWithCodeCache(file, module, require)
    module.loaded = true
    return module.exports
  }
  return {
    require: load,
    loaded: () =>
      [...modules].map(([file, { run }]) => ({ file, cacheTaken: run?.cacheTaken ?? false })),
    writeCaches() {
      for (const [file, { run }] of modules) if (run) writeCodeCache(file, run.script)
    },
  }
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
  const kept = Buffer.concat([digestOf(readFileSync(file), data), data])
  const partial = `${codeCacheFile(file)}.${process.pid}.partial`
  writeFileSync(partial, kept)
  renameSync(partial, codeCacheFile(file))
}
