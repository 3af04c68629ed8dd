import { api, type WebhookAttempt, type WebhookDelivery, type WebhookList } from './api.js'
import { announce, h, replace, toast } from './dom.js'
import { fullTime, plural, timeAgo } from './format.js'
import { formatHash } from './router.js'
import { statusBadge } from './delivery.js'

/**
 * The Webhooks view: every delivery of every event to every --webhook URL, newest first, each
 * with its attempts (status code or error, duration, the start of the response body), the
 * signed request it sent, and a Retry button. Live over the SSE `webhook` event.
 */
export class WebhooksView {
  readonly root: HTMLElement
  private readonly list: HTMLUListElement
  private readonly summary: HTMLElement
  private readonly empty: HTMLElement
  private data: WebhookList | null = null
  /** Deliveries the user opened: a live update keeps them open. */
  private readonly opened = new Set<string>()
  private reloadTimer = 0

  constructor() {
    this.summary = h('p', { class: 'hint', id: 'webhooks-summary' })
    this.list = h('ul', {
      class: 'deliveries',
      id: 'webhook-list',
      'aria-labelledby': 'webhooks-title',
    })
    this.empty = h('div', { class: 'empty', hidden: true })
    this.root = h(
      'section',
      { class: 'page', id: 'view-webhooks', 'aria-labelledby': 'webhooks-title', hidden: true },
      h('div', { class: 'page-head' }, h('h2', { id: 'webhooks-title' }, 'Webhooks'), this.summary),
      this.empty,
      this.list,
    )
  }

  show(): void {
    document.title = 'Webhooks · sendbox'
    void this.reload()
  }

  async reload(): Promise<void> {
    try {
      this.data = await api.webhooks()
      this.render()
    } catch (error) {
      toast(`Could not load the webhook deliveries: ${(error as Error).message}`)
    }
  }

  /** SSE `webhook`: a delivery was queued, attempted or settled. */
  onDelivery(delivery: WebhookDelivery): void {
    if (!this.data) return
    const at = this.data.deliveries.findIndex((d) => d.id === delivery.id)
    if (at === -1) {
      this.data.deliveries.unshift(delivery)
      this.data.total++
    } else this.data.deliveries[at] = delivery
    if (this.root.hidden) return
    // A burst of events renders once.
    window.clearTimeout(this.reloadTimer)
    this.reloadTimer = window.setTimeout(() => this.render(), 50)
  }

  resync(): void {
    if (!this.root.hidden) void this.reload()
  }

  private render(): void {
    const data = this.data
    if (!data) return
    const pending = data.deliveries.filter((d) => d.status === 'pending').length
    replace(
      this.summary,
      data.endpoints.length
        ? [
            `Posting every event to `,
            ...data.endpoints.flatMap((url, i) => [i ? ', ' : '', h('code', null, url)]),
            `, signed per Standard Webhooks. ${plural(data.total, 'delivery', 'deliveries')}, ${pending} pending.`,
          ]
        : [
            'No webhook URL is configured. Start sendbox with ',
            h('code', null, '--webhook <url>'),
            ' (or ',
            h('code', null, 'SENDBOX_WEBHOOK'),
            ') and every delivery event is posted there.',
          ],
    )
    this.empty.hidden = data.deliveries.length > 0
    if (!this.empty.hidden)
      replace(
        this.empty,
        h('p', { class: 'empty-title' }, 'No deliveries yet'),
        h(
          'p',
          null,
          data.endpoints.length
            ? 'Send a message: its events show up here as they are posted.'
            : 'Nothing is posted without a --webhook URL.',
        ),
      )
    replace(this.list, ...data.deliveries.map((d) => this.item(d)))
  }

  private item(d: WebhookDelivery): HTMLElement {
    const last = d.attempts.at(-1)
    const details = h(
      'details',
      {
        class: 'delivery-item',
        'data-id': d.id,
        'data-status': d.status,
        open: this.opened.has(d.id),
      },
      h(
        'summary',
        null,
        statusBadge(
          d.status === 'pending' && d.attempts.length ? 'retrying' : d.status,
          d.status === 'pending'
            ? d.attempts.length
              ? 'Retrying'
              : 'Pending'
            : d.status === 'delivered'
              ? 'Delivered'
              : 'Failed',
        ),
        h('code', { class: 'delivery-type' }, d.type),
        h('span', { class: 'delivery-recipient' }, d.recipient),
        h('span', { class: 'delivery-url' }, d.url),
        h(
          'span',
          { class: 'delivery-last' },
          last ? attemptResult(last) : 'not tried yet',
          ' · ',
          plural(d.attempts.length, 'attempt'),
        ),
        h(
          'time',
          {
            class: 'item-time',
            datetime: d.createdAt,
            title: fullTime(d.createdAt),
            'data-relative': '',
          },
          timeAgo(d.createdAt),
        ),
      ),
      h(
        'div',
        { class: 'delivery-body' },
        h(
          'p',
          { class: 'delivery-facts' },
          'Message ',
          h(
            'a',
            {
              href: formatHash({
                view: 'messages',
                id: d.messageId,
                params: new URLSearchParams({ tab: 'delivery' }),
              }),
            },
            d.messageId,
          ),
          ' · webhook-id ',
          h('code', null, d.webhookId),
          d.nextAttemptAt
            ? [
                ' · next attempt ',
                h(
                  'time',
                  { datetime: d.nextAttemptAt, title: fullTime(d.nextAttemptAt) },
                  new Date(d.nextAttemptAt).toLocaleTimeString(),
                ),
              ]
            : null,
        ),
        h(
          'div',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small',
              'data-retry': d.id,
              onclick: (event: Event) =>
                void this.retry(d, event.currentTarget as HTMLButtonElement),
            },
            'Retry now',
          ),
        ),
        h('h3', null, 'Attempts'),
        d.attempts.length
          ? attemptsTable(d.attempts)
          : h(
              'p',
              { class: 'muted' },
              "None yet: it waits its turn behind the message's earlier events.",
            ),
        h('h3', null, 'Request headers'),
        h(
          'pre',
          { class: 'code', tabindex: '0' },
          Object.entries(d.request.headers)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n') || '(signed at the first attempt)',
        ),
        h('h3', null, 'Request body'),
        h('pre', { class: 'code', tabindex: '0' }, pretty(d.request.body)),
      ),
    )
    details.addEventListener('toggle', () => {
      if (details.open) this.opened.add(d.id)
      else this.opened.delete(d.id)
    })
    return h('li', null, details)
  }

  private async retry(d: WebhookDelivery, button: HTMLButtonElement): Promise<void> {
    button.disabled = true
    button.textContent = 'Retrying…'
    this.opened.add(d.id)
    try {
      const after = await api.retryWebhook(d.id)
      const last = after.attempts.at(-1)
      announce(`Retried ${d.type}: ${last ? attemptResult(last) : 'no attempt'}`)
      this.onDelivery(after)
    } catch (error) {
      toast(`Could not retry: ${(error as Error).message}`)
      button.disabled = false
      button.textContent = 'Retry now'
    }
  }
}

function attemptResult(a: WebhookAttempt): string {
  return a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? 'no response')
}

function attemptsTable(attempts: WebhookAttempt[]): HTMLElement {
  return h(
    'table',
    { class: 'vars attempts' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, '#'),
        h('th', { scope: 'col' }, 'When'),
        h('th', { scope: 'col' }, 'Result'),
        h('th', { scope: 'col' }, 'Duration'),
        h('th', { scope: 'col' }, 'Response body (start)'),
      ),
    ),
    h(
      'tbody',
      null,
      attempts.map((a, i) =>
        h(
          'tr',
          { 'data-ok': String(a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300) },
          h('td', null, String(i + 1), a.manual ? h('span', { class: 'tag' }, 'manual') : null),
          h(
            'td',
            null,
            h(
              'time',
              { datetime: a.at, title: fullTime(a.at) },
              new Date(a.at).toLocaleTimeString(),
            ),
          ),
          h('td', { class: 'attempt-result' }, attemptResult(a)),
          h('td', null, `${a.durationMs} ms`),
          h(
            'td',
            null,
            a.responseBody
              ? h('code', { class: 'response-start' }, a.responseBody)
              : h('span', { class: 'muted' }, '(empty)'),
          ),
        ),
      ),
    ),
  )
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}
