import { randomBytes } from 'node:crypto'
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import type { Adapter } from 'lowdb'
import { LogOpenError, errnoCode, unreadable } from './errors.js'
import { READ_CHUNK, readLines } from './lines.js'
import { holdRecordLine, releaseRecordLines } from './record-json.js'
import { noteRecordLine, recordSize } from './size.js'
import { applyEventsInPlace } from './recipients.js'
import type { MessageRecord, RecipientEventEntry, Suppression, SuppressionFilter } from './types.js'

/**
 * A lowdb Adapter over an append-only JSON Lines file.
 *
 *   line 1   {"sendbox":"log","version":1}
 *   then     a message record (has `id` and `status`), or a tombstone:
 *            {"op":"delete","id":"…"}        one message deleted
 *            {"op":"delete","ids":["…",…]}   a filtered clear: one line, so it lands whole or not at all
 *            {"op":"clear"}                  every message before it is gone (suppressions stay)
 *            {"op":"events","id":"…","events":[{"recipient":0,"type":"delivered","at":"…"}]}
 *                                            a message's delivery events (CONTRACT §7), folded into its record
 *            {"op":"suppress","address":"…","project":"…","reason":"bounced","createdAt":"…"}
 *            {"op":"unsuppress","address"?:"…","project"?:"…"}   removes the matching suppressions
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

export const LOG_HEADER = '{"sendbox":"log","version":1}'

export type Tombstone =
  | { op: 'delete'; id: string }
  | { op: 'delete'; ids: string[] }
  | { op: 'clear' }
export type EventsEntry = { op: 'events'; id: string; events: RecipientEventEntry[] }
export type SuppressEntry = { op: 'suppress' } & Suppression
export type UnsuppressEntry = { op: 'unsuppress' } & SuppressionFilter
export type LogEntry = MessageRecord | Tombstone | EventsEntry | SuppressEntry | UnsuppressEntry

/** lowdb's data: the live records in arrival order, and the suppressions, oldest first. */
export interface LogData {
  records: MessageRecord[]
  suppressions: Suppression[]
}

/** One suppression per project and address. */
export const suppressionKey = (project: string, address: string): string =>
  `${project}\u0000${address.toLowerCase()}`

/** Whether a suppression is one a removal with this filter takes. */
export function matchesSuppression(entry: Suppression, filter: SuppressionFilter): boolean {
  return (
    (filter.project === undefined || entry.project === filter.project) &&
    (filter.address === undefined || entry.address === filter.address.toLowerCase())
  )
}

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
  /** Waits for everything queued, then closes the handle. Later calls to append/write reject. */
  close(): Promise<void>
}

/** The log holds sign-in links and codes: owner-only when sendbox creates it. */
const FILE_MODE = 0o600

/** Compaction writes in slices of about this many bytes, to bound memory. */
const WRITE_SLICE = 1 << 20

interface Batch {
  text: string
  count: number
  /** One per line of `text`: the record it is, or null for a tombstone or other operation. */
  records: (MessageRecord | null)[]
  written: Promise<void>
}

/** Where a record's line is: which file (a compaction makes a new one) and which bytes, its `\n` included. */
interface Span {
  file: number
  position: number
  length: number
}

export interface JsonlAdapterOptions {
  warn: (message: string) => void
  /** Replay keeps at most this many records, dropping the oldest as the log did when it ran. */
  maxRecords?: number
  /** …and at most this many bytes of records (their JSON lines), likewise. */
  maxBytes?: number
}

export function createJsonlAdapter(file: string, options: JsonlAdapterOptions): JsonlAdapter {
  let handle: FileHandle | null = null
  /** Bytes in the file, so a failed append can be cut back off instead of leaving half a line. */
  let size = 0
  let lineCount = 0
  /** `size` plus what is queued: the file's length once everything queued has landed. */
  let fileChars = 0
  let rewrite = false
  let droppedAtRead = 0
  let closed = false
  /** The batch still taking lines; detached when its write starts (group commit). */
  let filling: Batch | null = null
  let queue: Promise<unknown> = Promise.resolve()
  /** Counts the files this adapter has had: a span of an earlier one is stale. */
  let generation = 0
  /** Where each record's line is in the file: a line that is the record (as sendbox wrote it, or as read). */
  const spans = new WeakMap<MessageRecord, Span>()
  /** A record changed by delivery events → the version it was made from, until its own line is written. */
  const parents = new WeakMap<MessageRecord, MessageRecord>()

  function serial<T>(op: () => Promise<T>): Promise<T> {
    const result = queue.then(op)
    queue = result.catch(() => {})
    return result
  }

  function assertOpen(): void {
    if (closed) throw new Error(`The message log ${file} is closed.`)
  }

  async function read(): Promise<LogData> {
    let input: FileHandle
    try {
      input = await open(file, 'r')
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw unreadable(file, 'read', error)
      return fresh()
    }
    const replay = createReplay(
      file,
      { maxRecords: options.maxRecords ?? Infinity, maxBytes: options.maxBytes ?? Infinity },
      options.warn,
      (record, line) => {
        if (line) spans.set(record, { file: generation, ...line })
        else spans.delete(record)
      },
    )
    try {
      const { size: total } = await input.stat()
      if (total === 0) return fresh()
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
    fileChars = size
    const replayed = replay.result()
    lineCount = replayed.lines
    rewrite = replayed.rewrite
    droppedAtRead = replayed.dropped
    return { records: replayed.records, suppressions: replayed.suppressions }
  }

  function fresh(): LogData {
    rewrite = true
    lineCount = 0
    fileChars = 0
    return { records: [], suppressions: [] }
  }

  function append(entries: readonly LogEntry[]): Promise<void> {
    assertOpen()
    // Lines arriving while a write is in flight join the next batch: one write(2) for all of them.
    let batch = filling
    if (!batch) {
      const b: Batch = { text: '', count: 0, records: [], written: Promise.resolve() }
      b.written = serial(() => flush(b))
      batch = filling = b
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
    const records = batch.records.filter((record) => record !== null)
    try {
      handle ??= await open(file, 'a+', FILE_MODE)
      const before = size
      const bytes = Buffer.from(batch.text, 'utf8')
      try {
        size += await writeAll(handle, bytes)
      } catch (error) {
        lineCount -= batch.count
        fileChars -= batch.text.length
        // Cut a partial line off, so a later append does not leave garbage in the middle of the log.
        await handle.truncate(before).catch(() => {})
        throw error
      }
      // Where each record's line landed, for compaction to copy (a JSON line holds no raw \n).
      if (records.length > 0) {
        let start = 0
        for (const record of batch.records) {
          const end = bytes.indexOf(10, start) + 1
          if (record)
            spans.set(record, { file: generation, position: before + start, length: end - start })
          start = end
        }
      }
    } finally {
      releaseRecordLines(records)
    }
  }

  /** Compaction. The records are captured now, so lines appended after this call go after it. */
  function write(data: LogData): Promise<void> {
    assertOpen()
    const records = data.records.slice()
    const suppressions = (data.suppressions ?? []).slice()
    // Lines already batched were in memory before this snapshot: they go to the old file,
    // which the rename then replaces. Anything appended from here on must follow the rename.
    filling = null
    const linesBefore = lineCount
    const live = records.length + suppressions.length
    lineCount = live
    // The new file's length is known once it is written; appends from now on add to it.
    const charsBefore = fileChars
    fileChars = 0
    return serial(() => compact(records, suppressions)).catch((error: unknown) => {
      lineCount += linesBefore - live
      fileChars += charsBefore
      throw error
    })
  }

  async function compact(records: MessageRecord[], suppressions: Suppression[]): Promise<void> {
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    // Opened for appending: after the rename this same handle is the log's append handle,
    // so there is no window in which the log has no handle or a handle on the old inode.
    // Readable too: the next compaction copies lines out of it.
    const next = await open(temp, 'ax+', FILE_MODE)
    // The lines to copy are in the current file: read through the append handle (the very file
    // they were written to, wherever its name points now), or, at open, before any append,
    // through a handle of its own on the file just read.
    let source: FileHandle | null = handle
    const ownSource = source === null
    const moved: [MessageRecord, Span][] = []
    let written: number
    try {
      if (ownSource) source = await open(file, 'r').catch(() => null)
      // The new file keeps the old one's mode: a chmod the user made survives compaction.
      const previousMode = await stat(file).then(
        (s) => s.mode & 0o7777,
        () => null,
      )
      if (previousMode !== null && previousMode !== FILE_MODE) await next.chmod(previousMode)
      const out = sliceWriter(next)
      const lines = source ? lineReader(source) : null
      await out.text(`${LOG_HEADER}\n`)
      for (const suppression of suppressions)
        await out.text(`${JSON.stringify({ op: 'suppress', ...suppression })}\n`)
      for (const record of records) {
        const position = out.length
        const span = spans.get(record)
        const bytes =
          span?.file === generation ? await lines?.line(span.position, span.length) : undefined
        const pieces = bytes ? [bytes] : lines ? await withNewStates(record, lines) : undefined
        if (pieces)
          for (const piece of pieces)
            await (typeof piece === 'string' ? out.text(piece) : out.bytes(piece))
        else await out.text(`${JSON.stringify(record)}\n`)
        moved.push([record, { file: generation + 1, position, length: out.length - position }])
      }
      written = await out.end()
      await next.sync()
      await rename(temp, file)
    } catch (error) {
      await next.close().catch(() => {})
      await unlink(temp).catch(() => {})
      throw error
    } finally {
      if (ownSource) await source?.close().catch(() => {})
    }
    await syncDirectory(path.dirname(file))
    generation++
    for (const [record, span] of moved) {
      spans.set(record, span)
      parents.delete(record)
    }
    fileChars += written
    const previous = handle
    handle = next
    size = written
    rewrite = false
    await previous?.close().catch(() => {})
  }

  /**
   * The line of a record changed by delivery events, from the line of a version before it still
   * in the file: `{"id":…,"status":…,` and `,"recipients":[…]}` replaced, the rest copied. Only
   * when that line is exactly in that shape (as sendbox writes records); else undefined. In
   * three pieces, to be written in order before the next read of `lines`.
   */
  async function withNewStates(
    record: MessageRecord,
    lines: ReturnType<typeof lineReader>,
  ): Promise<[string, Buffer, string] | undefined> {
    let base = parents.get(record)
    while (base && spans.get(base)?.file !== generation) base = parents.get(base)
    if (!base || base.id !== record.id) return undefined
    const { position, length } = spans.get(base)!
    const line = await lines.line(position, length)
    if (!line) return undefined
    const head = Buffer.from(
      `{"id":${JSON.stringify(base.id)},"status":${JSON.stringify(base.status)},`,
      'utf8',
    )
    const tail = Buffer.from(`,"recipients":${JSON.stringify(base.recipients)}}\n`, 'utf8')
    if (
      line.length < head.length + tail.length ||
      !line.subarray(0, head.length).equals(head) ||
      !line.subarray(line.length - tail.length).equals(tail)
    )
      return undefined
    return [
      `{"id":${JSON.stringify(record.id)},"status":${JSON.stringify(record.status)},`,
      line.subarray(head.length, line.length - tail.length),
      `,"recipients":${JSON.stringify(record.recipients)}}\n`,
    ]
  }

  return {
    file,
    read,
    write,
    append,
    derived(next, from) {
      parents.set(next, from)
    },
    open: () =>
      serial(async () => {
        handle ??= await open(file, 'a+', FILE_MODE)
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

function checkHeader(file: string, firstLine: string): void {
  let parsed: unknown = null
  try {
    parsed = JSON.parse(firstLine)
  } catch {
    // not JSON: not ours
  }
  const header = (parsed ?? {}) as { sendbox?: unknown; version?: unknown }
  if (header.sendbox !== 'log') {
    throw new LogOpenError(
      'log_invalid',
      file,
      `${file} is not a sendbox message log: its first line must be ${LOG_HEADER}. ` +
        'The file was left untouched; point --db at another file (or move this one away), or use --memory.',
    )
  }
  if (header.version !== 1) {
    throw new LogOpenError(
      'log_invalid',
      file,
      `${file} is a sendbox log of version ${JSON.stringify(header.version)}, which this sendbox cannot read (it reads version 1). ` +
        'The file was left untouched; upgrade sendbox, or use another --db file.',
    )
  }
}

interface Replayed {
  records: MessageRecord[]
  suppressions: Suppression[]
  lines: number
  rewrite: boolean
  dropped: number
}

interface Replay {
  /** Takes the file's lines in order, the header first (see readLines). */
  line(bytes: Buffer, position: number, terminated: boolean): void
  result(): Replayed
}

/**
 * Replays the lines after the header, one at a time as the file is read. A bad line in the
 * middle refuses the log; a torn last line is dropped. `noteLine` is told where a record's line
 * is when the line is exactly the record (`{…}` with nothing around it), and told `null` when
 * replay changes the record (events folded in), so that its line is no longer it.
 */
function createReplay(
  file: string,
  { maxRecords, maxBytes }: { maxRecords: number; maxBytes: number },
  warn: (message: string) => void,
  noteLine: (record: MessageRecord, line: { position: number; length: number } | null) => void,
): Replay {
  // Records in arrival order; one is live while `live` maps its id to it. A repeated id
  // replaces the earlier record, at the new place. The oldest are dropped as they were while the
  // log ran (at every append past maxRecords), so a record deleted after that drop cannot
  // bring the dropped one back. `head` skips the dropped prefix: O(1) amortised per drop.
  let order: MessageRecord[] = []
  let head = 0
  const live = new Map<string, MessageRecord>()
  // Insertion order is age: a suppression added again moves to the end.
  const suppressions = new Map<string, Suppression>()
  /** Lines seen, the header included: the next line's number is this plus one. */
  let index = 0
  let lines = 0
  let dropped = 0
  // Without a final newline the last line was cut short by a crash, or is complete but
  // unterminated: either way the file is rewritten before the next append, which must start on
  // a fresh line.
  let rewrite = false
  /** Bytes of the live records: the oldest go when it passes maxBytes, as they did at runtime. */
  let liveBytes = 0
  const forget = (id: string) => {
    const record = live.get(id)
    if (record) liveBytes -= recordSize(record)
    live.delete(id)
  }

  function line(bytes: Buffer, position: number, terminated: boolean): void {
    if (!terminated) rewrite = true
    const i = index++
    if (i === 0) return // the header, checked before reading
    const raw = bytes.toString('utf8')
    if (raw.trim() === '') {
      lines++ // harmless, but dead: compaction drops it
      return
    }
    const decoded = decode(raw)
    if (typeof decoded === 'string') {
      if (!terminated) {
        warn(
          `${file}: dropped a torn last line (line ${i + 1}, ${raw.length} characters); sendbox was probably stopped mid-write. The file will be repaired.`,
        )
        return
      }
      throw new LogOpenError(
        'log_invalid',
        file,
        `${file}, line ${i + 1}: ${decoded}. The file was left untouched; fix or delete that line, or use another --db file.`,
      )
    }
    lines++
    if (!('op' in decoded)) {
      noteRecordLine(decoded, raw)
      // A record written before delivery states gets its recipients in memory: its line is no longer it.
      if (
        terminated &&
        decoded.recipients != null &&
        bytes[0] === 0x7b &&
        bytes[bytes.length - 1] === 0x7d
      )
        noteLine(decoded, { position, length: bytes.length + 1 })
      forget(decoded.id)
      live.set(decoded.id, decoded)
      liveBytes += recordSize(decoded)
      order.push(decoded)
      // The newest record always stays, however large: the log at runtime kept it too.
      while (live.size > maxRecords || (liveBytes > maxBytes && live.size > 1)) {
        while (live.get(order[head]!.id) !== order[head]) head++
        forget(order[head++]!.id)
        dropped++
      }
    } else if (decoded.op === 'clear') {
      live.clear()
      liveBytes = 0
      order = []
      head = 0
    } else if (decoded.op === 'events') {
      // Events of a message deleted or dropped since: nothing to apply them to.
      const record = live.get(decoded.id)
      if (record) {
        applyEventsInPlace(record, decoded.events)
        noteLine(record, null)
      }
    } else if (decoded.op === 'suppress') {
      const { op: _op, ...suppression } = decoded
      const key = suppressionKey(suppression.project, suppression.address)
      suppressions.delete(key)
      suppressions.set(key, suppression)
    } else if (decoded.op === 'unsuppress') {
      for (const [key, entry] of suppressions)
        if (matchesSuppression(entry, decoded)) suppressions.delete(key)
    } else if ('ids' in decoded) {
      for (const id of decoded.ids) forget(id)
    } else {
      forget(decoded.id)
    }
  }

  function result(): Replayed {
    const records: MessageRecord[] = []
    for (let i = head; i < order.length; i++)
      if (live.get(order[i]!.id) === order[i]) records.push(order[i]!)
    return { records, suppressions: [...suppressions.values()], lines, rewrite, dropped }
  }

  return { line, result }
}

/** A log entry, or why the line is not one. */
function decode(raw: string): LogEntry | string {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'not a JSON object'
  const entry = value as Record<string, unknown>
  if ('op' in entry) {
    if (entry.op === 'clear') return { op: 'clear' }
    if (entry.op === 'delete' && typeof entry.id === 'string') return { op: 'delete', id: entry.id }
    if (
      entry.op === 'delete' &&
      Array.isArray(entry.ids) &&
      entry.ids.every((id) => typeof id === 'string')
    )
      return { op: 'delete', ids: entry.ids as string[] }
    if (
      entry.op === 'events' &&
      typeof entry.id === 'string' &&
      Array.isArray(entry.events) &&
      entry.events.every(isEventEntry)
    )
      return entry as unknown as EventsEntry
    if (
      entry.op === 'suppress' &&
      typeof entry.address === 'string' &&
      typeof entry.project === 'string' &&
      typeof entry.reason === 'string' &&
      typeof entry.createdAt === 'string'
    )
      return entry as unknown as SuppressEntry
    if (
      entry.op === 'unsuppress' &&
      isOptionalString(entry.address) &&
      isOptionalString(entry.project)
    )
      return entry as unknown as UnsuppressEntry
    return `unknown log operation ${JSON.stringify(entry.op)}`
  }
  if (typeof entry.id !== 'string' || typeof entry.status !== 'string')
    return 'neither a message (id, status) nor a tombstone (op)'
  return entry as unknown as MessageRecord
}

function isEventEntry(value: unknown): boolean {
  const event = value as { recipient?: unknown; type?: unknown; at?: unknown } | null
  return (
    typeof event === 'object' &&
    event !== null &&
    Number.isInteger(event.recipient) &&
    typeof event.type === 'string' &&
    typeof event.at === 'string'
  )
}

const isOptionalString = (value: unknown): boolean =>
  value === undefined || typeof value === 'string'

/** Writes every byte: a write(2) on a regular file may, rarely, write less than asked. */
async function writeAll(handle: FileHandle, bytes: Buffer): Promise<number> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null)
    offset += bytesWritten
  }
  return bytes.length
}

/** A new file written in slices of about WRITE_SLICE bytes; `length` counts the bytes given so far. */
function sliceWriter(handle: FileHandle) {
  const slice = Buffer.allocUnsafe(WRITE_SLICE)
  let filled = 0
  let written = 0
  const flush = async () => {
    if (filled > 0) written += await writeAll(handle, slice.subarray(0, filled))
    filled = 0
  }
  const writer = {
    length: 0,
    /** Takes a copy (or writes it before returning): `bytes` may be reused once this resolves. */
    async bytes(bytes: Buffer): Promise<number> {
      if (filled + bytes.length > slice.length) await flush()
      if (bytes.length > slice.length) written += await writeAll(handle, bytes)
      else filled += bytes.copy(slice, filled)
      writer.length += bytes.length
      return bytes.length
    },
    async text(text: string): Promise<number> {
      const length = Buffer.byteLength(text, 'utf8')
      if (length > slice.length - filled) return writer.bytes(Buffer.from(text, 'utf8'))
      filled += slice.write(text, filled, 'utf8')
      writer.length += length
      return length
    },
    /** Writes what is left; the file's length. */
    async end(): Promise<number> {
      await flush()
      return written
    },
  }
  return writer
}

/**
 * Lines read back from a file by position, a window of READ_CHUNK bytes at a time: the live
 * lines a compaction copies come in file order, so each window serves many of them.
 */
function lineReader(source: FileHandle) {
  let window = Buffer.alloc(0)
  /** The window holds the file's bytes [start, start + filled). */
  let start = 0
  let filled = 0
  let failed = false
  return {
    /**
     * The `length` bytes at `position` (a line, its `\n` included), valid until the next call;
     * undefined unless they look like a record's line (`{…}\n`), as when the file was cut
     * short, or when it cannot be read (the record is serialised instead).
     */
    async line(position: number, length: number): Promise<Buffer | undefined> {
      if (failed) return undefined
      if (position < start || position + length > start + filled) {
        if (window.length < length) window = Buffer.allocUnsafe(Math.max(length, READ_CHUNK))
        start = position
        filled = 0
        try {
          while (filled < window.length) {
            const { bytesRead } = await source.read(
              window,
              filled,
              window.length - filled,
              start + filled,
            )
            if (bytesRead === 0) break
            filled += bytesRead
          }
        } catch {
          failed = true
          return undefined
        }
        if (length > filled) return undefined
      }
      const bytes = window.subarray(position - start, position - start + length)
      return length >= 3 &&
        bytes[0] === 0x7b &&
        bytes[length - 2] === 0x7d &&
        bytes[length - 1] === 0x0a
        ? bytes
        : undefined
    },
  }
}

/** Makes a rename durable. Best effort: some platforms (Windows) cannot open a directory. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch {
    // the rename itself is atomic; only its durability across a power cut is at stake
  } finally {
    await handle?.close().catch(() => {})
  }
}
