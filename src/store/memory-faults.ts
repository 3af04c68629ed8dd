import type { FaultTable, StoredFault } from './types.js'

/**
 * The armed faults of a sandbox whose store keeps none (the JSON Lines log: faults are for the
 * running process, not the file). The same table PostgreSQL keeps for processes that share it,
 * in memory, so one fault registry (core/faults.ts) serves both.
 *
 * @example
 * const table = createMemoryFaultTable()
 * await table.add({ status: 503, remaining: 3, match: {}, retryAfter: 1, createdAt }, 100)
 */
export function createMemoryFaultTable(): FaultTable {
  let faults: StoredFault[] = []
  let seq = 0
  const copy = (fault: StoredFault): StoredFault => ({ ...fault, match: { ...fault.match } })
  return {
    list: async () => faults.map(copy),
    async add(fault, max) {
      // The cap is each project's own: another project's faults never fill it.
      if (faults.filter((f) => f.project === fault.project).length >= max) return null
      const stored = { id: `fault_${++seq}`, ...fault, match: { ...fault.match } }
      faults.push(stored)
      return copy(stored)
    },
    async clear(project) {
      const n = faults.length
      faults = faults.filter((f) => project !== undefined && f.project !== project)
      return n - faults.length
    },
    async countDown(id) {
      const fault = faults.find((f) => f.id === id && f.remaining > 0)
      if (!fault) return undefined
      fault.remaining -= 1
      if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault)
      return copy(fault)
    },
  }
}
