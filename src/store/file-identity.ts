import { fstatSync } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { errnoCode } from './errors.js'
import type { LogFs } from './log-fs.js'

/**
 * Whether the file the log writes through `handle` is still the one at `file`: null when it is,
 * else what happened, for the warning. A removed folder (`rm -rf .sendbox`, `git clean -fdx`)
 * or file shows as an unlinked handle (fstat's nlink 0) or a missing path; a file replaced by
 * another (a branch switch, a copy) as another device and inode at the path. Two stat calls,
 * paid once per batch of lines, not per send; both synchronous (fstat here, `nodeFs.stat`):
 * through the thread pool the pair took about 120 µs of CPU, 4 to 13 µs synchronously (5,000
 * pairs, this 2-core machine), and under 32 senders on the log the pair was 4% of a send's CPU
 * (`--cpu-prof`).
 *
 * @example await whatHappenedTo(handle, '/repo/.sendbox/messages.jsonl', nodeFs) // null, or 'was removed'
 */
export async function whatHappenedTo(
  handle: FileHandle,
  file: string,
  fs: Pick<LogFs, 'stat'>,
): Promise<string | null> {
  const own = fstatSync(handle.fd)
  const there = await fs.stat(file).catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return null
    throw error
  })
  if (there === null) return 'was removed'
  if (there.dev !== own.dev || there.ino !== own.ino) return 'was replaced by another file'
  // The same inode at the path but unlinked cannot be; nlink 0 with a path means removed and the path is another's.
  return own.nlink === 0 ? 'was removed' : null
}
