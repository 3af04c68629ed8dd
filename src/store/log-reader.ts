import type { FileHandle } from 'node:fs/promises'
import { LogOpenError, errnoCode, unreadable } from './errors.js'
import { READ_CHUNK, readLines } from './lines.js'
import type { LogFs } from './log-fs.js'
import { checkHeader, type LogData } from './log-format.js'
import { createReplay } from './replay.js'
import { ProjectTally } from './tally.js'
import type { MessageRecord } from './types.js'

export interface ReadLog extends LogData {
  /** The file's length in bytes (0 when there is none). */
  size: number
  /** Lines after the header. */
  lines: number
  /** The file must be rewritten before appending (missing, empty, torn or unterminated tail). */
  rewrite: boolean
  /** Records dropped to honour the limits, per project. */
  dropped: ProjectTally
}

/**
 * Reads a log file: refuses one that is not a sendbox log without reading it all, then streams
 * its lines through replay (never one buffer or string of the whole file). `noteLine` is told
 * where each record's line is (see createReplay).
 *
 * @example const { records, suppressions } = await readLog(file, nodeFs, { maxRecords: 5000, maxBytes: Infinity, warn }, () => {})
 */
export async function readLog(
  file: string,
  fs: LogFs,
  options: { maxRecords: number; maxBytes: number; warn: (message: string) => void },
  noteLine: Parameters<typeof createReplay>[3],
): Promise<ReadLog> {
  const fresh = {
    records: [] as MessageRecord[],
    suppressions: [],
    size: 0,
    lines: 0,
    rewrite: true,
    dropped: new ProjectTally(),
  }
  let input: FileHandle
  try {
    input = await fs.open(file, 'r')
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw unreadable(file, 'read', error)
    return fresh
  }
  const replay = createReplay(file, options, options.warn, noteLine)
  let size: number
  try {
    const { size: total } = await input.stat()
    if (total === 0) return fresh
    // Look at the start first, so a large file that is not a log is refused without reading it all.
    const start = Buffer.alloc(Math.min(total, 4096))
    await input.read(start, 0, start.length, 0)
    checkHeader(file, start.toString('utf8').split('\n', 1)[0]!)
    size = await readLines(input, replay.line, Math.min(READ_CHUNK, total + 1))
  } catch (error) {
    throw error instanceof LogOpenError ? error : unreadable(file, 'read', error)
  } finally {
    await input.close().catch(() => {})
  }
  return { ...replay.result(), size }
}
