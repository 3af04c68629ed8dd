import path from 'node:path'
import { Low } from 'lowdb'
import { LogOpenError, unreadable } from './errors.js'
import { compileFilter, isEmptyFilter } from './filter.js'
import {
  createJsonlAdapter,
  matchesSuppression,
  suppressionKey,
  type JsonlAdapter,
  type LogData,
} from './jsonl-adapter.js'
import { acquireLock, type LogLock } from './lock.js'
import { nodeFs } from './log-fs.js'
import { prepareFolder, realLogPath, removeStaleTempFiles } from './log-folder.js'
import { createRecordIndex, type RecordLimits } from './record-index.js'
import { withEvents } from './recipients.js'
import type {
  MessageFilter,
  MessageLog,
  MessageLogOptions,
  MessageRecord,
  Suppression,
} from './types.js'

export const DEFAULT_MAX_MESSAGES = 5000
/** 5000 messages of up to ~50 KB each; an ordinary email is a few KB. */
export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024
/** Runtime compaction waits for this many dead lines, so a small log does not churn. */
export const MIN_DEAD_LINES = 100

interface Backing {
  adapter: JsonlAdapter
  db: Low<LogData>
  lock: LogLock
}

/**
 * Opens the log: takes the lock, replays the file, drops what exceeds `maxMessages`, and
 * compacts when the file holds anything dead or needs repair. Throws `LogOpenError` (file
 * untouched, lock released) when the file is not a sendbox log, is locked, or cannot be read.
 */
export async function openMessageLog(options: MessageLogOptions): Promise<MessageLog> {
  const maxMessages = options.maxMessages ?? DEFAULT_MAX_MESSAGES
  if (!(maxMessages >= 1))
    throw new RangeError(`maxMessages must be at least 1, got ${maxMessages}`)
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  if (!(maxBytes >= 1)) throw new RangeError(`maxBytes must be at least 1, got ${maxBytes}`)
  const limits = { maxMessages, maxBytes }
  const warn = options.warn ?? ((message: string) => console.warn(message))
  if (options.file === null)
    return createLog(null, { records: [], suppressions: [] }, limits, 0, warn)

  const fs = options.fs ?? nodeFs
  let file = path.resolve(options.file)
  try {
    await prepareFolder(options.file, fs)
    // The lock and the writes go to the real path: a second spelling of a held log is refused.
    file = await realLogPath(options.file, fs)
  } catch (error) {
    throw unreadable(file, 'create the folder of', error)
  }
  const lock = await acquireLock(file, warn, fs)
  try {
    await removeStaleTempFiles(file, fs)
    const adapter = createJsonlAdapter(file, { warn, maxRecords: maxMessages, maxBytes, fs })
    const db = new Low<LogData>(adapter, { records: [], suppressions: [] })
    await db.read()
    const log = createLog({ adapter, db, lock }, db.data, limits, adapter.droppedAtRead(), warn)
    if (adapter.needsRewrite() || adapter.lines() > log.count() + db.data.suppressions.length) {
      try {
        await db.write()
      } catch (error) {
        throw unreadable(file, 'rewrite', error)
      }
    } else {
      await adapter.open().catch((error: unknown) => {
        throw unreadable(file, 'open for writing', error)
      })
    }
    return log
  } catch (error) {
    await lock.release()
    throw error instanceof LogOpenError ? error : unreadable(file, 'open', error)
  }
}

function createLog(
  backing: Backing | null,
  data: LogData,
  limits: RecordLimits,
  droppedAtOpen: number,
  warn: (message: string) => void,
): MessageLog {
  const adapter = backing?.adapter ?? null
  const index = createRecordIndex(data.records, limits)
  // data.suppressions is what compaction writes (oldest first); the map finds one by key.
  const suppressionsByKey = new Map<string, Suppression>()
  for (const entry of data.suppressions)
    suppressionsByKey.set(suppressionKey(entry.project, entry.address), entry)
  let closing: Promise<void> | null = null

  const dead = () => (adapter ? adapter.lines() - index.live() - data.suppressions.length : 0)

  function assertOpen(): void {
    if (closing !== null)
      throw new Error(`The message log ${adapter?.file ?? '(memory)'} is closed.`)
  }

  /** Compaction, serialised by the adapter behind whatever is already queued. */
  function compact(): Promise<void> {
    data.records = index.normalise()
    return backing!.db.write()
  }

  /**
   * Rewrite once dead lines outweigh live ones in bytes (and there are enough of them): each
   * rewrite is paid for by as many bytes appended. Counting lines instead made every small
   * delivery-event line weigh as much as a whole message, and the log was rewritten twice as often.
   */
  function compactIfWorthwhile(): void {
    if (!adapter || closing !== null) return
    if (dead() >= MIN_DEAD_LINES && adapter.bytes() - index.bytes() > index.bytes()) {
      compact().catch((error: unknown) =>
        warn(`Could not compact the message log ${adapter.file}: ${(error as Error).message}`),
      )
    }
  }

  return {
    file: adapter?.file ?? null,

    async append(record) {
      assertOpen()
      // Serialise and queue the line before touching memory: memory and file change in the same order.
      const written = adapter?.append([record])
      index.add(record)
      index.dropOverflow()
      if (!written) return
      try {
        await written
      } catch (error) {
        // Not on disk, so not acknowledged: it must not show up in the inbox either.
        if (index.get(record.id) === record) index.remove(record)
        throw error
      }
      compactIfWorthwhile()
    },

    list: (filter) => index.list(filter),

    get: (id) => index.get(id),

    latest: (filter) => index.latest(filter),

    async delete(id) {
      assertOpen()
      const record = index.get(id)
      if (!record) return false
      const written = adapter?.append([{ op: 'delete', id }])
      index.remove(record)
      await written
      compactIfWorthwhile()
      return true
    },

    async clear(filter?: MessageFilter) {
      assertOpen()
      let written: Promise<void> | undefined
      let count: number
      if (isEmptyFilter(filter)) {
        count = index.live()
        if (count === 0) return 0
        written = adapter?.append([{ op: 'clear' }])
        data.records = index.keepOnly([])
      } else {
        const match = compileFilter(filter)
        const kept: MessageRecord[] = []
        const ids: string[] = []
        for (const record of index.all()) {
          if (match(record)) ids.push(record.id)
          else kept.push(record)
        }
        count = ids.length
        if (count === 0) return 0
        // One line for the whole clear: a crash keeps all of it or none of it.
        written = adapter?.append([{ op: 'delete', ids }])
        data.records = index.keepOnly(kept)
      }
      await written
      compactIfWorthwhile()
      return count
    },

    async addEvents(id, events) {
      assertOpen()
      const record = index.get(id)
      if (!record || events.length === 0) return record
      const written = adapter?.append([{ op: 'events', id, events: events.slice() }])
      const next = withEvents(record, events)
      adapter?.derived(next, record)
      index.replace(record, next)
      try {
        await written
      } catch (error) {
        // Not on disk: the states must not say otherwise.
        if (index.get(id) === next) index.replace(next, record)
        throw error
      }
      compactIfWorthwhile()
      return next
    },

    suppression: (project, address) => suppressionsByKey.get(suppressionKey(project, address)),

    suppressions(filter = {}) {
      const found: Suppression[] = []
      for (let i = data.suppressions.length - 1; i >= 0; i--)
        if (matchesSuppression(data.suppressions[i]!, filter)) found.push(data.suppressions[i]!)
      return found
    },

    async suppress(entry) {
      assertOpen()
      const stored: Suppression = { ...entry, address: entry.address.toLowerCase() }
      const written = adapter?.append([{ op: 'suppress', ...stored }])
      const key = suppressionKey(stored.project, stored.address)
      const previous = suppressionsByKey.get(key)
      if (previous) data.suppressions.splice(data.suppressions.indexOf(previous), 1)
      data.suppressions.push(stored)
      suppressionsByKey.set(key, stored)
      await written
      compactIfWorthwhile()
    },

    async unsuppress(filter = {}) {
      assertOpen()
      const removed = data.suppressions.filter((entry) => matchesSuppression(entry, filter))
      if (removed.length === 0) return []
      const written = adapter?.append([
        {
          op: 'unsuppress',
          ...(filter.address !== undefined ? { address: filter.address.toLowerCase() } : {}),
          ...(filter.project !== undefined ? { project: filter.project } : {}),
        },
      ])
      data.suppressions = data.suppressions.filter((entry) => !removed.includes(entry))
      for (const entry of removed)
        suppressionsByKey.delete(suppressionKey(entry.project, entry.address))
      await written
      compactIfWorthwhile()
      return removed.reverse()
    },

    count: index.live,

    dropped: () => droppedAtOpen + index.dropped(),

    bytes: index.bytes,

    close() {
      return (closing ??= (async () => {
        if (!backing) return
        try {
          // The next open would rewrite a file with dead lines anyway; doing it now keeps starts fast.
          if (dead() > 0)
            await compact().catch((error: unknown) =>
              warn(
                `Could not compact the message log ${backing.adapter.file}: ${(error as Error).message}`,
              ),
            )
          await backing.adapter.close()
        } finally {
          await backing.lock.release()
        }
      })())
    },
  }
}
