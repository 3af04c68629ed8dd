import { matchesSuppression, suppressionKey } from './log-format.js'
import type { Suppression, SuppressionFilter } from './types.js'

/**
 * The suppressions in memory: `holder.suppressions` (oldest first, what compaction writes) and
 * a map by project and address. Each change returns its undo, for a change whose line was not
 * written.
 *
 * @example
 * const list = createSuppressionList(data)
 * const undo = list.add({ address: 'ada@example.com', project: 'p', reason: 'bounced', createdAt })
 */
export function createSuppressionList(holder: { suppressions: Suppression[] }) {
  const byKey = new Map<string, Suppression>()
  for (const entry of holder.suppressions)
    byKey.set(suppressionKey(entry.project, entry.address), entry)

  function put(entry: Suppression, at = holder.suppressions.length): void {
    holder.suppressions.splice(Math.min(at, holder.suppressions.length), 0, entry)
    byKey.set(suppressionKey(entry.project, entry.address), entry)
  }

  function take(entry: Suppression): number {
    const at = holder.suppressions.indexOf(entry)
    if (at >= 0) holder.suppressions.splice(at, 1)
    const key = suppressionKey(entry.project, entry.address)
    if (byKey.get(key) === entry) byKey.delete(key)
    return at
  }

  return {
    get: (project: string, address: string) => byKey.get(suppressionKey(project, address)),
    /** Newest first. */
    list(filter: SuppressionFilter = {}): Suppression[] {
      const found: Suppression[] = []
      for (let i = holder.suppressions.length - 1; i >= 0; i--)
        if (matchesSuppression(holder.suppressions[i]!, filter)) found.push(holder.suppressions[i]!)
      return found
    },
    /** Adds (or refreshes, moving it to the end) a suppression; returns its undo. */
    add(stored: Suppression): () => void {
      const previous = byKey.get(suppressionKey(stored.project, stored.address))
      const at = previous ? take(previous) : -1
      put(stored)
      return () => {
        take(stored)
        if (previous && !byKey.has(suppressionKey(previous.project, previous.address)))
          put(previous, at)
      }
    },
    /** Removes the matching ones; returns them (oldest first) and the undo. */
    remove(filter: SuppressionFilter): { removed: Suppression[]; undo: () => void } {
      const removed: [Suppression, number][] = []
      holder.suppressions.forEach((entry, i) => {
        if (matchesSuppression(entry, filter)) removed.push([entry, i])
      })
      for (const [entry] of removed.slice().reverse()) take(entry)
      return {
        removed: removed.map(([entry]) => entry),
        undo() {
          for (const [entry, at] of removed)
            if (!byKey.has(suppressionKey(entry.project, entry.address))) put(entry, at)
        },
      }
    },
  }
}
