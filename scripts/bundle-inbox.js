// Bundles the inbox page (src/inbox/page/, TypeScript and TSX on Preact) into
// <dist>/inbox/page/: app.js, which the page loads, and the chunks it imports lazily (the
// CodeMirror variables editor, code-editor.js, loaded when a template opens), and app.css, the
// page's stylesheet (src/inbox/page/styles/). Run by `npm run build` and by the test suite's
// global setup.
//
// Why a bundle: the page was ~35 modules the browser fetched one by one (a waterfall of
// requests before the first draw); now it is one script, minified, and a lazy chunk. Names are
// stable (no hashes): the server answers with `cache-control: no-cache`, and
// src/inbox/index.ts serves only `^[a-z0-9][a-z0-9-]*\.js$` and app.css from that folder.
//
// Why the stylesheet is joined here: rolldown 1.x does not bundle CSS (its experimental support
// was removed: "Bundling CSS is no longer supported", rolldown#4271), and the page needs one
// file (one request, and the CSP's style-src 'self' allows a stylesheet, not inline styles).
//
// Usage: node scripts/bundle-inbox.js [dist folder, default dist]
//        INBOX_MINIFY=0 node scripts/bundle-inbox.js   (readable names, for a CPU profile of the page)
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'rolldown'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ENTRY = join(ROOT, 'src/inbox/page/app.tsx')
const STYLES = join(ROOT, 'src/inbox/page/styles/app.css')

/** A chunk's file name as the server serves it: lower case, letters, digits and dashes. */
const servable = (name) =>
  `${
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'chunk'
  }.js`

/** An `@import` of a file beside the stylesheet, alone on its line. */
const IMPORT = /^@import "(\.\/[a-z0-9-]+\.css)";$/gm

/**
 * The page's stylesheet as one text: `entry` with each of its `@import "./x.css";` lines
 * replaced by that file, in order. Any other `@import` (a URL, a media query, one inside an
 * imported file) fails the build rather than reach the browser as a second request.
 * @param {string} entry
 * @returns {string}
 * @example bundleStyles('src/inbox/page/styles/app.css') // ':root { … }'
 */
export function bundleStyles(entry) {
  const inline = (file) => {
    const css = readFileSync(join(dirname(entry), file), 'utf8')
    if (/^\s*@import/m.test(css)) throw new Error(`${file}: only app.css may @import`)
    return css
  }
  const css = readFileSync(entry, 'utf8').replace(IMPORT, (_, file) => inline(file))
  if (/^\s*@import/m.test(css)) throw new Error(`${entry}: an @import other than "./name.css";`)
  return css
}

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
    writeFileSync(join(staging, 'app.css'), bundleStyles(STYLES))
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
