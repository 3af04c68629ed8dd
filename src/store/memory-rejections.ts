import type { JsonObject, RejectionTable } from './types.js'

/**
 * The recent rejected sends of a sandbox whose store keeps none (the JSON Lines log: they are
 * for the running process, not the file): the table PostgreSQL keeps for processes that share
 * it, in memory and bounded to the newest `max` of each project, so one rejection log (core/rejections.ts)
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
      // The newest `max` of each project (a send without a valid token is of none, kept apart):
      // one project, or anyone sending with a bad token, never pushes out another's.
      const mine = items.filter((r) => r.project === rejection.project)
      if (mine.length > max) items = items.filter((r) => r !== mine[0])
    },
    list: async (limit) => {
      const seen = new Map<string | null, number>()
      return [...items].reverse().filter((r) => {
        const n = (seen.get(r.project) ?? 0) + 1
        seen.set(r.project, n)
        return n <= limit
      })
    },
    async clear(project) {
      const count = items.length
      items = project === undefined ? [] : items.filter((r) => r.project !== project)
      return count - items.length
    },
  }
}
