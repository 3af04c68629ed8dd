// What dist/ was built from, so that `npm install && npm pack` builds once, and what a packed
// package.json leaves out, so that a user's install runs no build and npm has no script to warn of.
//
// `npm install` in the repository runs `prepare` (the build), which ends by writing the hash of
// its inputs to dist/.build-inputs. `npm pack` and `npm publish` run `prepack`, then `prepare`,
// then `postpack`: `prepack` builds only when the inputs changed since, and takes `prepare` out
// of package.json for the tarball (npm 11 warns of a dependency's `prepare` at install, "not yet
// covered by allowScripts", though it never runs it from a tarball); `postpack` puts it back.
//
// Usage: node scripts/build-inputs.js stamp|prepack|postpack
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const STAMP = join(ROOT, 'dist', '.build-inputs')
const KEPT = join(ROOT, '.package.json.pack')

/**
 * A hash of everything the build reads: the sources, the build scripts, the TypeScript settings
 * and the locked dependencies (about 230 files, 2 MB: a few milliseconds).
 * @param {string} root
 * @returns {string}
 * @example inputsHash(process.cwd()) // 'c0ffee…'
 */
export function inputsHash(root) {
  const hash = createHash('sha256')
  const files = ['src', 'scripts']
    .flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name)),
    )
    .concat(
      ['tsconfig.build.json', 'tsconfig.inbox.json', 'package-lock.json'].map((f) => join(root, f)),
    )
    .filter((file) => existsSync(file))
    .sort()
  for (const file of files) hash.update(`${relative(root, file)}\0`).update(readFileSync(file))
  return hash.digest('hex')
}

/**
 * Runs one step: `stamp` after a build, `prepack` and `postpack` around `npm pack`.
 * @param {string} step
 * @example run('prepack')
 */
function run(step) {
  if (step === 'stamp') {
    writeFileSync(STAMP, `${inputsHash(ROOT)}\n`)
  } else if (step === 'prepack') {
    // A pack that did not finish (killed, failed) left package.json without `prepare`: the kept
    // copy is the real one.
    if (existsSync(KEPT)) renameSync(KEPT, join(ROOT, 'package.json'))
    const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : ''
    if (built === inputsHash(ROOT))
      console.error('dist/ is built from these sources; not built again')
    else if (process.env.SENDBOX_PACK_NO_BUILD) {
      // test/pack.test.ts: a build here would rewrite dist/ under the other test files running.
      console.error('dist/ is not built from these sources (changed since the build); not packed')
      process.exit(1)
    } else execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' })
    const text = readFileSync(join(ROOT, 'package.json'), 'utf8')
    const manifest = JSON.parse(text)
    delete manifest.scripts.prepare
    writeFileSync(KEPT, text)
    writeFileSync(join(ROOT, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  } else if (step === 'postpack') {
    if (existsSync(KEPT)) renameSync(KEPT, join(ROOT, 'package.json'))
  } else throw new Error(`unknown step ${step}: stamp, prepack or postpack`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  run(process.argv[2] ?? '')
