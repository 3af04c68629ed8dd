import type { FileHandle } from 'node:fs/promises'
import { LogWriteError } from './errors.js'
import { whatHappenedTo } from './file-identity.js'
import type { LogFs } from './log-fs.js'
import type { LogData } from './log-format.js'
import type { MessageRecord, Suppression } from './types.js'
import type { Batch, WriteQueue } from './write-queue.js'

/** The live memory and a way to re-create the folder and the lock (from `adapter.source`). */
export interface LiveSource {
  snapshot(): LogData
  recreate(): Promise<void>
}

export interface LogRecoveryDeps {
  file: string
  fs: LogFs
  warn: (message: string) => void
  queue: WriteQueue<MessageRecord>
  /** Lines after the header and bytes the file holds once everything queued has landed. */
  expected: { lines: number; chars: number }
  /** The live memory, once the log gave it; null for an adapter used bare. */
  live(): LiveSource | null
  /** Writes the file anew with these (`anew`: the file at the path is not ours); adds its length to `expected.chars`. */
  compact(records: MessageRecord[], suppressions: Suppression[], anew: boolean): Promise<void>
}

/**
 * Writing the log anew from memory: compaction, and the recovery of a file found removed or
 * replaced (folder and lock anew, then the file). Every line queued so far is in memory already
 * (memory changes when its line is queued), so the batches still waiting (and the one being
 * written) are settled by the new file instead of being appended after it.
 *
 * Long because it is one object: the rebuilding flag is shared by its two operations.
 *
 * @example
 * const recovery = createLogRecovery({ file, fs, warn, queue, expected, live: () => live, compact })
 * await queue.serial(() => recovery.rewriteFromMemory())
 */
export function createLogRecovery(deps: LogRecoveryDeps) {
  const { file, queue, expected } = deps
  /** The file was found removed or replaced, and is not written anew yet. */
  let rebuilding = false

  /** `given`: what to write without live memory (compaction of an adapter used bare). */
  async function rewriteFromMemory(current?: Batch<MessageRecord>, anew = false, given?: LogData) {
    const live = deps.live()
    // Without live memory (an adapter used bare) `given` is what it was at the call, so the
    // batches queued after it are appended after the new file, not taken into it.
    const taken = live ? queue.take(current) : { batches: [], lines: 0, chars: 0 }
    const later = queue.queued()
    const data = live?.snapshot() ?? given!
    const records = data.records.slice()
    const suppressions = (data.suppressions ?? []).slice()
    // The new file holds these lines, and its length is known once written; later batches add theirs.
    const linesDelta = records.length + suppressions.length + later.lines - expected.lines
    const charsDelta = later.chars - expected.chars
    expected.lines += linesDelta
    expected.chars += charsDelta
    try {
      await deps.compact(records, suppressions, anew)
      queue.settle(taken)
    } catch (error) {
      expected.lines -= linesDelta + taken.lines
      expected.chars -= charsDelta + taken.chars
      const failure = error instanceof LogWriteError ? error : new LogWriteError(file, error)
      queue.settle(taken, failure)
      throw failure
    }
  }

  /** The file was removed or replaced (`what` says which): folder and lock anew, then the file from memory. */
  async function rebuild(what: string, current?: Batch<MessageRecord>): Promise<void> {
    // Said once: while the new file cannot be written, each retry (every send, every check) is quiet.
    if (!rebuilding)
      deps.warn(
        `The message log ${file} ${what} while sendbox was running: writing it anew from the messages in memory.`,
      )
    rebuilding = true
    try {
      await deps.live()!.recreate()
    } catch (error) {
      // Its lines are not written: they must not be acknowledged.
      if (current) {
        expected.lines -= current.count
        expected.chars -= current.text.length
      }
      throw error instanceof LogWriteError ? error : new LogWriteError(file, error)
    }
    // The lines to copy are read through the old handle: the removed or moved file is still ours.
    await rewriteFromMemory(current, true)
    rebuilding = false
  }

  /**
   * Checks that `handle` is still the file at the path; rebuilds it from memory if it is not
   * (then true). `current`: the batch whose turn it is, settled by the rebuild.
   */
  async function rebuildIfGone(
    handle: FileHandle,
    current?: Batch<MessageRecord>,
  ): Promise<boolean> {
    const gone = await whatHappenedTo(handle, file, deps.fs)
    if (gone) await rebuild(gone, current)
    return gone !== null
  }

  return { rewriteFromMemory, rebuild, rebuildIfGone }
}
