import type { FileHandle } from 'node:fs/promises'
import type { Adapter } from 'lowdb'
import { FILE_MODE, writeCompacted } from './compaction.js'
import { LogWriteError } from './errors.js'
import { whatHappenedTo } from './file-identity.js'
import { writeAll } from './file-io.js'
import { type LogFs, nodeFs } from './log-fs.js'
import type { LogData, LogEntry } from './log-format.js'
import { holdRecordLine, releaseRecordLines } from './record-json.js'
import { createLineSpans } from './line-spans.js'
import { readLog } from './log-reader.js'
import { noteRecordLine } from './size.js'
import type { MessageRecord, Suppression } from './types.js'

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
  /** Records read() dropped to honour `maxRecords`. */
  droppedAtRead(): number
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

interface Batch {
  text: string
  count: number
  /** One per line of `text`: the record it is, or null for a tombstone or other operation. */
  records: (MessageRecord | null)[]
  written: Promise<void>
  /** Set when a rewrite from memory took this batch's lines: `failure` then says how that went. */
  absorbed?: { failure: unknown }
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

export function createJsonlAdapter(file: string, options: JsonlAdapterOptions): JsonlAdapter {
  const fs = options.fs ?? nodeFs
  let handle: FileHandle | null = null
  /** Bytes in the file, so a failed append can be cut back off instead of leaving half a line. */
  let size = 0
  let lineCount = 0
  /** `size` plus what is queued: the file's length once everything queued has landed. */
  let fileChars = 0
  let rewrite = false
  /** A failed write left bytes after `size` that could not be cut off yet. */
  let damaged = false
  /** The file was found removed or replaced, and is not written anew yet. */
  let rebuilding = false
  let droppedAtRead = 0
  let closed = false
  /** The batch still taking lines; detached when its write starts (group commit). */
  let filling: Batch | null = null
  /** Batches queued and not yet written (the filling one, and any a compaction detached). */
  const waiting = new Set<Batch>()
  let live: { snapshot: () => LogData; recreate: () => Promise<void> } | null = null
  let queue: Promise<unknown> = Promise.resolve()
  const spans = createLineSpans()

  function serial<T>(op: () => Promise<T>): Promise<T> {
    const result = queue.then(op)
    queue = result.catch(() => {})
    return result
  }

  function assertOpen(): void {
    if (closed) throw new Error(`The message log ${file} is closed.`)
  }

  async function read(): Promise<LogData> {
    const limits = {
      maxRecords: options.maxRecords ?? Infinity,
      maxBytes: options.maxBytes ?? Infinity,
    }
    const read = await readLog(file, fs, { ...limits, warn: options.warn }, spans.set)
    size = fileChars = read.size
    lineCount = read.lines
    rewrite = read.rewrite
    droppedAtRead = read.dropped
    return { records: read.records, suppressions: read.suppressions }
  }

  function append(entries: readonly LogEntry[]): Promise<void> {
    assertOpen()
    // Lines arriving while a write is in flight join the next batch: one write(2) for all of them.
    let batch = filling
    if (!batch) {
      const b: Batch = { text: '', count: 0, records: [], written: Promise.resolve() }
      b.written = serial(() => flush(b))
      batch = filling = b
      waiting.add(b)
    }
    let text = ''
    for (const entry of entries) {
      const line = JSON.stringify(entry)
      if ('op' in entry) batch.records.push(null)
      else {
        noteRecordLine(entry, line)
        holdRecordLine(entry, line)
        batch.records.push(entry)
      }
      text += `${line}\n`
    }
    batch.text += text
    batch.count += entries.length
    lineCount += entries.length
    fileChars += text.length
    return batch.written
  }

  async function flush(batch: Batch): Promise<void> {
    if (filling === batch) filling = null
    waiting.delete(batch)
    const records = batch.records.filter((record) => record !== null)
    try {
      if (batch.absorbed) {
        if (batch.absorbed.failure !== undefined) throw batch.absorbed.failure
        return
      }
      const gone = live && handle ? await whatHappenedTo(handle, file, fs) : null
      if (gone) return await rebuild(gone, batch)
      await appendText(batch)
    } finally {
      releaseRecordLines(records)
    }
  }

  /** Writes a batch's lines at the end of the file; on failure, cuts any part of them back off. */
  async function appendText(batch: Batch): Promise<void> {
    const before = size
    const bytes = Buffer.from(batch.text, 'utf8')
    try {
      handle ??= await fs.open(file, 'a+', FILE_MODE)
      const open = handle
      // A failed write may have left part of a line: cut it off before writing after it.
      if (damaged) {
        await open.truncate(size)
        damaged = false
      }
      size += await writeAll((b, o, l) => fs.write(open, b, o, l), bytes)
    } catch (error) {
      lineCount -= batch.count
      fileChars -= batch.text.length
      // Cut a partial line off, so a later append does not leave garbage in the middle of the log.
      if (handle) await handle.truncate(before).catch(() => (damaged = true))
      throw new LogWriteError(file, error)
    }
    // Where each record's line landed, for compaction to copy (a JSON line holds no raw \n).
    let start = 0
    for (const record of batch.records) {
      const end = bytes.indexOf(10, start) + 1
      if (record) spans.set(record, { position: before + start, length: end - start })
      start = end
    }
  }

  /**
   * Compaction. It writes memory as it is when it runs (the source given with `source`, else
   * `data`), and settles the batches still queued with it.
   */
  function write(data: LogData): Promise<void> {
    assertOpen()
    // Bare, lines batched before this call go to the old file, and `data` has them.
    if (!live) filling = null
    return serial(() => rewriteFromMemory(undefined, false, data))
  }

  /**
   * Writes the file anew from memory: every line queued so far is in memory already (memory
   * changes when its line is queued), so the batches still waiting (and `current`, the one being
   * written) are settled by this write instead of being appended after it.
   */
  async function rewriteFromMemory(current?: Batch, anew = false, given?: LogData): Promise<void> {
    // Without live memory (an adapter used bare) `given` is what it was at the call, so the
    // batches queued after it are appended after the new file, not taken into it.
    const absorbed = live ? [...waiting, ...(current ? [current] : [])] : []
    if (live) {
      waiting.clear()
      filling = null
    }
    const sum = (batches: Iterable<Batch>) => {
      let lines = 0
      let chars = 0
      for (const batch of batches) {
        lines += batch.count
        chars += batch.text.length
      }
      return { lines, chars }
    }
    const taken = sum(absorbed)
    const later = sum(waiting)
    const data = live?.snapshot() ?? given!
    const records = data.records.slice()
    const suppressions = (data.suppressions ?? []).slice()
    // The new file holds these lines, and its length is known once written; later batches add theirs.
    const linesDelta = records.length + suppressions.length + later.lines - lineCount
    const charsDelta = later.chars - fileChars
    lineCount += linesDelta
    fileChars += charsDelta
    try {
      await compact(records, suppressions, anew)
      for (const batch of absorbed) batch.absorbed = { failure: undefined }
    } catch (error) {
      lineCount -= linesDelta + taken.lines
      fileChars -= charsDelta + taken.chars
      const failure = error instanceof LogWriteError ? error : new LogWriteError(file, error)
      for (const batch of absorbed) batch.absorbed = { failure }
      throw failure
    }
  }

  /** The file was removed or replaced: folder and lock anew, then the file from memory. */
  async function rebuild(what: string, current?: Batch): Promise<void> {
    // Said once: while the new file cannot be written, each retry (every send, every check) is quiet.
    if (!rebuilding)
      options.warn(
        `The message log ${file} ${what} while sendbox was running: writing it anew from the messages in memory.`,
      )
    rebuilding = true
    try {
      await live!.recreate()
    } catch (error) {
      // Its lines are not written: they must not be acknowledged.
      if (current) {
        lineCount -= current.count
        fileChars -= current.text.length
      }
      throw error instanceof LogWriteError ? error : new LogWriteError(file, error)
    }
    // The lines to copy are read through the old handle: the removed or moved file is still ours.
    await rewriteFromMemory(current, true)
    rebuilding = false
  }

  async function compact(
    records: MessageRecord[],
    suppressions: Suppression[],
    anew = false,
  ): Promise<void> {
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
    fileChars += compacted.written
    const previous = handle
    handle = compacted.handle
    size = compacted.written
    damaged = false
    rewrite = false
    await previous?.close().catch(() => {})
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
      serial(async () => {
        if (closed || !live || !handle) return false
        const gone = await whatHappenedTo(handle, file, fs)
        if (gone) await rebuild(gone)
        return gone !== null
      }),
    open: () =>
      serial(async () => {
        handle ??= await fs.open(file, 'a+', FILE_MODE)
      }),
    lines: () => lineCount,
    bytes: () => fileChars,
    needsRewrite: () => rewrite,
    droppedAtRead: () => droppedAtRead,
    close() {
      if (closed) return queue.then(() => {})
      closed = true
      filling = null
      return serial(async () => {
        await handle?.close()
        handle = null
      })
    },
  }
}
