import type { LogHealth, MessageRecord, RecipientEvent, Suppression } from '../store/types.js'
import type { TemplateChange } from '../templates/types.js'
import type { Rejection } from './rejection-types.js'
import type { WebhookDelivery } from './webhook-types.js'

/** What the SSE stream, `wait` and the programmatic API listen to. */
export type SandboxEvent =
  | { type: 'message'; record: MessageRecord }
  | { type: 'deleted'; id: string }
  | { type: 'cleared'; count: number }
  | { type: 'template'; change: TemplateChange }
  | { type: 'rejected'; rejection: Rejection }
  /** A recipient event (a transition, or engagement): `record` is the message after it. */
  | { type: 'status'; record: MessageRecord; recipient: number; event: RecipientEvent }
  /** A webhook delivery was queued, attempted, or settled. */
  | { type: 'webhook'; delivery: WebhookDelivery }
  | { type: 'suppression'; change: 'added' | 'removed'; suppressions: Suppression[] }
  /** The log's health changed: a write failed, or writes work again (docs/log-faults.md). */
  | { type: 'log'; health: LogHealth }

export interface EventBus {
  emit(event: SandboxEvent): void
  /** Returns the unsubscribe function. */
  subscribe(listener: (event: SandboxEvent) => void): () => void
  size(): number
}

/** A synchronous fan-out. A listener that throws is reported and never breaks a send. */
export function createEventBus(report: (error: unknown) => void = () => {}): EventBus {
  const listeners = new Set<(event: SandboxEvent) => void>()
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event)
        } catch (error) {
          report(error)
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    size: () => listeners.size,
  }
}
