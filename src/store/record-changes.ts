import { compileFilter, isEmptyFilter } from './filter.js'
import type { JsonlAdapter } from './jsonl-adapter.js'
import type { LogData } from './log-format.js'
import type { LogWrites } from './log-writes.js'
import type { RecordIndex } from './record-index.js'
import { withEvents } from './recipients.js'
import { withRelease } from './releases.js'
import { recordSize } from './size.js'
import type { LogEntry } from './log-format.js'
import type { MessageFilter, MessageLog, MessageRecord } from './types.js'

export interface RecordChangesDeps {
  /** Null for a log in memory: changes apply at once. */
  adapter: Pick<JsonlAdapter, 'append' | 'derived'> | null
  data: LogData
  index: RecordIndex
  writes: Pick<LogWrites, 'settle' | 'compactIfWorthwhile'>
  /** Throws once the log is closed. */
  assertOpen(): void
}

/**
 * The log's changes to records: add (or replace), delete, clear, delivery events, releases. Each queues its
 * line before touching memory (memory and file change in the same order) and takes the change
 * back if the line is not written.
 *
 * Long because it is one object: five operations sharing the count of lines still queued, each
 * under twenty lines.
 *
 * @example
 * const changes = createRecordChanges({ adapter, data, index, writes, assertOpen })
 * await changes.append(record) // resolves once its line is written
 */
export function createRecordChanges(
  deps: RecordChangesDeps,
): Pick<MessageLog, 'append' | 'delete' | 'clear' | 'addEvents' | 'addRelease'> {
  const { adapter, data, index, writes } = deps
  /** Records added whose line is still queued: the newest ones; limits count without them. */
  const pending = { count: 0, bytes: 0 }

  /**
   * A record changed by one small line (`entry`) into `next`. `derived`: `next` is `record` with
   * only its status and recipients changed, so compaction may rebuild its line from the older one.
   */
  async function change(
    record: MessageRecord,
    entry: LogEntry,
    next: MessageRecord,
    derived: boolean,
  ): Promise<MessageRecord> {
    const written = adapter?.append([entry])
    if (derived) adapter?.derived(next, record)
    index.replace(record, next)
    // Not on disk: the record must not say otherwise.
    await writes.settle(written, () => index.get(record.id) === next && index.replace(next, record))
    writes.compactIfWorthwhile()
    return next
  }

  return {
    async append(record) {
      deps.assertOpen()
      // Serialise and queue the line before touching memory: memory and file change in the same order.
      const written = adapter?.append([record])
      const previous = index.add(record)
      const size = recordSize(record)
      pending.count++
      pending.bytes += size
      try {
        // A record of the same id, and the oldest past the limits, go once the line is written:
        // replay drops them only there, and an unwritten line must not have changed memory.
        await writes.settle(written, () => index.unadd(record, previous))
      } finally {
        pending.count--
        pending.bytes -= size
      }
      if (previous) index.retire(previous)
      index.dropOverflow(pending)
      writes.compactIfWorthwhile()
      return index.get(record.id) !== undefined
    },

    async delete(id) {
      deps.assertOpen()
      const record = index.get(id)
      if (!record) return false
      const written = adapter?.append([{ op: 'delete', id }])
      index.remove(record)
      await writes.settle(written, () => index.reinsert([record]))
      writes.compactIfWorthwhile()
      return true
    },

    async clear(filter?: MessageFilter) {
      deps.assertOpen()
      const match = isEmptyFilter(filter) ? null : compileFilter(filter)
      const kept: MessageRecord[] = []
      const removed: MessageRecord[] = []
      for (const record of index.all()) (match && !match(record) ? kept : removed).push(record)
      if (removed.length === 0) return { count: 0, byProject: {} }
      // One line for the whole clear: a crash keeps all of it or none of it.
      const written = adapter?.append([
        match ? { op: 'delete', ids: removed.map((r) => r.id) } : { op: 'clear' },
      ])
      data.records = index.keepOnly(kept)
      await writes.settle(written, () => index.reinsert(removed))
      writes.compactIfWorthwhile()
      return { count: removed.length, byProject: countByProject(removed) }
    },

    async addEvents(id, events) {
      deps.assertOpen()
      const record = index.get(id)
      if (!record || events.length === 0) return record
      const entry: LogEntry = { op: 'events', id, events: events.slice() }
      return change(record, entry, withEvents(record, events), true)
    },

    async addRelease(id, release) {
      deps.assertOpen()
      const record = index.get(id)
      if (!record) return undefined
      // Not derived: the older line has no `releases`, so compaction writes this record whole.
      return change(record, { op: 'release', id, release }, withRelease(record, release), false)
    },
  }
}

/**
 * How many of the records are each project's.
 *
 * @example countByProject([{ project: 'acme' }, { project: 'acme' }]) // { acme: 2 }
 */
function countByProject(
  records: readonly Pick<MessageRecord, 'project'>[],
): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const { project } of records) counts[project] = (counts[project] ?? 0) + 1
  return counts
}
