// Bundles the inbox page (src/inbox/page/, TypeScript and TSX on Preact) into
// <dist>/inbox/page/: app.js, which the page loads, and the chunks it imports lazily (the
// CodeMirror variables editor, code-editor.js, loaded when a template opens). Run by
// scripts/bundle.js, so `npm run build` and the test suite's global setup both build it.
//
// Why a bundle: the page was ~35 modules the browser fetched one by one (a waterfall of
// requests before the first draw); now it is one script, minified, and a lazy chunk. Names are
// stable (no hashes): the server answers with `cache-control: no-cache`, and
// src/inbox/index.ts serves only `^[a-z0-9][a-z0-9-]*\.js$` from that folder.
//
// Usage: node scripts/bundle-inbox.js [dist folder, default dist]
//        INBOX_MINIFY=0 node scripts/bundle-inbox.js   (readable names, for a CPU profile of the page)
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'rolldown'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ENTRY = join(ROOT, 'src/inbox/page/app.tsx')

/** A chunk's file name as the server serves it: lower case, letters, digits and dashes. */
const servable = (name) =>
  `${
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'chunk'
  }.js`

/**
 * @param {string} dist the build's output folder; the page goes to <dist>/inbox/page/
 * @example await bundleInbox('dist')
 */
export async function bundleInbox(dist) {
  const target = join(resolve(dist), 'inbox', 'page')
  mkdirSync(target, { recursive: true })
  // Staged beside the target, then renamed in (chunks before app.js, which imports them), so a
  // page loading meanwhile never finds a file half written.
  const staging = mkdtempSync(join(target, '..', '.inbox-'))
  try {
    await build({
      input: { app: ENTRY },
      cwd: ROOT,
      platform: 'browser',
      tsconfig: false,
      transform: { jsx: { runtime: 'automatic', importSource: 'preact' } },
      logLevel: 'warn',
      output: {
        dir: staging,
        format: 'esm',
        minify: process.env.INBOX_MINIFY !== '0',
        entryFileNames: '[name].js',
        chunkFileNames: (chunk) => servable(chunk.name),
      },
    })
    const written = readdirSync(staging)
    for (const name of [...written.filter((n) => n !== 'app.js'), 'app.js'])
      renameSync(join(staging, name), join(target, name))
    // What an earlier build wrote and this one did not (the 35 modules tsc used to emit, an old chunk).
    for (const name of readdirSync(target)) if (!written.includes(name)) rmSync(join(target, name))
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href)
  await bundleInbox(process.argv[2] ?? 'dist')
