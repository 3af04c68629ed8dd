import path from 'node:path'
import { Low } from 'lowdb'
import { LogClosedError, LogOpenError, unreadable } from './errors.js'
import { createJsonlAdapter, type JsonlAdapter, type LogData } from './jsonl-adapter.js'
import { acquireLock, type LogLock } from './lock.js'
import { nodeFs } from './log-fs.js'
import { prepareFolder, realLogPath, removeStaleTempFiles } from './log-folder.js'
import { createLogHealth } from './log-health.js'
import { createLogWrites } from './log-writes.js'
import { LOG_FORMAT } from './log-format.js'
import { createRecordChanges } from './record-changes.js'
import { createRecordIndex, type RecordLimits } from './record-index.js'
import { createSuppressionChanges } from './suppression-changes.js'
import { createSuppressionList } from './suppression-list.js'
import { ProjectTally } from './tally.js'
import type { MessageLog, MessageLogOptions } from './types.js'

export const DEFAULT_MAX_MESSAGES = 5000
/** 5000 messages of up to ~50 KB each; an ordinary email is a few KB. */
export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024
export { MIN_DEAD_LINES } from './log-writes.js'

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
    return createLog(null, { records: [], suppressions: [] }, limits, new ProjectTally(), {
      ...options,
      warn,
    })

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

/**
 * The message log, put together from its parts (the index, the changes, the writes, the file
 * check). Long because it is the log's composition: each part is built here and handed the others.
 */
function createLog(
  backing: Backing | null,
  data: LogData,
  limits: RecordLimits,
  /** What the file's replay dropped to honour the limits, per project. */
  droppedAtOpen: ProjectTally,
  options: Pick<MessageLogOptions, 'onHealth' | 'checkIntervalMs' | 'fs'> & {
    warn: (message: string) => void
  },
): MessageLog {
  const { warn } = options
  const adapter = backing?.adapter ?? null
  const index = createRecordIndex(data.records, limits)
  const suppressions = createSuppressionList(data)
  const health = createLogHealth(adapter?.file ?? null, warn, options.onHealth)
  let closing: Promise<void> | null = null

  function assertOpen(): void {
    if (closing !== null) throw new LogClosedError(adapter?.file ?? '(memory)')
  }

  /** Compaction, serialised by the adapter behind whatever is already queued. */
  function compact(): Promise<void> {
    data.records = index.normalise()
    return backing!.db.write()
  }

  const writes = createLogWrites({
    adapter,
    data,
    index,
    health,
    warn,
    compact,
    closing: () => closing !== null,
  })

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

  return {
    file: adapter?.file ?? null,
    ...createRecordChanges({ adapter, data, index, writes, assertOpen }),
    list: (filter) => index.list(filter),
    get: (id) => index.get(id),
    latest: (filter) => index.latest(filter),
    cursor: index.cursor,
    matches: (record, filter) => index.matches(record, filter),
    ...createSuppressionChanges({ adapter, suppressions, writes, assertOpen }),
    suppression: suppressions.get,
    suppressions: suppressions.list,
    count: index.live,
    dropped: (project) => droppedAtOpen.of(project) + index.dropped(project),
    bytes: index.bytes,
    health: health.current,
    format: { kind: 'log', format: LOG_FORMAT },

    close() {
      return (closing ??= closeLog(backing, checker, writes.dead() > 0 ? compact : null, warn))
    },
  }
}

/**
 * Closes a log once: its file check stops, dead lines are compacted away (the next open would
 * rewrite them anyway; doing it now keeps starts fast), the file closes and the lock goes.
 */
async function closeLog(
  backing: Backing | null,
  checker: NodeJS.Timeout | null,
  compact: (() => Promise<void>) | null,
  warn: (message: string) => void,
): Promise<void> {
  if (checker) clearInterval(checker)
  if (!backing) return
  try {
    await compact?.().catch((error: unknown) =>
      warn(
        `Could not compact the message log ${backing.adapter.file}: ${(error as Error).message}`,
      ),
    )
    await backing.adapter.close()
  } finally {
    await backing.lock.release()
  }
}
