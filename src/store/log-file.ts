import type { FileHandle } from 'node:fs/promises'
import { FILE_MODE, writeCompacted } from './compaction.js'
import { LogWriteError } from './errors.js'
import { writeAll } from './file-io.js'
import type { createLineSpans } from './line-spans.js'
import type { LogFs } from './log-fs.js'
import type { MessageRecord, Suppression } from './types.js'

/**
 * An append of at most this many bytes, this long after the last write ended, is written on this
 * thread: the log is idle (a send alone, one at a time), and write(2) to the page cache takes tens
 * of microseconds where the thread pool's round trip woke a thread and then the event loop, two
 * wakeups of an idle core (one send at a time on the log: p50 3.72 → 2.95 ms and 4.10 → 3.14 ms,
 * 20 alternating batches of 100). Under load, writes follow one another with lines waiting: on
 * the thread pool, the lines that come during one write join the next (group commit), which a
 * write here would end (every batch ≤ 32 KB written here: 0.62 of the sends/s under 32
 * connections). The price: a write(2) that blocks (a hung network file system; a local disk
 * takes it into the page cache) holds this thread for its duration, as the log's synchronous
 * stat (file-identity.ts) already could; a full disk fails at once (ENOSPC), as before.
 */
const WRITE_HERE = { bytes: 32 * 1024, idleMs: 1 }

/**
 * The log file the adapter appends to: its handle, its length, and its two writes, lines at the
 * end (cut back off if they fail) and a compacted file swapped in. Where each record's line
 * lands goes to `spans`, for the next compaction to copy.
 *
 * Long because it is one object: the handle, the length, the damage flag and the time of the last
 * write, shared by its five operations, each under thirty lines.
 *
 * @example
 * const log = createLogFile(file, nodeFs, createLineSpans())
 * await log.append(Buffer.from(`${JSON.stringify(record)}\n`), [record])
 */
export function createLogFile(
  file: string,
  fs: LogFs,
  spans: ReturnType<typeof createLineSpans>,
  /** Bytes in the file (as read at start). */
  size = 0,
) {
  let handle: FileHandle | null = null
  /** When the last append's write ended (performance.now()): see WRITE_HERE. */
  let lastWrite = Number.NEGATIVE_INFINITY
  /** A failed write left bytes after `size` that could not be cut off yet. */
  let damaged = false

  return {
    handle: () => handle,
    /** Bytes in the file, so a failed append can be cut back off instead of leaving half a line. */
    size: () => size,
    setSize(bytes: number): void {
      size = bytes
    },
    async open(): Promise<void> {
      handle ??= await fs.open(file, 'a+', FILE_MODE)
    },

    /**
     * Writes lines (`records`: one per line, null for a tombstone or other operation) at the end
     * of the file; on failure, cuts any part of them back off and throws `LogWriteError`.
     */
    async append(bytes: Buffer, records: readonly (MessageRecord | null)[]): Promise<void> {
      const before = size
      try {
        handle ??= await fs.open(file, 'a+', FILE_MODE)
        const open = handle
        // A failed write may have left part of a line: cut it off before writing after it.
        if (damaged) {
          await open.truncate(size)
          damaged = false
        }
        const here =
          bytes.length <= WRITE_HERE.bytes && performance.now() - lastWrite > WRITE_HERE.idleMs
        size += await writeAll((b, o, l) => fs.write(open, b, o, l, here), bytes)
      } catch (error) {
        // Cut a partial line off, so a later append does not leave garbage in the middle of the log.
        if (handle) await handle.truncate(before).catch(() => (damaged = true))
        throw new LogWriteError(file, error)
      } finally {
        lastWrite = performance.now()
      }
      // Where each record's line landed, for compaction to copy (a JSON line holds no raw \n).
      let start = 0
      for (const record of records) {
        const end = bytes.indexOf(10, start) + 1
        if (record) spans.set(record, { position: before + start, length: end - start })
        start = end
      }
    },

    /**
     * Writes the file anew with these records and suppressions (temp file, fsync, rename; their
     * lines copied from this file where it has them) and appends to it from then on. `anew`: the
     * file at the path is not ours any more (removed or replaced). Returns its length.
     */
    async replace(
      records: MessageRecord[],
      suppressions: Suppression[],
      anew = false,
    ): Promise<number> {
      const compacted = await writeCompacted({
        file,
        fs,
        anew,
        source: handle,
        records,
        suppressions,
        lineOf: spans.lineOf,
        baseOf: spans.baseOf,
      })
      spans.next(compacted.spans)
      const previous = handle
      handle = compacted.handle
      size = compacted.written
      damaged = false
      await previous?.close().catch(() => {})
      return compacted.written
    },

    async close(): Promise<void> {
      await handle?.close()
      handle = null
    },
  }
}

export type LogFile = ReturnType<typeof createLogFile>
