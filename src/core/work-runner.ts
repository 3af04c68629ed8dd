import type { ClaimedWork, WorkQueue } from '../store/types.js'

/**
 * The claiming side of shared work (docs/team.md): on a store several processes share, delivery
 * steps and webhook attempts are rows any process may claim. This process claims due rows when
 * told there is new work (its own, or another's notice), when the earliest row it knows of falls
 * due, and at least every `pollMs` (a lease run out, a notice lost), up to `maxRunning` at once.
 * Each kind's handler finishes its row with `done` or `later`; a handler that fails leaves the
 * row to its lease, so another claim takes it up again.
 */

export type WorkHandler = (item: ClaimedWork) => Promise<void>

export interface WorkRunner {
  /** Handles the rows of this kind from now on. */
  handle(kind: string, handler: WorkHandler): void
  /** Claims at once (new work of this process's own). */
  wake(): void
  /** Runs an item this process holds already (added leased to itself: `WorkItem.leaseMs`). */
  run(item: ClaimedWork): void
  /** How long a claimed item is this process's. */
  readonly leaseMs: number
  /** Rows being handled now. */
  running(): number
  /** Stops claiming; rows in hand finish or go back to their lease. */
  close(): void
}

export interface WorkRunnerOptions {
  /** How long a claimed row is this process's (longer than its longest handler: a webhook's timeout). */
  leaseMs: number
  /** The longest wait between two claims. */
  pollMs?: number
  maxRunning?: number
  report(error: unknown): void
}

/**
 * @example
 * const runner = createWorkRunner(store.work, { leaseMs: 10_000, report: console.error })
 * runner.handle('delivery', async (item) => { … await store.work.done(item) })
 */
// Long because claiming, the timer and the handlers' completions share one state (claiming,
// again, running, the timer), which decides when the next claim goes out; split, each part
// would need all of it.
export function createWorkRunner(work: WorkQueue, options: WorkRunnerOptions): WorkRunner {
  const handlers = new Map<string, WorkHandler>()
  const pollMs = options.pollMs ?? 1000
  const maxRunning = options.maxRunning ?? 64
  let running = 0
  let claiming = false
  let again = false
  let closed = false
  let timer: NodeJS.Timeout | null = null

  function sleepUntil(next: number | null): void {
    if (closed) return
    if (timer) clearTimeout(timer)
    const wait = Math.min(pollMs, Math.max(0, (next ?? Number.POSITIVE_INFINITY) - Date.now()))
    timer = setTimeout(wake, wait)
    timer.unref()
  }

  function run(item: ClaimedWork): void {
    const handler = handlers.get(item.kind)
    running++
    const handled = handler ? handler(item) : Promise.resolve()
    void handled.catch(options.report).finally(() => {
      running--
      // Room again: rows left behind by a full claim are taken now.
      if (again) wake()
    })
  }

  async function claim(): Promise<void> {
    const room = maxRunning - running
    if (room <= 0) {
      again = true
      return
    }
    const { items, next } = await work.claim(room, options.leaseMs)
    if (closed) return
    for (const item of items) run(item)
    // A full claim may have left due rows: claim again as soon as there is room.
    again = items.length === room
    sleepUntil(again ? Date.now() : next)
  }

  function wake(): void {
    if (closed) return
    if (claiming) {
      again = true
      return
    }
    claiming = true
    again = false
    claim()
      .catch((error: unknown) => {
        if (!closed) options.report(error)
        sleepUntil(null)
      })
      .finally(() => {
        claiming = false
        if (again && running < maxRunning) wake()
      })
  }

  const stopHearing = work.onAdded(wake)
  sleepUntil(Date.now())

  return {
    handle: (kind, handler) => void handlers.set(kind, handler),
    wake,
    run,
    leaseMs: options.leaseMs,
    running: () => running,
    close() {
      closed = true
      stopHearing()
      if (timer) clearTimeout(timer)
    },
  }
}
