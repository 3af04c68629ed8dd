// Bundles what `tsc` wrote into dist/ into a few files: dist/sendbox.js (the library, what
// `import 'sendbox'` loads) and dist/sendbox-cli.cjs (what bin/sendbox.js runs), with shared and
// lazily loaded parts in dist/sendbox-*.js and *.cjs chunks.
//
// Why: Node's ESM loader pays per file (resolve, stat, read, CJS lexing), and the server's graph
// is ~300 files, yaml alone 46. One file halves the server's import time (≈190 → ≈75 ms), most
// of what `serve` takes to be ready.
//
// The bundles sit in dist/ itself, one level below the package root like dist/version.js, so
// module-relative URLs (PACKAGE_ROOT) mean the same in both. Kept out: packages loaded lazily
// with `require` (they stay lazy; html-to-text is bundled alone, below), `open` (it finds its own xdg-open script next to itself), and
// the MCP SDK, which only `sendbox mcp` loads (it brings its own zod from node_modules), so the
// tarball stays small.
//
// The library's entries are bundled a second time as CommonJS (dist/sendbox.cjs,
// dist/sendbox-vitest.cjs, dist/sendbox-playwright.cjs and their sendbox-*.cjs chunks), for
// package.json's `require` conditions: a project made by `npm init -y` is CommonJS, and
// Playwright Test loads its specs there with `require`. The CLI is in both builds: bin/ runs
// the CommonJS one, each file with the V8 code cache kept beside it (`keepCodeCaches`, below;
// V8 takes a code cache for a script it compiles, never for an ES module, in Node 20), and the
// ES modules where there is no cache this V8 takes.
//
// Usage: node scripts/bundle.js [dist folder, default dist]
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { execFileSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { build } from 'rolldown'

// Loaded from node_modules, not bundled: vitest and @playwright/test are the user's own
// (optional peer dependencies of the fixtures); the rest load lazily, for one command or flag
// (the MCP server; webhooks; releases; --https), and bundled they would more than double the tarball
// (undici alone was a 972 KB chunk, the tarball 1.23 MB against a 1 MiB limit).
const EXTERNAL = [
  'html-to-text',
  'email-addresses',
  'open',
  '@modelcontextprotocol/sdk',
  'vitest',
  '@playwright/test',
  'undici',
  // --relay alone, and only at the first release.
  'nodemailer',
  'listhen',
  'node-forge',
  // sendbox check --visual alone: playwright-core is the user's (an optional peer dependency),
  // pngjs and pixelmatch load with it.
  'playwright-core',
  'pngjs',
  'pixelmatch',
]

/**
 * doiuse-email carries the caniemail data as an 850 KB object literal, which V8 must parse and
 * compile in full (~35 ms, the bulk of the email checks' first use). The same data as a JSON
 * string is scanned as one literal and read by JSON.parse, several times faster. Only applied
 * when the data survives the round trip; otherwise the module is left as it is, with a warning.
 */
const caniemailAsJson = {
  name: 'caniemail-as-json',
  transform(code, id) {
    if (!/\/@jsx-email\/doiuse-email\/dist\/index\.mjs$/.test(id)) return null
    const head = 'var can_i_email_default = '
    const start = code.indexOf(`${head}{`)
    const end = code.indexOf('\n};\n', start)
    if (start < 0 || end < 0) {
      this.warn('caniemail data not found in doiuse-email; left as an object literal')
      return null
    }
    const data = new Function(`return (${code.slice(start + head.length, end + 2)})`)()
    const json = JSON.stringify(data)
    if (!isDeepStrictEqual(JSON.parse(json), data)) {
      this.warn('caniemail data does not survive JSON; left as an object literal')
      return null
    }
    return {
      code: `${code.slice(0, start)}${head}JSON.parse(${JSON.stringify(json)});${code.slice(end + 3)}`,
      map: null,
    }
  },
}

/**
 * consola's fancy reporter measures text with string-width, whose module builds an
 * `Intl.Segmenter` as it is evaluated: ICU's break data loaded, ~7 ms of CPU of every start
 * (`node --cpu-prof`, `serve --memory`), for a reporter that measures only what it prints in a
 * terminal. Built at its first use instead. Only applied where the line is found as it was
 * written; otherwise the module is left as it is, with a warning.
 */
const lazySegmenter = {
  name: 'lazy-segmenter',
  transform(code, id) {
    if (!/\/consola\/dist\/index\.mjs$/.test(id)) return null
    const eager =
      "const segmenter = globalThis.Intl?.Segmenter ? new Intl.Segmenter() : { segment: (str) => str.split('') };"
    if (!code.includes(eager)) {
      this.warn('the Intl.Segmenter of string-width not found in consola; left as it is')
      return null
    }
    const lazy = [
      'let madeSegmenter;',
      'const segmenter = { segment: (str) => (madeSegmenter ??= globalThis.Intl?.Segmenter',
      "  ? new Intl.Segmenter() : { segment: (s) => s.split('') }).segment(str) };",
    ].join('\n')
    return { code: code.replace(eager, lazy), map: null }
  },
}

/**
 * html-to-text loads with `require` (synchronously: a render is), once, right after a server's
 * first answer and before its first send's text part: as published that is ~40 CommonJS files
 * (htmlparser2, domutils, entities, selderee, parseley, …), each resolved, read, wrapped and
 * compiled by Node's loader, 54-79 ms of CPU on a loaded 2-core machine; one file of the same
 * code, 25-34 ms. So it is bundled alone, as CommonJS, into dist/sendbox-html-to-text.cjs, which
 * the text converter (src/templates/plain-text.ts) loads when it finds it beside itself, with the
 * code cache `keepTextConverterCache` keeps beside it; the modules tsc wrote, which the tests import,
 * load the package as published.
 */
const TEXT_CONVERTER = 'sendbox-html-to-text.cjs'

/**
 * Keeps dist/sendbox-html-to-text.cjs's V8 code cache beside it (src/lib/code-cache.ts), made
 * after one conversion of an email (scripts/text-converter-sample.html) with the server's options,
 * so it holds the functions a first send runs too. From the modules tsc wrote (a dist/ without
 * them, as some tests build, keeps no cache).
 * @param {string} dir
 */
async function keepTextConverterCache(dir) {
  const lib = join(dir, 'lib/code-cache.js')
  const text = join(dir, 'templates/plain-text.js')
  if (!existsSync(lib) || !existsSync(text)) return
  const { requireWithCodeCache, writeCodeCache } = await import(pathToFileURL(lib).href)
  const { PLAIN_TEXT_OPTIONS } = await import(pathToFileURL(text).href)
  const file = join(dir, TEXT_CONVERTER)
  const ran = requireWithCodeCache(file)
  const sample = readFileSync(new URL('text-converter-sample.html', import.meta.url), 'utf8')
  ran.exports.compile(PLAIN_TEXT_OPTIONS)(sample)
  writeCodeCache(file, ran)
}

/**
 * The build of html-to-text alone into one CommonJS file (above), from its ES modules and theirs,
 * with entities' decoders beside it (scripts/text-converter.js): unused exports dropped, 221 KB
 * where its CommonJS files make 418 KB.
 */
function textConverterOptions(dir, staging) {
  const input = fileURLToPath(new URL('text-converter.js', import.meta.url))
  return aloneOptions(dir, staging, TEXT_CONVERTER, input)
}

/** One file of CommonJS, `name`, built from `input` and what it imports (Node's modules aside). */
function aloneOptions(dir, staging, name, input) {
  return {
    input: { [name.replace(/\.cjs$/, '')]: input },
    cwd: dir,
    platform: 'node',
    external: (id) => id.startsWith('node:'),
    logLevel: 'warn',
    output: { dir: staging, format: 'cjs', entryFileNames: '[name].cjs' },
  }
}

/**
 * The loader bin/sendbox.js runs the CLI with (src/lib/code-cache.ts), alone in its file: in the
 * bundles' shared code, Node's `require` would load that code once more beside the loader's copy.
 */
const CODE_CACHE_LOADER = 'sendbox-code-cache.cjs'

/**
 * Keeps the V8 code cache of each CommonJS bundle the CLI loads beside it: a run of the CLI
 * through the loader (scripts/code-cache-run.js: `serve`, its health, a send and a read of each
 * example template), then each file's cache written. The caches of an earlier build go first, so
 * a run that fails (it warns) leaves none to read: it costs the caches, never the build. The run
 * has none of the builder's SENDBOX_* variables (a --webhook of theirs would be posted to).
 * @param {string} dir
 */
function keepCodeCaches(dir) {
  if (!existsSync(join(dir, CODE_CACHE_LOADER)) || !existsSync(join(dir, 'sendbox-cli.cjs'))) return
  for (const name of readdirSync(dir))
    if (name.endsWith('.v8cache') && !name.startsWith(TEXT_CONVERTER)) rmSync(join(dir, name))
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SENDBOX_')),
  )
  try {
    execFileSync(
      process.execPath,
      [fileURLToPath(new URL('code-cache-run.js', import.meta.url)), dir],
      { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000, killSignal: 'SIGKILL' },
    )
  } catch (error) {
    console.warn(
      `The code caches were not kept (the CLI compiles its files): ${error.stderr ?? error}`,
    )
  }
}

/**
 * @param {string} dist the folder tsc wrote to; the bundles go next to what they are built from
 * @example await bundle('dist')
 */
export async function bundle(dist) {
  const dir = resolve(dist)
  // Written next to dist/ first, then each file renamed into place (chunks before the entries
  // that import them), so a process starting meanwhile (a test, an editor's `npm start`) never
  // finds a bundle missing or half written.
  const staging = mkdtempSync(join(dir, '.bundle-'))
  try {
    // sendbox/vitest and sendbox/playwright (a dist/ without them, as some tests build, still bundles).
    const runners = Object.fromEntries(
      ['vitest', 'playwright']
        .filter((name) => existsSync(join(dir, `${name}.js`)))
        .map((name) => [`sendbox-${name}`, join(dir, `${name}.js`)]),
    )
    const library = { sendbox: join(dir, 'index.js'), ...runners }
    // The text parts' worker thread (src/templates/text-parts.ts) starts from a file of its own
    // (a dist/ without it, as some tests build, still bundles).
    const workerFile = join(dir, 'templates/text-worker.js')
    const worker = existsSync(workerFile) ? { 'sendbox-text-worker': workerFile } : {}
    await build(
      options(
        dir,
        staging,
        { ...library, 'sendbox-cli': join(dir, 'cli/index.js'), ...worker },
        'esm',
      ),
    )
    // The CLI too: bin/sendbox.js runs it from here, with the code caches kept beside the files
    // (below), when there are caches this V8 takes (else from its ES modules).
    const cli = { 'sendbox-cli': join(dir, 'cli/index.js') }
    await build(options(dir, staging, { ...library, ...cli }, 'cjs'))
    await build(textConverterOptions(dir, staging))
    // (A dist/ without it, as some tests build, has no loader: bin/sendbox.js needs the real one.)
    const loader = join(dir, 'lib/code-cache.js')
    if (existsSync(loader)) await build(aloneOptions(dir, staging, CODE_CACHE_LOADER, loader))
    const written = readdirSync(staging)
    const entries = new Set(
      Object.keys({ ...library, 'sendbox-cli': '', ...worker }).flatMap((name) => [
        `${name}.js`,
        `${name}.cjs`,
      ]),
    )
    for (const name of [
      ...written.filter((n) => !entries.has(n)),
      ...written.filter((n) => entries.has(n)),
    ])
      renameSync(join(staging, name), join(dir, name))
    // Chunks from an earlier build that this one did not write again.
    // And code caches of them (src/lib/code-cache.ts), or half written.
    for (const name of readdirSync(dir)) {
      const cache = /^(.+?\.c?js)\..*v8cache(\.\d+\.partial)?$/.exec(name)
      const stale = cache
        ? !written.includes(cache[1]) || cache[2] !== undefined
        : /^sendbox(-.*)?\.c?js$/.test(name) && !written.includes(name)
      if (stale) rmSync(join(dir, name))
    }
    await keepTextConverterCache(dir).catch((error) =>
      console.warn(`The text converter's code cache was not kept: ${error}`),
    )
    keepCodeCaches(dir)
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/**
 * One rolldown build of `input` into `staging`, as ES modules (`.js`) or CommonJS (`.cjs`).
 * @param {string} dir
 * @param {string} staging
 * @param {Record<string, string>} input
 * @param {'esm' | 'cjs'} format
 * @returns {import('rolldown').BuildOptions}
 * @example await build(options('dist', 'dist/.bundle-x', { sendbox: 'dist/index.js' }, 'cjs'))
 */
function options(dir, staging, input, format) {
  const ext = format === 'cjs' ? 'cjs' : 'js'
  return {
    input,
    cwd: dir,
    platform: 'node',
    external: (id) =>
      id.startsWith('node:') || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
    logLevel: 'warn',
    // The template layer's modules do nothing as they load (no module state, test/module-state):
    // one imported through the layer's index for a constant (core/faults.ts, SLUG_PATTERN) need
    // not bring the renderer and Liquid, a CommonJS module rolldown must otherwise keep for its
    // top-level require, into what a start loads.
    treeshake: {
      moduleSideEffects: (id) => (/[\\/]templates[\\/][^\\/]+\.js$/.test(id) ? false : undefined),
    },
    plugins:
      format === 'cjs'
        ? [caniemailAsJson, lazySegmenter, importMetaInCommonJs, importThroughRequire]
        : [caniemailAsJson, lazySegmenter],
    output: {
      dir: staging,
      format,
      entryFileNames: `[name].${ext}`,
      // The library's own code, shared by the entries, is named after its index.js's folder
      // (dist/, or a temporary build folder): a stable name instead.
      chunkFileNames: (chunk) =>
        chunk.name === basename(dir)
          ? `sendbox-lib.${ext}`
          : chunk.moduleIds.some((id) => /\/node_modules\/pg(?:-[a-z]+)?\//.test(id))
            ? `sendbox-postgres-client.${ext}`
            : `sendbox-[name].${ext}`,
      // Strict, as the ES modules it is built from are (rolldown adds "use strict" to CommonJS
      // only when its input says so, and tsc's ES modules do not): the CLI runs from these.
      ...(format === 'cjs' && { strict: true }),
      // Each CommonJS file knows its own URL, for the `import.meta.url`s rewritten below.
      // And its `import()`s of packages go through one function (`importThroughRequire`, below).
      ...(format === 'cjs' && {
        intro: [
          "const __sendbox_import_meta_url = require('node:url').pathToFileURL(__filename).href;",
          'const __sendbox_import = require.sendboxImport ?? ((specifier) => import(specifier));',
          'const __sendbox_later = require.sendboxLater ?? ((load) => Promise.resolve().then(load));',
        ].join('\n'),
      }),
    },
  }
}

/**
 * CommonJS has no `import.meta`, which rolldown replaces with `{}`: PACKAGE_ROOT and the lazy
 * `createRequire(import.meta.url)`s need the file's URL, which every .cjs file defines (the
 * intro above); consola's `import.meta.env` (a Vite variable) is just absent in Node.
 */
const importMetaInCommonJs = {
  name: 'import-meta-in-commonjs',
  transform(code) {
    if (!code.includes('import.meta')) return null
    return {
      code: code
        .replaceAll('import.meta.url', '__sendbox_import_meta_url')
        .replaceAll('import.meta.env', 'undefined'),
      map: null,
    }
  },
}

/**
 * `serve` runs the CommonJS bundles with V8's code cache (src/lib/code-cache.ts), as scripts of
 * `node:vm`, where V8 runs an `import()` only with a flag, or an experimental option that warns on
 * the console. So their `import("package")`s (rolldown writes a package's dynamic import so)
 * call `__sendbox_import`, which the intro defines: the loader's `require.sendboxImport` there,
 * Node's own `import()` when Node's `require` loaded the file (a CommonJS project's `require('sendbox')`).
 * And their `import()`s of each other, which rolldown writes as a `require` in a promise, run a
 * turn of the event loop later under the loader (`require.sendboxLater`): a `require` runs at once
 * where an ES module's `import()` reads its file first, and a start's loads one after another
 * (the app, the templates, the watcher) kept its first health request unanswered until all were in.
 */
const importThroughRequire = {
  name: 'import-through-require',
  renderChunk(code) {
    const own = 'Promise.resolve().then(() => require("./sendbox'
    if (!code.includes('import("') && !code.includes(own)) return null
    return {
      code: code
        // Not a method named import (`this.import(…)`), nor part of a longer name.
        .replace(/(?<![.\w$])import\("/g, '__sendbox_import("')
        .replaceAll(own, '__sendbox_later(() => require("./sendbox'),
      map: null,
    }
  },
}

// Run as a script (the path compared as a URL: it may hold spaces, `#`, or be a symlink).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href)
  await bundle(process.argv[2] ?? 'dist')
