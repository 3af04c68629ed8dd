import { LogOpenError } from './errors.js'
import { decode, type LogEntry, matchesSuppression, suppressionKey } from './log-format.js'
import { applyEventsInPlace } from './recipients.js'
import { applyReleaseInPlace } from './releases.js'
import { noteRecordLine, recordSize } from './size.js'
import { ProjectTally } from './tally.js'
import type { MessageRecord, Suppression } from './types.js'

export interface Replayed {
  records: MessageRecord[]
  suppressions: Suppression[]
  lines: number
  rewrite: boolean
  /** Records dropped to honour the limits, per project. */
  dropped: ProjectTally
}

export interface Replay {
  /** Takes the file's lines in order, the header first (see readLines). */
  line(bytes: Buffer, position: number, terminated: boolean): void
  result(): Replayed
}

type Limits = { maxRecords: number; maxBytes: number }
type NoteLine = (record: MessageRecord, line: { position: number; length: number } | null) => void
type Operation = Exclude<LogEntry, MessageRecord>

/**
 * Replays the lines after the header, one at a time as the file is read. A bad line in the
 * middle refuses the log; a torn last line is dropped. `noteLine` is told where a record's line
 * is when the line is exactly the record (`{…}` with nothing around it), and told `null` when
 * replay changes the record (events folded in), so that its line is no longer it.
 *
 * @example
 * const replay = createReplay(file, { maxRecords: 5000, maxBytes: Infinity }, warn, () => {})
 * await readLines(handle, replay.line)
 * replay.result().records
 */
export function createReplay(
  file: string,
  limits: Limits,
  warn: (message: string) => void,
  noteLine: NoteLine,
): Replay {
  const records = createLiveRecords(limits)
  // Insertion order is age: a suppression added again moves to the end.
  const suppressions = new Map<string, Suppression>()
  /** Lines seen, the header included: the next line's number is this plus one. */
  let index = 0
  let lines = 0
  // Without a final newline the last line was cut short by a crash, or is complete but
  // unterminated: either way the file is rewritten before the next append, which must start on
  // a fresh line.
  let rewrite = false

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
      if (terminated) throw invalidLine(file, i + 1, decoded)
      warn(
        `${file}: dropped a torn last line (line ${i + 1}, ${raw.length} characters); sendbox was probably stopped mid-write. The file will be repaired.`,
      )
      return
    }
    lines++
    if (!('op' in decoded)) {
      noteRecordLine(decoded, raw)
      // A record written before delivery states gets its recipients in memory: its line is no longer it.
      const exact = terminated && bytes[0] === 0x7b && bytes[bytes.length - 1] === 0x7d
      if (exact && decoded.recipients != null)
        noteLine(decoded, { position, length: bytes.length + 1 })
      records.add(decoded)
    } else applyOperation(decoded, records, suppressions, noteLine)
  }

  return {
    line,
    result: () => ({
      records: records.list(),
      suppressions: [...suppressions.values()],
      lines,
      rewrite,
      dropped: records.dropped(),
    }),
  }
}

const invalidLine = (file: string, line: number, problem: string) =>
  new LogOpenError(
    'log_invalid',
    file,
    `${file}, line ${line}: ${problem}. The file was left untouched; fix or delete that line, or use another --db file.`,
  )

/** Applies a line that is an operation (a delete, a clear, events, a release, a suppression change). */
function applyOperation(
  entry: Operation,
  records: LiveRecords,
  suppressions: Map<string, Suppression>,
  noteLine: NoteLine,
): void {
  if (entry.op === 'clear') return records.clear()
  if (entry.op === 'events' || entry.op === 'release') {
    // Of a message deleted or dropped since: nothing to apply them to.
    const record = records.get(entry.id)
    if (!record) return
    if (entry.op === 'events') applyEventsInPlace(record, entry.events)
    else applyReleaseInPlace(record, entry.release)
    return noteLine(record, null)
  }
  if (entry.op === 'suppress') {
    const { op: _op, ...suppression } = entry
    const key = suppressionKey(suppression.project, suppression.address)
    suppressions.delete(key)
    suppressions.set(key, suppression)
    return
  }
  if (entry.op === 'unsuppress') {
    for (const [key, kept] of suppressions)
      if (matchesSuppression(kept, entry)) suppressions.delete(key)
    return
  }
  for (const id of 'ids' in entry ? entry.ids : [entry.id]) records.forget(id)
}

type LiveRecords = ReturnType<typeof createLiveRecords>

/**
 * Records in arrival order; one is live while `live` maps its id to it. A repeated id replaces
 * the earlier record, at the new place. The oldest are dropped as they were while the log ran
 * (at every append past maxRecords), so a record deleted after that drop cannot bring the
 * dropped one back. `head` skips the dropped prefix: O(1) amortised per drop.
 */
function createLiveRecords({ maxRecords, maxBytes }: Limits) {
  let order: MessageRecord[] = []
  let head = 0
  const live = new Map<string, MessageRecord>()
  /** Bytes of the live records: the oldest go when it passes maxBytes, as they did at runtime. */
  let liveBytes = 0
  const dropped = new ProjectTally()
  const forget = (id: string) => {
    const record = live.get(id)
    if (record) liveBytes -= recordSize(record)
    live.delete(id)
  }
  return {
    get: (id: string) => live.get(id),
    forget,
    dropped: () => dropped,
    add(record: MessageRecord): void {
      forget(record.id)
      live.set(record.id, record)
      liveBytes += recordSize(record)
      order.push(record)
      // The newest record always stays, however large: the log at runtime kept it too.
      while (live.size > maxRecords || (liveBytes > maxBytes && live.size > 1)) {
        while (live.get(order[head]!.id) !== order[head]) head++
        const oldest = order[head++]!
        forget(oldest.id)
        dropped.add(oldest.project, 1)
      }
    },
    clear(): void {
      live.clear()
      liveBytes = 0
      order = []
      head = 0
    },
    /** The live records, oldest first. */
    list(): MessageRecord[] {
      const records: MessageRecord[] = []
      for (let i = head; i < order.length; i++)
        if (live.get(order[i]!.id) === order[i]) records.push(order[i]!)
      return records
    },
  }
}
