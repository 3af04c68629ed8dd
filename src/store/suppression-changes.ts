import type { JsonlAdapter } from './jsonl-adapter.js'
import type { LogWrites } from './log-writes.js'
import type { createSuppressionList } from './suppression-list.js'
import type { MessageLog, Suppression } from './types.js'

export interface SuppressionChangesDeps {
  /** Null for a log in memory: changes apply at once. */
  adapter: Pick<JsonlAdapter, 'append'> | null
  suppressions: ReturnType<typeof createSuppressionList>
  writes: Pick<LogWrites, 'settle' | 'compactIfWorthwhile'>
  /** Throws once the log is closed. */
  assertOpen(): void
}

/**
 * The log's changes to suppressions, each a line, taken back if the line is not written.
 * Addresses are stored lower-cased: a suppression matches however a send spells the address.
 *
 * @example
 * const changes = createSuppressionChanges({ adapter, suppressions, writes, assertOpen })
 * await changes.suppress({ address: 'Ada@Example.com', project, reason: 'bounced', createdAt })
 */
export function createSuppressionChanges(
  deps: SuppressionChangesDeps,
): Pick<MessageLog, 'suppress' | 'unsuppress'> {
  const { adapter, suppressions, writes } = deps
  return {
    async suppress(entry) {
      deps.assertOpen()
      const stored: Suppression = { ...entry, address: entry.address.toLowerCase() }
      const written = adapter?.append([{ op: 'suppress', ...stored }])
      await writes.settle(written, suppressions.add(stored))
      writes.compactIfWorthwhile()
    },

    async unsuppress(filter = {}) {
      deps.assertOpen()
      if (suppressions.list(filter).length === 0) return []
      const written = adapter?.append([
        {
          op: 'unsuppress',
          ...(filter.address !== undefined ? { address: filter.address.toLowerCase() } : {}),
          ...(filter.project !== undefined ? { project: filter.project } : {}),
        },
      ])
      const { removed, undo } = suppressions.remove(filter)
      await writes.settle(written, undo)
      writes.compactIfWorthwhile()
      return removed.reverse()
    },
  }
}
