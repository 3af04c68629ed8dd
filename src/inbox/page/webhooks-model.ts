import { signal } from '@preact/signals'
import { api, type WebhookAttempt, type WebhookDelivery, type WebhookList } from './api.js'
import type { Page } from './page.js'
import { replaceParams, type Route } from './router.js'

/**
 * The Webhooks view's state: every delivery of every event to every --webhook URL, newest
 * first, live over the SSE `webhook` event; the filters (status, event, message) and the open
 * delivery come from the URL (`#/webhooks?status=failed&open=whd_…`), so a view of them is a
 * link. What a row says of its attempts is worked out here (webhooks.tsx draws it).
 */

/** What the status filter offers: a delivery's own states, and "retrying" (pending after a failed attempt). */
export const STATUS_FILTERS = [
  'pending',
  'retrying',
  'delivered',
  'failed',
] as const satisfies ReadonlyArray<WebhookDelivery['status'] | 'retrying'>
export type StatusFilter = (typeof STATUS_FILTERS)[number]

export interface WebhookFilters {
  status: StatusFilter | ''
  event: string
  /** A message id, or the start of one. */
  message: string
}

/** A delivery's state as the page shows it: a pending one that already failed once is retrying. */
export function deliveryState(d: Pick<WebhookDelivery, 'status' | 'attempts'>): StatusFilter {
  return d.status === 'pending' && d.attempts.length ? 'retrying' : d.status
}

const succeeded = (a: WebhookAttempt): boolean =>
  a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300

/**
 * What a delivery's attempts say in a row: how many, and how many of them failed when some
 * did and some did not — a failure stays visible after a retry succeeded ("2 (1 failed)"; a
 * delivery that failed says so in its status).
 *
 * @example
 * attemptsSummary({ attempts: [{ statusCode: 500 }, { statusCode: 200 }] }) // { count: 2, failed: 1, text: '2 (1 failed)' }
 */
export function attemptsSummary(d: { attempts: Pick<WebhookAttempt, 'statusCode'>[] }): {
  count: number
  failed: number
  text: string
} {
  const count = d.attempts.length
  const failed = d.attempts.filter((a) => !succeeded(a as WebhookAttempt)).length
  return {
    count,
    failed,
    text: failed && failed < count ? `${count} (${failed} failed)` : String(count),
  }
}

/** An attempt's result in words: the status code, or why there was none. */
export const attemptResult = (a: WebhookAttempt): string =>
  a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? 'no response')

export const attemptSucceeded = succeeded

/** The filters of a route (unknown values read as none). */
export function readFilters(params: URLSearchParams): WebhookFilters {
  const status = params.get('status') ?? ''
  return {
    status: (STATUS_FILTERS as readonly string[]).includes(status) ? (status as StatusFilter) : '',
    event: params.get('event') ?? '',
    message: (params.get('message') ?? '').trim(),
  }
}

/**
 * The deliveries a filter keeps, in their order.
 *
 * @example
 * filterDeliveries(deliveries, { status: 'failed', event: '', message: '' })
 */
export function filterDeliveries(
  deliveries: WebhookDelivery[],
  filters: WebhookFilters,
): WebhookDelivery[] {
  const message = filters.message.toLowerCase()
  return deliveries.filter(
    (d) =>
      (!filters.status || deliveryState(d) === filters.status) &&
      (!filters.event || d.type === filters.event) &&
      (!message || d.messageId.toLowerCase().includes(message)),
  )
}

export class WebhooksModel {
  readonly data = signal<WebhookList | null>(null)
  readonly filters = signal<WebhookFilters>({ status: '', event: '', message: '' })
  /** The open delivery (`?open=`). */
  readonly openId = signal<string | null>(null)
  /** Deliveries being retried from the page. */
  readonly retrying = signal<ReadonlySet<string>>(new Set())
  private shown = false
  private renderTimer = 0
  private pending: WebhookDelivery[] = []

  constructor(private readonly page: Page) {}

  show(route: Route): void {
    this.filters.value = readFilters(route.params)
    this.openId.value = route.params.get('open')
    if (!this.shown) void this.reload()
    this.shown = true
  }

  hide(): void {
    this.shown = false
  }

  setFilter(update: Partial<WebhookFilters>): void {
    replaceParams(
      Object.fromEntries(Object.entries(update).map(([key, value]) => [key, value || null])),
    )
  }

  setOpen(id: string | null): void {
    replaceParams({ open: id })
  }

  async reload(): Promise<void> {
    try {
      this.data.value = await api.webhooks()
    } catch (error) {
      this.page.toast(`Could not load the webhook deliveries: ${(error as Error).message}`)
    }
  }

  resync(): void {
    if (this.shown) void this.reload()
  }

  /** SSE `webhook`: a delivery was queued, attempted or settled. A burst renders once. */
  onDelivery(delivery: WebhookDelivery): void {
    if (!this.data.peek()) return
    this.pending.push(delivery)
    if (this.renderTimer) return
    this.renderTimer = this.page.timing.setTimeout(() => {
      this.renderTimer = 0
      this.apply()
    }, 50)
  }

  private apply(): void {
    const data = this.data.peek()
    if (!data) return
    const deliveries = [...data.deliveries]
    let total = data.total
    for (const delivery of this.pending.splice(0)) {
      const at = deliveries.findIndex((d) => d.id === delivery.id)
      if (at === -1) {
        deliveries.unshift(delivery)
        total++
      } else deliveries[at] = delivery
    }
    this.data.value = { ...data, deliveries, total }
  }

  async retry(d: WebhookDelivery): Promise<void> {
    this.retrying.value = new Set([...this.retrying.peek(), d.id])
    this.setOpen(d.id)
    try {
      const after = await api.retryWebhook(d.id)
      const last = after.attempts.at(-1)
      this.page.announce(`Retried ${d.type}: ${last ? attemptResult(last) : 'no attempt'}`)
      this.pending.push(after)
      this.apply()
    } catch (error) {
      this.page.toast(`Could not retry: ${(error as Error).message}`)
    } finally {
      const left = new Set(this.retrying.peek())
      left.delete(d.id)
      this.retrying.value = left
    }
  }
}
