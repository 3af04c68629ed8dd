import type { Adapter } from 'lowdb'
import { LogClosedError } from './errors.js'
import { createLogFile } from './log-file.js'
import { createLogRecovery, type LiveSource } from './log-recovery.js'
import { type LogFs, nodeFs } from './log-fs.js'
import type { LogData, LogEntry } from './log-format.js'
import { holdRecordLine, releaseRecordLines } from './record-json.js'
import { createLineSpans } from './line-spans.js'
import { readLog } from './log-reader.js'
import { noteRecordLine } from './size.js'
import { ProjectTally } from './tally.js'
import type { MessageRecord, Suppression } from './types.js'
import { type Batch, createWriteQueue } from './write-queue.js'

export {
  LOG_HEADER,
  matchesSuppression,
  suppressionKey,
  type EventsEntry,
  type LogData,
  type LogEntry,
  type SuppressEntry,
  type Tombstone,
  type UnsuppressEntry,
} from './log-format.js'

/**
 * A lowdb Adapter over an append-only JSON Lines file (its format: log-format.ts).
 *
 * `read` replays the file; `write` is compaction (temp file, fsync, rename); `append` is the
 * per-send path, which writes lines and never rewrites the file. Every file operation goes
 * through one queue, so appends issued during a compaction land in the new file, in order.
 *
 * A record is serialised once. `read` streams the file (never one buffer or string of it all)
 * and notes where each record's line is; `append` notes where the line it wrote landed; and
 * compaction copies those bytes into the new file instead of serialising the record again. A
 * record that delivery events changed since its line was written differs from that line only in
 * its status and recipients: compaction writes the old line with those two replaced. Only what
 * is neither (written by hand, or before delivery states) is serialised there, once: the new file
 * then holds its line. The lines stay in the file, not in memory, so the memory after start is
 * the records themselves.
 */

export interface JsonlAdapter extends Adapter<LogData> {
  readonly file: string
  /** Resolves once the entries' lines were handed to the OS (write(2) returned). */
  append(entries: readonly LogEntry[]): Promise<void>
  /**
   * Says that `next` is `from` with delivery events folded in (`withEvents`): only its status and
   * recipients differ, so compaction can build its line from the line of `from` (or of an older
   * version) instead of serialising all of it.
   */
  derived(next: MessageRecord, from: MessageRecord): void
  /** Opens the append handle (done by compaction otherwise); surfaces errors at open, not at the first send. */
  open(): Promise<void>
  /** Lines after the header that the file holds once everything queued has landed. */
  lines(): number
  /** About the bytes the file holds once everything queued has landed: what compaction weighs dead lines by. */
  bytes(): number
  /** After read(): the file must be rewritten before appending (missing, empty, torn or unterminated tail). */
  needsRewrite(): boolean
  /** Records read() dropped to honour `maxRecords`, per project. */
  droppedAtRead(): ProjectTally
  /**
   * Gives the adapter the live memory and a way to re-create the folder and the lock. From then
   * on every rewrite (compaction, or a file found removed or replaced) writes what memory holds
   * when it runs, and settles the batches still queued with it: their lines are in memory.
   */
  source(snapshot: () => LogData, recreate: () => Promise<void>): void
  /** Checks, between writes, that the file is still there; rewrites it from memory if not (then true). */
  verify(): Promise<boolean>
  /** Waits for everything queued, then closes the handle. Later calls to append/write reject. */
  close(): Promise<void>
}

export interface JsonlAdapterOptions {
  warn: (message: string) => void
  /** Replay keeps at most this many records, dropping the oldest as the log did when it ran. */
  maxRecords?: number
  /** …and at most this many bytes of records (their JSON lines), likewise. */
  maxBytes?: number
  /** The file-system calls (a test hands in failing ones); node:fs/promises by default. */
  fs?: LogFs
}

/**
 * The lines of entries, each serialised once: a record's line is noted (its size) and held until
 * its batch is written, for compaction to copy instead of serialising it again.
 */
function serialise(entries: readonly LogEntry[]): {
  text: string
  records: (MessageRecord | null)[]
} {
  let text = ''
  const records: (MessageRecord | null)[] = []
  for (const entry of entries) {
    const line = JSON.stringify(entry)
    if ('op' in entry) records.push(null)
    else {
      noteRecordLine(entry, line)
      holdRecordLine(entry, line)
      records.push(entry)
    }
    text += `${line}\n`
  }
  return { text, records }
}

/**
 * The adapter over one log file, put together from its parts: the file (log-file.ts), where each
 * record's line is (line-spans.ts), the write queue (write-queue.ts) and the rewrite from memory
 * (log-recovery.ts). Long because it is that composition: the parts share the counts of what the
 * file holds once the queue has landed, and each operation here is a few lines over them.
 *
 * @example
 * const adapter = createJsonlAdapter('.sendbox/messages.jsonl', { warn: console.warn })
 * const data = await adapter.read()
 */
export function createJsonlAdapter(file: string, options: JsonlAdapterOptions): JsonlAdapter {
  const { fs = nodeFs, maxRecords = Infinity, maxBytes = Infinity } = options
  const spans = createLineSpans()
  const log = createLogFile(file, fs, spans)
  /** Lines after the header and bytes the file holds once everything queued has landed. */
  const expected = { lines: 0, chars: 0 }
  let rewrite = false
  let droppedAtRead = new ProjectTally()
  let closed = false
  let live: LiveSource | null = null
  const queue = createWriteQueue<MessageRecord>({
    write: writeBatch,
    // The lines were held for the batch's write (or a compaction's copy): not needed after it.
    settled: (batch) => releaseRecordLines(batch.records.filter((record) => record !== null)),
  })
  const recovery = createLogRecovery({
    file,
    fs,
    warn: options.warn,
    queue,
    expected,
    live: () => live,
    compact,
  })

  function assertOpen(): void {
    if (closed) throw new LogClosedError(file)
  }

  async function read(): Promise<LogData> {
    const read = await readLog(file, fs, { maxRecords, maxBytes, warn: options.warn }, spans.set)
    log.setSize(read.size)
    expected.chars = read.size
    expected.lines = read.lines
    rewrite = read.rewrite
    droppedAtRead = read.dropped
    return { records: read.records, suppressions: read.suppressions }
  }

  function append(entries: readonly LogEntry[]): Promise<void> {
    assertOpen()
    const { text, records } = serialise(entries)
    expected.lines += entries.length
    expected.chars += text.length
    // Lines arriving while a write is in flight join the next batch: one write(2) for all of them.
    return queue.add(text, records)
  }

  /** A batch's turn: appended, unless the file was removed or replaced (then written anew). */
  async function writeBatch(batch: Batch<MessageRecord>): Promise<void> {
    const handle = log.handle()
    if (live && handle && (await recovery.rebuildIfGone(handle, batch))) return
    try {
      await log.append(Buffer.from(batch.text, 'utf8'), batch.records)
    } catch (error) {
      expected.lines -= batch.count
      expected.chars -= batch.text.length
      throw error
    }
  }

  /**
   * Compaction. It writes memory as it is when it runs (the source given with `source`, else
   * `data`), and settles the batches still queued with it.
   */
  function write(data: LogData): Promise<void> {
    assertOpen()
    // Bare, lines batched before this call go to the old file, and `data` has them.
    if (!live) queue.detach()
    return queue.serial(() => recovery.rewriteFromMemory(undefined, false, data))
  }

  async function compact(
    records: MessageRecord[],
    suppressions: Suppression[],
    anew: boolean,
  ): Promise<void> {
    // Awaited first: `expected.chars += await …` would read the count before the appends queued meanwhile.
    const written = await log.replace(records, suppressions, anew)
    expected.chars += written
    rewrite = false
  }

  return {
    file,
    read,
    write,
    append,
    derived: spans.derived,
    source(snapshot, recreate) {
      live = { snapshot, recreate }
    },
    verify: () =>
      queue.serial(async () => {
        const handle = log.handle()
        if (closed || !live || !handle) return false
        return recovery.rebuildIfGone(handle)
      }),
    open: () => queue.serial(log.open),
    lines: () => expected.lines,
    bytes: () => expected.chars,
    needsRewrite: () => rewrite,
    droppedAtRead: () => droppedAtRead,
    close() {
      if (closed) return queue.idle()
      closed = true
      queue.detach()
      return queue.serial(log.close)
    },
  }
}
