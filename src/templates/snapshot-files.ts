/**
 * The snapshot folder on disk (docs/snapshots.md#the-snapshot-folder): `<slug>/<case>.html` and `<slug>/<case>.txt`, and
 * with `--visual` `<slug>/<case>.<width>-<scheme>.png`; the images of a visual change (the
 * current screenshot and the diff) under `.diff/`, which a `.gitignore` keeps out of commits.
 *
 * Writes are careful like the inbox's fixture writes (docs/security.md): names are checked against one
 * pattern (no separator, no leading dot, so never `..`), files are owner-only (0600, folders
 * 0700) and written atomically (a temp file renamed over the old one, never followed through a
 * symlink), and a case folder that is a symlink to somewhere else is refused.
 */
import { randomBytes } from 'node:crypto'
import {
  mkdir,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  rmdir,
  unlink,
  writeFile,
} from 'node:fs/promises'
import path from 'node:path'
import { isInside } from './template-files.js'

/** A template slug or case name as a snapshot file carries it: no separator, no leading dot. */
export const SNAPSHOT_NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/

/**
 * @example isSnapshotName('welcome') // true
 * @example isSnapshotName('..')      // false
 */
export function isSnapshotName(name: unknown): name is string {
  return typeof name === 'string' && SNAPSHOT_NAME_PATTERN.test(name)
}

export type ColorScheme = 'light' | 'dark'

/** A screenshot of a case: a width and a colour scheme, named `375-light`. */
export interface VisualVariant {
  name: string
  width: number
  scheme: ColorScheme
}

/** The screenshots `--visual` takes of each case: a phone and the classic email width, light and dark. */
export const VISUAL_VARIANTS: readonly VisualVariant[] = [375, 600].flatMap((width) =>
  (['light', 'dark'] as const).map((scheme) => ({ name: `${width}-${scheme}`, width, scheme })),
)

/** The image of a variant: the committed snapshot, the current screenshot, or their diff. */
export type ImageKind = 'snapshot' | 'current' | 'diff'

/** The folder of a visual change's images, inside the snapshot folder and never committed. */
export const REVIEW_FOLDER = '.diff'

/** Why a snapshot file was not written or read. */
export class SnapshotPathError extends Error {
  override name = 'SnapshotPathError'
  readonly code = 'snapshot_outside'
}

/** `<dir>/<slug>/<case>.html` and `.txt`. */
export function snapshotFiles(dir: string, slug: string, caseName: string) {
  const base = path.join(dir, slug, caseName)
  return { html: `${base}.html`, text: `${base}.txt` }
}

/**
 * Where a variant's image is: the snapshot beside the HTML, the current screenshot and the diff
 * under `.diff/`.
 *
 * @example imageFile('/p/snapshots', 'welcome', 'default', '375-light', 'diff') // '/p/snapshots/.diff/welcome/default.375-light.diff.png'
 */
export function imageFile(
  dir: string,
  slug: string,
  caseName: string,
  variant: string,
  kind: ImageKind,
): string {
  if (kind === 'snapshot') return path.join(dir, slug, `${caseName}.${variant}.png`)
  return path.join(dir, REVIEW_FOLDER, slug, `${caseName}.${variant}.${kind}.png`)
}

const isCode = (error: unknown, ...codes: string[]) =>
  codes.includes((error as NodeJS.ErrnoException)?.code ?? '')

/** A file's text, or null when it is not there. */
export async function readIfThere(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if (isCode(error, 'ENOENT', 'ENOTDIR', 'EISDIR')) return null
    throw error
  }
}

/** The snapshot of a case: its HTML and text, each null when missing. */
export async function readSnapshot(
  dir: string,
  slug: string,
  caseName: string,
): Promise<{ html: string | null; text: string | null }> {
  const files = snapshotFiles(dir, slug, caseName)
  const [html, text] = await Promise.all([readIfThere(files.html), readIfThere(files.text)])
  return { html, text }
}

/**
 * The real folder `<dir>/<sub…>`, created owner-only when missing; refused when it leads
 * outside `dir` (a symlink).
 */
async function folderInside(dir: string, ...sub: string[]): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const root = await realpath(dir)
  let folder = root
  for (const name of sub) {
    if (!isSnapshotName(name) && name !== REVIEW_FOLDER)
      throw new SnapshotPathError(`${JSON.stringify(name)} is not a snapshot name.`)
    folder = path.join(folder, name)
    try {
      await mkdir(folder, { mode: 0o700 })
    } catch (error) {
      if (!isCode(error, 'EEXIST')) throw error
    }
    folder = await realpath(folder)
    if (!isInside(root, folder))
      throw new SnapshotPathError(
        `${[...sub].join('/')} leads outside the snapshot folder (a symlink); sendbox writes only inside it.`,
      )
  }
  return folder
}

/**
 * Writes `<dir>/<sub…>/<name>` atomically (temp file, rename), owner-only.
 *
 * @example await writeInside('/p/snapshots', ['welcome'], 'default.html', '<p>Hi</p>\n')
 */
export async function writeInside(
  dir: string,
  sub: string[],
  name: string,
  content: string | Uint8Array,
): Promise<string> {
  const folder = await folderInside(dir, ...sub)
  const file = path.join(folder, name)
  // A dotfile: the watcher and the folder scan skip it until the rename.
  const temp = path.join(folder, `.${name}.${randomBytes(4).toString('hex')}.tmp`)
  await writeFile(temp, content, { flag: 'wx', mode: 0o600 })
  try {
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  return file
}

/**
 * Writes a case's snapshot (HTML and text); returns the files written.
 *
 * @example await writeSnapshot('/p/snapshots', 'welcome', 'default', { html, text })
 */
export async function writeSnapshot(
  dir: string,
  slug: string,
  caseName: string,
  snapshot: { html: string; text: string },
): Promise<string[]> {
  return [
    await writeInside(dir, [slug], `${caseName}.html`, snapshot.html),
    await writeInside(dir, [slug], `${caseName}.txt`, snapshot.text),
  ]
}

/** What the folder holds: by slug, by case, the snapshot files (absolute). */
export type SnapshotListing = Map<string, Map<string, string[]>>

/** The case a file of a slug's folder belongs to, or null when it is no snapshot file. */
export function caseOfFile(name: string): string | null {
  if (name.startsWith('.')) return null
  const match = name.endsWith('.png')
    ? /^(.+)\.\d+-(?:light|dark)\.png$/.exec(name)
    : /^(.+)\.(?:html|txt)$/.exec(name)
  return match && isSnapshotName(match[1]) ? match[1] : null
}

/** The snapshot files under `dir` (or of one slug), by slug and case. A missing folder has none. */
export async function listSnapshots(dir: string, only?: string): Promise<SnapshotListing> {
  const listing: SnapshotListing = new Map()
  const slugs =
    only === undefined
      ? (await readdir(dir, { withFileTypes: true }).catch(() => []))
          .filter((entry) => entry.isDirectory() && isSnapshotName(entry.name))
          .map((entry) => entry.name)
      : [only]
  for (const slug of slugs) {
    const names = await readdir(path.join(dir, slug)).catch(() => [] as string[])
    const cases = new Map<string, string[]>()
    for (const name of names.sort()) {
      const caseName = caseOfFile(name)
      if (caseName === null) continue
      cases.set(caseName, [...(cases.get(caseName) ?? []), path.join(dir, slug, name)])
    }
    if (cases.size > 0) listing.set(slug, cases)
  }
  return listing
}

/**
 * Removes the files of a case (its snapshot and its review images), and its slug's folders when
 * they are left empty. Returns the snapshot files removed.
 *
 * @example await removeCase('/p/snapshots', 'welcome', 'old') // ['/p/snapshots/welcome/old.html', …]
 */
export async function removeCase(dir: string, slug: string, caseName: string): Promise<string[]> {
  if (!isSnapshotName(slug) || !isSnapshotName(caseName))
    throw new SnapshotPathError('Not a snapshot name.')
  const root = await realpath(dir).catch(() => null)
  if (root === null) return []
  const review = new RegExp(
    `^${caseName.replace(/\./g, '\\.')}\\.\\d+-(?:light|dark)\\.(?:current|diff)\\.png$`,
  )
  const removed: string[] = []
  const folders = [
    { folder: path.join(dir, slug), owns: (name: string) => caseOfFile(name) === caseName },
    { folder: path.join(dir, REVIEW_FOLDER, slug), owns: (name: string) => review.test(name) },
  ]
  for (const { folder, owns } of folders) {
    const real = await realpath(folder).catch(() => null)
    if (real === null) continue
    if (!isInside(root, real))
      throw new SnapshotPathError(`${slug} leads outside the snapshot folder (a symlink).`)
    for (const name of await readdir(real)) {
      if (!owns(name)) continue
      await unlink(path.join(real, name))
      if (folder === folders[0]!.folder) removed.push(path.join(folder, name))
    }
    // Only when empty: a folder with other files in it (a README) stays.
    await rmdir(real).catch(() => {})
  }
  return removed
}

/** Removes the review images of a variant (a visual change that is no more). */
export async function removeReviewImages(
  dir: string,
  slug: string,
  caseName: string,
  variant: string,
): Promise<void> {
  for (const kind of ['current', 'diff'] as const)
    await rm(imageFile(dir, slug, caseName, variant, kind), { force: true })
}

/**
 * Writes a review image (`current` or `diff`) under `.diff/`, with the `.gitignore` that keeps
 * the folder out of commits.
 */
export async function writeReviewImage(
  dir: string,
  slug: string,
  caseName: string,
  variant: string,
  kind: 'current' | 'diff',
  png: Uint8Array,
): Promise<string> {
  const folder = await folderInside(dir, REVIEW_FOLDER)
  await writeFile(path.join(folder, '.gitignore'), REVIEW_GITIGNORE, {
    flag: 'wx',
    mode: 0o600,
  }).catch((error: unknown) => {
    if (!isCode(error, 'EEXIST')) throw error
  })
  return writeInside(dir, [REVIEW_FOLDER, slug], `${caseName}.${variant}.${kind}.png`, png)
}

/** Keeps `.diff/` out of commits: written when sendbox first writes there. */
export const REVIEW_GITIGNORE =
  '# Created by sendbox: images of visual changes, never to be committed.\n*\n'
