import { signal } from '@preact/signals'
import type { Rejection } from '../../core/rejections.js'
import { API } from './api.js'

/** How many rejected sends the panel keeps. */
const SHOWN = 20

/**
 * Recent rejected sends, for the panel above the message list ("2 sends rejected recently"): a
 * send the application thought went out, but sendbox refused (a 422, a live token), shows up
 * with its code and message instead of nowhere. Fed by GET /_sandbox/api/rejections and the
 * event stream's `rejected` events.
 */
export class RejectionsModel {
  readonly items = signal<Rejection[]>([])
  readonly total = signal(0)

  /** The newest ones (on start, on reconnect, after a clear). */
  async load(): Promise<void> {
    try {
      const response = await fetch(`${API}/rejections?limit=${SHOWN}`, { cache: 'no-store' })
      if (!response.ok) return
      const page = (await response.json()) as { rejections: Rejection[]; total: number }
      this.items.value = page.rejections
      this.total.value = page.total
    } catch {
      // sendbox is away; the next reconnect loads them again.
    }
  }

  /** One arrived over the event stream. */
  add(rejection: Rejection): void {
    this.items.value = [rejection, ...this.items.peek()].slice(0, SHOWN)
    this.total.value++
  }
}
