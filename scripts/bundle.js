// Bundles what `tsc` wrote into dist/ into a few files: dist/sendbox.js (the library, what
// `import 'sendbox'` loads) and dist/sendbox-cli.js (what bin/sendbox.js runs), with shared and
// lazily loaded parts in dist/sendbox-*.js chunks.
//
// Why: Node's ESM loader pays per file (resolve, stat, read, CJS lexing), and the server's graph
// is ~300 files, yaml alone 46. One file halves the server's import time (≈190 → ≈75 ms), most
// of what `serve` takes to be ready.
//
// The bundles sit in dist/ itself, one level below the package root like dist/version.js, so
// module-relative URLs (PACKAGE_ROOT) mean the same in both. Kept out: packages loaded lazily
// with `require` (they stay lazy) and `open` (it finds its own xdg-open script next to itself).
//
// Usage: node scripts/bundle.js [dist folder, default dist]
import { readdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { build } from 'rolldown'

const EXTERNAL = ['html-to-text', 'email-addresses', 'open']

/**
 * @param {string} dist the folder tsc wrote to; the bundles go next to what they are built from
 * @example await bundle('dist')
 */
export async function bundle(dist) {
  const dir = resolve(dist)
  // Chunks from an earlier build that this one does not write again.
  for (const name of readdirSync(dir)) if (/^sendbox(-.*)?\.js$/.test(name)) rmSync(join(dir, name))
  await build({
    input: { sendbox: join(dir, 'index.js'), 'sendbox-cli': join(dir, 'cli/index.js') },
    cwd: dir,
    platform: 'node',
    external: (id) => id.startsWith('node:') || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
    logLevel: 'warn',
    output: { dir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: 'sendbox-[name].js' },
  })
}

if (import.meta.url === `file://${process.argv[1]}`) await bundle(process.argv[2] ?? 'dist')
