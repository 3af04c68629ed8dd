import type { JsonObject, RejectionTable } from './types.js'

/**
 * The recent rejected sends of a sandbox whose store keeps none (the JSON Lines log: they are
 * for the running process, not the file): the table PostgreSQL keeps for processes that share
 * it, in memory and bounded to the newest `max`, so one rejection log (core/rejections.ts)
 * serves both.
 *
 * @example
 * const table = createMemoryRejectionTable(100)
 * await table.add({ id: 'rej_1', project: null, status: 401 })
 */
export function createMemoryRejectionTable(max: number): RejectionTable {
  // Oldest first; the newest is pushed, the oldest shifted out.
  let items: Array<JsonObject & { project: string | null }> = []
  return {
    async add(rejection) {
      items.push(rejection)
      if (items.length > max) items.splice(0, items.length - max)
    },
    list: async (limit) => items.slice(-limit).reverse(),
    async clear(project) {
      const count = items.length
      items = project === undefined ? [] : items.filter((r) => r.project !== project)
      return count - items.length
    },
  }
}
