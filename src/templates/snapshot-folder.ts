/**
 * The snapshot folder as the server's book of snapshots uses it (`src/core/snapshots.ts`): the
 * domain keeps the statuses and the rules, and reaches the files only through this interface,
 * as it reaches the messages through `MessageStore`. The composition root opens it
 * (`openSnapshotFolder`) and hands it in; a test can hand in another.
 */
import { access, readFile } from 'node:fs/promises'
import path from 'node:path'
import {
  imageFile,
  type ImageKind,
  isSnapshotName,
  listSnapshots,
  readSnapshot,
  removeCase,
  REVIEW_FOLDER,
  type SnapshotListing,
  snapshotFiles,
  writeSnapshot,
} from './snapshot-files.js'
import { type FolderWatcher, watchFolders } from './watcher.js'

/** A case's snapshot as stored: its HTML and text, each null when missing. */
export interface StoredSnapshot {
  html: string | null
  text: string | null
}

export interface SnapshotFolder {
  /** The folder (absolute or as given), for paths shown and the book's `dir`. */
  readonly dir: string
  /** Where a case's HTML and text snapshot are (whether or not they exist). */
  files(slug: string, caseName: string): { html: string; text: string }
  read(slug: string, caseName: string): Promise<StoredSnapshot>
  /** The snapshot files, by slug and case (of one slug with `only`). */
  list(only?: string): Promise<SnapshotListing>
  /** Writes a case's snapshot; the files written. */
  write(slug: string, caseName: string, snapshot: { html: string; text: string }): Promise<string[]>
  /** Removes a case's files (snapshot and review images); the snapshot files removed. */
  remove(slug: string, caseName: string): Promise<string[]>
  /** A screenshot of a case, or null when there is none. */
  image(slug: string, caseName: string, variant: string, kind: ImageKind): Promise<Buffer | null>
  hasImage(slug: string, caseName: string, variant: string, kind: ImageKind): Promise<boolean>
  /**
   * Watches the folder: `onSlugs` with the slugs whose files changed, `onFolder` when the folder
   * itself did (made, removed, replaced: everything may have).
   */
  watch(handlers: {
    onSlugs: (slugs: string[]) => void
    onFolder: () => void
    warn: (message: string) => void
  }): Promise<FolderWatcher>
}

/**
 * The snapshot folder on disk (`snapshot-files.ts` says how it is written).
 *
 * @example
 * const folder = openSnapshotFolder('snapshots')
 * await folder.read('welcome', 'default') // { html: '<!doctype html>…', text: 'Hi Ada…' }
 */
export function openSnapshotFolder(dir: string): SnapshotFolder {
  const image = (slug: string, caseName: string, variant: string, kind: ImageKind) =>
    imageFile(dir, slug, caseName, variant, kind)
  return {
    dir,
    files: (slug, caseName) => snapshotFiles(dir, slug, caseName),
    read: (slug, caseName) => readSnapshot(dir, slug, caseName),
    list: (only) => listSnapshots(dir, only),
    write: (slug, caseName, snapshot) => writeSnapshot(dir, slug, caseName, snapshot),
    remove: (slug, caseName) => removeCase(dir, slug, caseName),
    image: (...args) => readFile(image(...args)).catch(() => null),
    hasImage: (...args) =>
      access(image(...args)).then(
        () => true,
        () => false,
      ),
    watch: ({ onSlugs, onFolder, warn }) =>
      watchFolders({
        folders: [dir],
        warn,
        onBatch(paths) {
          if (paths.some((p) => p === dir)) return onFolder()
          const slugs = paths
            .map((p) => path.relative(dir, p).split(path.sep)[0] ?? '')
            .filter((slug) => slug !== REVIEW_FOLDER && isSnapshotName(slug))
          if (slugs.length) onSlugs(slugs)
        },
      }),
  }
}
