import { LogOpenError } from './errors.js'
import { decode, matchesSuppression, suppressionKey } from './log-format.js'
import { applyEventsInPlace } from './recipients.js'
import { applyReleaseInPlace } from './releases.js'
import { noteRecordLine, recordSize } from './size.js'
import type { MessageRecord, Suppression } from './types.js'

export interface Replayed {
  records: MessageRecord[]
  suppressions: Suppression[]
  lines: number
  rewrite: boolean
  dropped: number
}

export interface Replay {
  /** Takes the file's lines in order, the header first (see readLines). */
  line(bytes: Buffer, position: number, terminated: boolean): void
  result(): Replayed
}

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
    } else if (decoded.op === 'release') {
      const record = live.get(decoded.id)
      if (record) {
        applyReleaseInPlace(record, decoded.release)
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
