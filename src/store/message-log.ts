import path from 'node:path'
import { Low } from 'lowdb'
import { LogOpenError, isLogWriteError, unreadable } from './errors.js'
import { compileFilter, isEmptyFilter } from './filter.js'
import { createJsonlAdapter, type JsonlAdapter, type LogData } from './jsonl-adapter.js'
import { acquireLock, type LogLock } from './lock.js'
import { nodeFs } from './log-fs.js'
import { prepareFolder, realLogPath, removeStaleTempFiles } from './log-folder.js'
import { createLogHealth } from './log-health.js'
import { createRecordIndex, type RecordLimits } from './record-index.js'
import { recordSize } from './size.js'
import { createSuppressionList } from './suppression-list.js'
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
    return createLog(null, { records: [], suppressions: [] }, limits, 0, { ...options, warn })

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
    const log = createLog({ adapter, db, lock }, db.data, limits, adapter.droppedAtRead(), {
      ...options,
      fs,
      warn,
    })
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

/**
 * Gives the adapter the live memory and a way to re-create a removed folder (owner-only, with
 * its .gitignore) and the lock; starts the idle check. Returns the check's timer.
 */
function attachBacking(
  { adapter, lock }: Backing,
  snapshot: () => LogData,
  health: ReturnType<typeof createLogHealth>,
  options: Pick<MessageLogOptions, 'checkIntervalMs' | 'fs'>,
): NodeJS.Timeout {
  adapter.source(snapshot, async () => {
    await prepareFolder(adapter.file, options.fs)
    await lock.renew()
  })
  const checker = setInterval(() => {
    adapter.verify().then(
      (rewritten) => rewritten && health.written(),
      (error: unknown) => health.failed(error),
    )
  }, options.checkIntervalMs ?? CHECK_INTERVAL_MS)
  // A check must never keep a process alive that has nothing else to do.
  checker.unref()
  return checker
}

/** How often an idle log checks that its file is still there. Two stat calls (~5 µs) every 2 s
 * cost nothing measurable, and a log removed while nothing is sent (`git clean -fdx`) is back
 * on disk within 2 s, narrowing the window in which a crash would lose what only memory holds. */
export const CHECK_INTERVAL_MS = 2000

function createLog(
  backing: Backing | null,
  data: LogData,
  limits: RecordLimits,
  droppedAtOpen: number,
  options: Pick<MessageLogOptions, 'onHealth' | 'checkIntervalMs' | 'fs'> & {
    warn: (message: string) => void
  },
): MessageLog {
  const { warn } = options
  const adapter = backing?.adapter ?? null
  const index = createRecordIndex(data.records, limits)
  const suppressions = createSuppressionList(data)
  const health = createLogHealth(adapter?.file ?? null, warn, options.onHealth)
  /** Records added whose line is still queued: the newest ones; limits count without them. */
  const pending = { count: 0, bytes: 0 }
  let closing: Promise<void> | null = null

  const dead = () => (adapter ? adapter.lines() - index.live() - data.suppressions.length : 0)

  function assertOpen(): void {
    if (closing !== null)
      throw new Error(`The message log ${adapter?.file ?? '(memory)'} is closed.`)
  }

  /**
   * Waits for a change's line. Memory changed when the line was queued (so memory and file
   * change in the same order); if the line is not written, `undo` takes the change back and the
   * caller gets the error: nothing unwritten is acknowledged, and memory stays what the file
   * says. The wait is registered when the change is made, so the undos of one failed batch run
   * in the order of the changes, before any caller hears of it.
   */
  async function settle(written: Promise<void> | undefined, undo: () => void): Promise<void> {
    if (!written) return
    try {
      await written
    } catch (error) {
      undo()
      health.failed(error)
      throw error
    }
    health.written()
  }

  const checker = backing
    ? attachBacking(
        backing,
        () => {
          data.records = index.normalise()
          return data
        },
        health,
        options,
      )
    : null

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
      compact().then(
        () => health.written(),
        (error: unknown) => {
          if (isLogWriteError(error)) health.failed(error)
          else
            warn(`Could not compact the message log ${adapter.file}: ${(error as Error).message}`)
        },
      )
    }
  }

  return {
    file: adapter?.file ?? null,

    async append(record) {
      assertOpen()
      // Serialise and queue the line before touching memory: memory and file change in the same order.
      const written = adapter?.append([record])
      const previous = index.add(record)
      const size = recordSize(record)
      pending.count++
      pending.bytes += size
      try {
        // A record of the same id, and the oldest past the limits, go once the line is written:
        // replay drops them only there, and an unwritten line must not have changed memory.
        await settle(written, () => index.unadd(record, previous))
      } finally {
        pending.count--
        pending.bytes -= size
      }
      if (previous) index.retire(previous)
      index.dropOverflow(pending)
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
      await settle(written, () => index.reinsert([record]))
      compactIfWorthwhile()
      return true
    },

    async clear(filter?: MessageFilter) {
      assertOpen()
      const match = isEmptyFilter(filter) ? null : compileFilter(filter)
      const kept: MessageRecord[] = []
      const removed: MessageRecord[] = []
      for (const record of index.all()) (match && !match(record) ? kept : removed).push(record)
      if (removed.length === 0) return 0
      // One line for the whole clear: a crash keeps all of it or none of it.
      const written = adapter?.append([
        match ? { op: 'delete', ids: removed.map((r) => r.id) } : { op: 'clear' },
      ])
      data.records = index.keepOnly(kept)
      await settle(written, () => index.reinsert(removed))
      compactIfWorthwhile()
      return removed.length
    },

    async addEvents(id, events) {
      assertOpen()
      const record = index.get(id)
      if (!record || events.length === 0) return record
      const written = adapter?.append([{ op: 'events', id, events: events.slice() }])
      const next = withEvents(record, events)
      adapter?.derived(next, record)
      index.replace(record, next)
      // Not on disk: the states must not say otherwise.
      await settle(written, () => index.get(id) === next && index.replace(next, record))
      compactIfWorthwhile()
      return next
    },

    suppression: suppressions.get,

    suppressions: suppressions.list,

    async suppress(entry) {
      assertOpen()
      const stored: Suppression = { ...entry, address: entry.address.toLowerCase() }
      const written = adapter?.append([{ op: 'suppress', ...stored }])
      await settle(written, suppressions.add(stored))
      compactIfWorthwhile()
    },

    async unsuppress(filter = {}) {
      assertOpen()
      if (suppressions.list(filter).length === 0) return []
      const written = adapter?.append([
        {
          op: 'unsuppress',
          ...(filter.address !== undefined ? { address: filter.address.toLowerCase() } : {}),
          ...(filter.project !== undefined ? { project: filter.project } : {}),
        },
      ])
      const { removed, undo } = suppressions.remove(filter)
      await settle(written, undo)
      compactIfWorthwhile()
      return removed.reverse()
    },

    count: index.live,

    dropped: () => droppedAtOpen + index.dropped(),

    bytes: index.bytes,

    health: health.current,

    close() {
      return (closing ??= (async () => {
        if (checker) clearInterval(checker)
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
