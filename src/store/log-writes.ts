import { isLogWriteError } from './errors.js'
import type { JsonlAdapter } from './jsonl-adapter.js'
import type { LogData } from './log-format.js'
import type { createLogHealth } from './log-health.js'
import type { RecordIndex } from './record-index.js'

/** Runtime compaction waits for this many dead lines, so a small log does not churn. */
export const MIN_DEAD_LINES = 100

export interface LogWritesDeps {
  /** Null for a log in memory: nothing to wait for, nothing to compact. */
  adapter: Pick<JsonlAdapter, 'file' | 'lines' | 'bytes'> | null
  data: LogData
  index: RecordIndex
  health: ReturnType<typeof createLogHealth>
  warn: (message: string) => void
  /** Compaction, serialised by the adapter behind whatever is already queued. */
  compact(): Promise<void>
  /** The log is closing: no more runtime compactions (close does its own). */
  closing(): boolean
}

/**
 * What every change of the log does after changing memory: wait for its line (taking the change
 * back if it is not written), tell the log's health, and compact when dead lines are worth it.
 *
 * @example
 * const writes = createLogWrites({ adapter, data, index, health, warn, compact, closing })
 * await writes.settle(adapter.append([{ op: 'delete', id }]), () => index.reinsert([record]))
 * writes.compactIfWorthwhile()
 */
export function createLogWrites(deps: LogWritesDeps) {
  const { adapter, data, index, health } = deps

  /** Lines in the file that no longer say anything: replaced, deleted, cleared, events folded in. */
  const dead = () => (adapter ? adapter.lines() - index.live() - data.suppressions.length : 0)

  return {
    dead,

    /**
     * Waits for a change's line. Memory changed when the line was queued (so memory and file
     * change in the same order); if the line is not written, `undo` takes the change back and the
     * caller gets the error: nothing unwritten is acknowledged, and memory stays what the file
     * says. The wait is registered when the change is made, so the undos of one failed batch run
     * in the order of the changes, before any caller hears of it.
     */
    async settle(written: Promise<void> | undefined, undo: () => void): Promise<void> {
      if (!written) return
      try {
        await written
      } catch (error) {
        undo()
        health.failed(error)
        throw error
      }
      health.written()
    },

    /**
     * Rewrite once dead lines outweigh live ones in bytes (and there are enough of them): each
     * rewrite is paid for by as many bytes appended. Counting lines instead made every small
     * delivery-event line weigh as much as a whole message, and the log was rewritten twice as often.
     */
    compactIfWorthwhile(): void {
      if (!adapter || deps.closing()) return
      if (dead() >= MIN_DEAD_LINES && adapter.bytes() - index.bytes() > index.bytes()) {
        deps.compact().then(
          () => health.written(),
          (error: unknown) => {
            if (isLogWriteError(error)) health.failed(error)
            else
              deps.warn(
                `Could not compact the message log ${adapter.file}: ${(error as Error).message}`,
              )
          },
        )
      }
    },
  }
}

export type LogWrites = ReturnType<typeof createLogWrites>
