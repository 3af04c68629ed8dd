import { execFileSync } from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'

/**
 * The CLI tests run bin/sendbox.js, which runs the bundles in dist/, and the inbox serves its
 * page from dist/inbox/page/: build them from the current sources first, as `npm run build`
 * does.
 *
 * tsc writes in place (truncate, then write), so a process reading dist/ meanwhile (a server left
 * from another run, an editor's `npm start`) could load half a file. The build goes to a temporary
 * folder, and only files whose bytes changed are moved into dist/, each with one atomic rename.
 */
export default function setup(): void {
  // Next to dist/, at the same depth: the bundler resolves packages from node_modules/ above it,
  // and names the modules it bundles relative to it, so both builds write the same bytes.
  const staging = mkdtempSync('.sendbox-build-')
  try {
    execFileSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', staging],
      { stdio: 'inherit' },
    )
    // What bin/sendbox.js and `import 'sendbox'` load: see scripts/bundle.js.
    execFileSync(process.execPath, ['scripts/bundle.js', staging], { stdio: 'inherit' })
    // The inbox page, bundled from its TSX sources (type-checked by `npm run lint`).
    execFileSync(process.execPath, ['scripts/bundle-inbox.js', staging], { stdio: 'inherit' })
    moveChanged(staging, 'dist')
    pruneStale(join(staging, 'inbox', 'page'), join('dist', 'inbox', 'page'))
    // dist/ is built from these sources, as `npm run build` records it: `npm pack` (its
    // `prepack`, test/pack.test.ts) does not build again under the other test files' feet.
    execFileSync(process.execPath, ['scripts/build-inputs.js', 'stamp'], { stdio: 'inherit' })
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

function moveChanged(from: string, to: string): void {
  for (const entry of readdirSync(from, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const source = join(entry.parentPath, entry.name)
    const target = join(to, relative(from, source))
    if (same(source, target)) continue
    mkdirSync(dirname(target), { recursive: true })
    // Same file system for an atomic rename: stage next to the target first.
    const next = `${target}.${process.pid}.tmp`
    copyFileSync(source, next)
    renameSync(next, target)
  }
}

/** Files of `to` the build did not write in `from` (a chunk renamed away, the modules tsc used to emit). */
function pruneStale(from: string, to: string): void {
  const built = new Set(readdirSync(from))
  for (const name of readdirSync(to))
    if (!built.has(name)) rmSync(join(to, name), { recursive: true, force: true })
}

function same(a: string, b: string): boolean {
  try {
    return readFileSync(a).equals(readFileSync(b))
  } catch {
    return false
  }
}
