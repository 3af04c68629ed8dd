/**
 * Saving a fixture case from the inbox: `<fixtures>/<slug>/<case>.json`. The only place sendbox
 * writes into a user's project, so it is careful:
 *
 * - the file and any folder it creates are owner-only (0600, 0700);
 * - it writes inside the fixtures folder, real paths compared: a case folder that is a symlink
 *   to somewhere else is refused, and the file itself is never followed through a symlink
 *   (a new file is created exclusively; an overwrite renames a temp file over it);
 * - its size is capped, and it is pretty-printed only while that stays small (indentation grows
 *   with depth: 8 KB of deep arrays once became 32 MB): at most 4 times the compact size.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, realpath, rename, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { isInside } from './template-files.js'
import { isValidSlug } from './slug.js'
import { formatBytes } from '../lib/bytes.js'

/** Largest fixture file sendbox writes. */
export const FIXTURE_MAX_BYTES = 256 * 1024
/** Variables whose compact JSON is under this are written with 2-space indentation (if that fits the cap). */
const PRETTY_BELOW = 64 * 1024

export type FixtureWriteErrorCode = 'fixture_exists' | 'fixture_too_large' | 'fixture_outside'

/** Why a case was not written; `file` is relative (`fixtures/<slug>/<case>.json`), never absolute. */
export class FixtureWriteError extends Error {
  override name = 'FixtureWriteError'
  constructor(
    readonly code: FixtureWriteErrorCode,
    readonly file: string,
    message: string,
  ) {
    super(message)
  }
}

/**
 * A case name the loader will read back: a slug that does not start with `.` (dotfiles are
 * skipped when fixtures load) and is not `default` (that is `<slug>.json`).
 *
 * @example isFixtureCaseName('big-order') // true
 * @example isFixtureCaseName('.hidden')   // false
 */
export function isFixtureCaseName(name: unknown): name is string {
  return typeof name === 'string' && FIXTURE_CASE_PATTERN.test(name) && name !== 'default'
}

/**
 * A case name: a slug that does not start with "." (a dotfile would be saved but never loaded).
 * The OpenAPI document carries the same pattern.
 */
export const FIXTURE_CASE_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/

/**
 * The file's text: 2-space JSON when small, compact otherwise. Throws `fixture_too_large` past
 * FIXTURE_MAX_BYTES.
 *
 * @example fixtureText({ name: 'Ada' }) // '{\n  "name": "Ada"\n}\n'
 */
export function fixtureText(variables: Record<string, unknown>, file = ''): string {
  const compact = JSON.stringify(variables)
  if (compact.length < PRETTY_BELOW) {
    const pretty = `${JSON.stringify(variables, null, 2)}\n`
    if (
      pretty.length <= 4 * compact.length + 1024 &&
      Buffer.byteLength(pretty) <= FIXTURE_MAX_BYTES
    )
      return pretty
  }
  const text = `${compact}\n`
  if (Buffer.byteLength(text) > FIXTURE_MAX_BYTES) {
    throw new FixtureWriteError(
      'fixture_too_large',
      file,
      `The fixture would be ${formatBytes(Buffer.byteLength(text))}; sendbox writes at most ${formatBytes(FIXTURE_MAX_BYTES)}. Save fewer variables, or write the file yourself.`,
    )
  }
  return text
}

const isCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException)?.code === code

/**
 * Writes `<fixturesDir>/<slug>/<name>.json` and returns its path as shown to a client:
 * `<fixtures folder name>/<slug>/<name>.json`. Throws FixtureWriteError.
 *
 * @example await writeFixtureCase('/work/app/fixtures', 'receipt', 'big-order', { order: {} }) // 'fixtures/receipt/big-order.json'
 */
export async function writeFixtureCase(
  fixturesDir: string,
  slug: string,
  name: string,
  variables: Record<string, unknown>,
  { overwrite = false } = {},
): Promise<string> {
  const shown = [path.basename(fixturesDir), slug, `${name}.json`].join('/')
  if (!isValidSlug(slug) || !isFixtureCaseName(name))
    throw new FixtureWriteError('fixture_outside', shown, 'Not a fixture case name.')
  const text = fixtureText(variables, shown)
  await mkdir(fixturesDir, { recursive: true, mode: 0o700 })
  const root = await realpath(fixturesDir)
  const caseDir = path.join(root, slug)
  try {
    await mkdir(caseDir, { mode: 0o700 })
  } catch (error) {
    if (!isCode(error, 'EEXIST')) throw error
  }
  const realCaseDir = await realpath(caseDir)
  if (!isInside(root, realCaseDir)) {
    throw new FixtureWriteError(
      'fixture_outside',
      shown,
      `${path.basename(fixturesDir)}/${slug} leads outside the fixtures folder (a symlink); sendbox writes only inside it.`,
    )
  }
  const file = path.join(realCaseDir, `${name}.json`)
  if (!overwrite) {
    try {
      // O_EXCL: fails on anything already there, a symlink included, and never follows one.
      await writeFile(file, text, { flag: 'wx', mode: 0o600 })
    } catch (error) {
      if (isCode(error, 'EEXIST'))
        throw new FixtureWriteError(
          'fixture_exists',
          shown,
          `The case "${name}" already exists (${shown}); pick another name or send "overwrite": true.`,
        )
      throw error
    }
    return shown
  }
  // A dotfile, so the fixture loader and the watcher's reload ignore it until the rename.
  const temp = path.join(realCaseDir, `.${name}.json.${randomBytes(4).toString('hex')}.tmp`)
  await writeFile(temp, text, { flag: 'wx', mode: 0o600 })
  try {
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  return shown
}
