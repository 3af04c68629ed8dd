import path from 'node:path'
import { errnoCode } from './errors.js'
import { type LogFs, nodeFs } from './log-fs.js'

/** Owner-only (docs/security.md): the log holds sign-in links and codes. */
export const FOLDER_MODE = 0o700

const GITIGNORE = '# Created by sendbox: its message log, never to be committed.\n*\n'

/**
 * Creates the log's folder if it is missing, owner-only, with a `.gitignore` of `*` (as pytest
 * does for .pytest_cache) so it never shows up in `git status`. A folder that exists is left as
 * it is. Resolves true when it created the folder.
 *
 * @example await prepareFolder('/repo/.sendbox/messages.jsonl') // true the first time
 */
export async function prepareFolder(file: string, fs: LogFs = nodeFs): Promise<boolean> {
  const created = await fs.mkdir(path.dirname(file), { recursive: true, mode: FOLDER_MODE })
  if (created === undefined) return false
  await fs.writeFile(path.join(path.dirname(file), '.gitignore'), GITIGNORE, {
    flag: 'wx',
    mode: 0o600,
  })
  return true
}

/**
 * Removes the temp files of a compaction killed mid-way (`<name>.<pid>.<hex>.tmp`); the caller
 * holds the lock, so none is live.
 *
 * @example await removeStaleTempFiles('/repo/.sendbox/messages.jsonl')
 */
export async function removeStaleTempFiles(file: string, fs: LogFs = nodeFs): Promise<void> {
  const base = path.basename(file)
  const names = await fs.readdir(path.dirname(file)).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(`${base}.`) || !/^\.\d+\.[0-9a-f]{8}\.tmp$/.test(name.slice(base.length)))
      continue
    await fs.unlink(path.join(path.dirname(file), name)).catch(() => {})
  }
}

/**
 * The log's real path: symlinks and `.`/`..` resolved as the operating system resolves them
 * (the file itself if it exists, else its folder), so that every spelling of one file (a
 * symlink to it, `a/../a/messages.jsonl`, a path through a symlinked folder) takes one lock. The
 * spelled path is made absolute without `path.resolve`, which folds `link/..` by its letters,
 * not by where `link` points.
 *
 * @example await realLogPath('b/link.jsonl') // '/repo/a/messages.jsonl' when b/link.jsonl → ../a/messages.jsonl
 */
export async function realLogPath(spelled: string, fs: LogFs = nodeFs): Promise<string> {
  const absolute = path.isAbsolute(spelled) ? spelled : `${process.cwd()}${path.sep}${spelled}`
  try {
    return await fs.realpath(absolute)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
  return path.join(await fs.realpath(path.dirname(absolute)), path.basename(absolute))
}
