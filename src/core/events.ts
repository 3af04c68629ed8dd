import type {
  LogHealth,
  MessageRecord,
  RecipientEvent,
  Release,
  Suppression,
} from '../store/types.js'
import type { TemplateChange } from '../templates/types.js'
import type { Rejection } from './rejection-types.js'
import type { SnapshotChange } from './snapshot-types.js'
import type { WebhookDelivery } from './webhook-types.js'

/** What the SSE stream, `wait` and the programmatic API listen to. */
export type SandboxEvent = LocalEvent & {
  /**
   * Heard from another process of a shared store (core/shared-events.ts): it did the work (the
   * delivery of its message), this process only tells its own listeners.
   */
  remote?: true
}

type LocalEvent =
  | { type: 'message'; record: MessageRecord }
  | { type: 'deleted'; id: string; project: string }
  /**
   * `project`: the clear was of that project's messages only; absent, of every project's, and
   * `byProject` says how many of each went (a project's stream hears its own count).
   */
  | { type: 'cleared'; count: number; project?: string; byProject?: Record<string, number> }
  | { type: 'template'; change: TemplateChange }
  | { type: 'rejected'; rejection: Rejection }
  /** A recipient event (a transition, or engagement): `record` is the message after it. */
  | { type: 'status'; record: MessageRecord; recipient: number; event: RecipientEvent }
  /** A webhook delivery was queued, attempted, or settled. */
  | { type: 'webhook'; delivery: WebhookDelivery }
  | { type: 'suppression'; change: 'added' | 'removed'; suppressions: Suppression[] }
  /** The log's health changed: a write failed, or writes work again (docs/log-faults.md). */
  | { type: 'log'; health: LogHealth }
  /** A message was sent on to a real mailbox through the relay: `record` is the message after it. */
  | { type: 'release'; record: MessageRecord; release: Release }
  /** A case's snapshot status changed (docs/snapshots.md): a save, a snapshot written or removed. */
  | { type: 'snapshot'; change: SnapshotChange }

export interface EventBus {
  emit(event: SandboxEvent): void
  /**
   * Returns the unsubscribe function. `{ remote: false }`: this process's own events only (the
   * delivery engine, the publisher to the other processes).
   */
  subscribe(listener: (event: SandboxEvent) => void, options?: { remote?: boolean }): () => void
  /**
   * Open event streams and pending waits (health's `subscribers`, where a leak shows up): the
   * listeners of every process's events. The sandbox's own machinery (`{ remote: false }`) is not
   * counted, so the figure is the same on every store: 0 with nothing open.
   */
  size(): number
  /** Whether any listener hears other processes' events: when none does, they need not be read. */
  hearsRemote(): boolean
}

/**
 * A synchronous fan-out, in order. An event emitted while another is being delivered (a
 * listener that emits: the delivery engine queues `message.sent`'s webhook, and so emits
 * `webhook`, as it hears `message`) waits until every listener has heard the current one, so
 * every listener hears events in the order they happened: no event-stream client hears of a
 * message's webhook before the message. An emit from outside a listener has reached every
 * listener when it returns. A listener that throws is reported and never breaks a send.
 *
 * @example
 * const events = createEventBus((error) => console.error(error))
 * const stop = events.subscribe((event) => console.log(event.type))
 * events.emit({ type: 'deleted', id: 'msg_1' }) // logs "deleted" before emit returns
 * stop()
 */
export function createEventBus(report: (error: unknown) => void = () => {}): EventBus {
  const listeners = new Set<(event: SandboxEvent) => void>()
  /** The listeners of this process's own events only. */
  const localOnly = new WeakSet<(event: SandboxEvent) => void>()
  /** Events emitted during a delivery, oldest first; non-empty only while delivering. */
  const queue: SandboxEvent[] = []
  let delivering = false

  function deliver(event: SandboxEvent): void {
    for (const listener of listeners) {
      if (event.remote && localOnly.has(listener)) continue
      try {
        listener(event)
      } catch (error) {
        report(error)
      }
    }
  }

  return {
    emit(event) {
      queue.push(event)
      if (delivering) return
      delivering = true
      try {
        // Index, not shift(): a burst of nested emits stays O(n).
        for (let i = 0; i < queue.length; i++) deliver(queue[i]!)
      } finally {
        queue.length = 0
        delivering = false
      }
    },
    subscribe(listener, options) {
      // Each subscription its own function: one listener given twice is two subscriptions.
      const own = (event: SandboxEvent) => listener(event)
      if (options?.remote === false) localOnly.add(own)
      listeners.add(own)
      return () => listeners.delete(own)
    },
    size() {
      let count = 0
      for (const listener of listeners) if (!localOnly.has(listener)) count++
      return count
    },
    hearsRemote() {
      for (const listener of listeners) if (!localOnly.has(listener)) return true
      return false
    },
  }
}
