import { useEffect } from 'preact/hooks'
import type { WebhookAttempt, WebhookDelivery } from './api.js'
import { fullTime, plural } from './format.js'
import { Count, countOf } from './list-pane.js'
import { href, type Route } from './router.js'
import { Placeholder, RelativeTime, Select, StatusBadge } from './ui.js'
import {
  attemptResult,
  attemptsSummary,
  attemptSucceeded,
  deliveryState,
  filterDeliveries,
  STATUS_FILTERS,
  type WebhookFilters as Filters,
  type WebhooksModel,
} from './webhooks-model.js'

/**
 * The Webhooks view: every delivery of every event to every --webhook URL, newest first, as a
 * table that scans (status, event, recipient, attempts — a failure stays visible after a retry
 * succeeded —, time), the endpoint said once above it, filters, and the open delivery beside it
 * (its attempts, the signed request, Retry now). Filters and the open delivery are in the URL.
 */
export function WebhooksView({ model, route }: { model: WebhooksModel; route: Route }) {
  useEffect(() => {
    document.title = 'Webhooks · sendbox'
  }, [])
  const data = model.data.value
  const filters = model.filters.value
  const openId = model.openId.value
  const deliveries = data ? filterDeliveries(data.deliveries, filters) : []
  const open = data?.deliveries.find((d) => d.id === openId) ?? null
  const events: string[] = data
    ? [...new Set<string>(data.deliveries.map((d) => d.type))].sort()
    : []
  if (filters.event && !events.includes(filters.event)) events.push(filters.event)
  const params = route.params
  const rowHref = (id: string) => {
    const next = new URLSearchParams(params)
    next.set('open', id)
    return href('webhooks', null, next)
  }
  return (
    <section class="page" id="view-webhooks" aria-labelledby="webhooks-title">
      <WebhooksHead data={data} />
      <WebhookFilters model={model} filters={filters} events={events} />
      <div class="webhooks-split" data-open={open ? 'true' : 'false'}>
        {!data ? null : data.deliveries.length === 0 ? (
          <NoDeliveries configured={data.endpoints.length > 0} />
        ) : (
          <DeliveryTable deliveries={deliveries} openId={openId} rowHref={rowHref} />
        )}
        {open ? (
          <DeliveryDetail
            model={model}
            d={open}
            closeHref={href('webhooks', null, withoutOpen(params))}
          />
        ) : openId && data ? (
          <Placeholder>
            <p>That delivery is no longer kept (the newest 1000 attempts are).</p>
          </Placeholder>
        ) : null}
      </div>
    </section>
  )
}

/** The title, the count, and where the events go (once, above the table), or how to send them somewhere. */
function WebhooksHead({ data }: { data: WebhooksModel['data']['value'] }) {
  const pending = data?.deliveries.filter((d) => d.status === 'pending').length ?? 0
  return (
    <div class="page-head">
      <div class="title-row">
        <h2 id="webhooks-title">Webhooks</h2>
        <Count
          id="webhook-count"
          count={data ? countOf(data.total, 'delivery', 'deliveries') : null}
        />
      </div>
      <p class="hint" id="webhooks-summary">
        {!data ? (
          'Loading…'
        ) : data.endpoints.length ? (
          <>
            Posting every event to{' '}
            {data.endpoints.map((url, i) => (
              <span key={url}>
                {i ? ', ' : ''}
                <code class="endpoint">{url}</code>
              </span>
            ))}
            , signed per Standard Webhooks. {pending} pending.
          </>
        ) : (
          <>
            No webhook URL is configured. Start sendbox with{' '}
            <code class="nowrap">--webhook &lt;url&gt;</code> (or <code>SENDBOX_WEBHOOK</code>) and
            every delivery event is posted there.
          </>
        )}
      </p>
    </div>
  )
}

/** Status, event and message filters (each in the URL, through the model), and a way to clear them. */
function WebhookFilters({
  model,
  filters,
  events,
}: {
  model: WebhooksModel
  filters: Filters
  events: string[]
}) {
  return (
    <div class="filters" role="group" aria-label="Filter the deliveries">
      <FilterSelect
        id="webhook-status"
        label="Status"
        value={filters.status}
        options={STATUS_FILTERS.map((s) => [s, s[0]!.toUpperCase() + s.slice(1)])}
        onChange={(value) => model.setFilter({ status: value as never })}
      />
      <FilterSelect
        id="webhook-event"
        label="Event"
        value={filters.event}
        options={events.map((type) => [type, type])}
        onChange={(event) => model.setFilter({ event })}
      />
      <span class="field">
        <label for="webhook-message">Message</label>
        <input
          id="webhook-message"
          class="text-input"
          type="search"
          placeholder="msg_…"
          autocomplete="off"
          spellcheck={false}
          value={filters.message}
          onChange={(e) => model.setFilter({ message: (e.target as HTMLInputElement).value })}
        />
      </span>
      {filters.status || filters.event || filters.message ? (
        <button
          type="button"
          class="btn btn-quiet"
          onClick={() => model.setFilter({ status: '', event: '', message: '' })}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  )
}

/** A labelled select whose first option, Any, is no filter. */
function FilterSelect({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string
  label: string
  value: string
  /** [value, label] */
  options: Array<[string, string]>
  onChange: (value: string) => void
}) {
  return (
    <span class="field">
      <label for={id}>{label}</label>
      <Select id={id} value={value} options={options} onPick={onChange}>
        <option value="">Any</option>
      </Select>
    </span>
  )
}

function NoDeliveries({ configured }: { configured: boolean }) {
  return (
    <div class="empty">
      <p class="empty-title">No deliveries yet</p>
      <p>
        {configured ? (
          'Send a message: its events show up here as they are posted.'
        ) : (
          <>
            Nothing is posted without a <code class="nowrap">--webhook</code> URL.
          </>
        )}
      </p>
    </div>
  )
}

/** The deliveries that pass the filters, newest first, one row each (the open one marked). */
function DeliveryTable({
  deliveries,
  openId,
  rowHref,
}: {
  deliveries: WebhookDelivery[]
  openId: string | null
  rowHref: (id: string) => string
}) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="webhooks-title">
      <table class="vars deliveries" id="webhook-list">
        <caption class="visually-hidden">
          {plural(deliveries.length, 'delivery', 'deliveries')}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Event</th>
            <th scope="col">Recipient</th>
            <th scope="col">Attempts</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <DeliveryRow key={d.id} d={d} open={d.id === openId} href={rowHref(d.id)} />
          ))}
        </tbody>
      </table>
      {deliveries.length === 0 ? (
        <p class="empty-title filtered-empty">No delivery matches these filters.</p>
      ) : null}
    </div>
  )
}

function withoutOpen(params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params)
  next.delete('open')
  return next
}

const STATE_LABELS = {
  pending: 'Pending',
  retrying: 'Retrying',
  delivered: 'Delivered',
  failed: 'Failed',
}

function DeliveryRow({
  d,
  open,
  href: rowHref,
}: {
  d: WebhookDelivery
  open: boolean
  href: string
}) {
  const state = deliveryState(d)
  const attempts = attemptsSummary(d)
  return (
    <tr
      class="delivery-item"
      data-id={d.id}
      data-status={d.status}
      aria-current={open ? 'true' : undefined}
    >
      <td>
        <StatusBadge status={state} label={STATE_LABELS[state]} />
      </td>
      <th scope="row">
        <a class="delivery-type" href={rowHref}>
          {d.type}
        </a>
      </th>
      <td class="delivery-recipient" title={d.recipient}>
        {d.recipient}
      </td>
      <td class="delivery-attempts" data-failed={attempts.failed ? 'true' : undefined}>
        {attempts.text}
      </td>
      <td>
        <RelativeTime iso={d.createdAt} class="item-time" />
      </td>
    </tr>
  )
}

function DeliveryDetail({
  model,
  d,
  closeHref,
}: {
  model: WebhooksModel
  d: WebhookDelivery
  closeHref: string
}) {
  const retrying = model.retrying.value.has(d.id)
  return (
    <section class="delivery-detail" id="webhook-detail" aria-labelledby="webhook-detail-title">
      <div class="delivery-detail-head">
        <h3 id="webhook-detail-title">
          <code>{d.type}</code> to {d.recipient}
        </h3>
        <a class="btn btn-quiet" href={closeHref}>
          Close<span class="visually-hidden"> the delivery</span>
        </a>
      </div>
      <DeliveryFacts d={d} />
      <div class="actions">
        <button
          type="button"
          class="btn btn-small"
          data-retry={d.id}
          disabled={retrying}
          onClick={() => void model.retry(d)}
        >
          {retrying ? 'Retrying…' : 'Retry now'}
        </button>
      </div>
      <h4>Attempts</h4>
      {d.attempts.length ? (
        <AttemptsTable attempts={d.attempts} />
      ) : (
        <p class="muted">None yet: it waits its turn behind the message's earlier events.</p>
      )}
      <h4>Request headers</h4>
      <pre class="code" tabIndex={0}>
        {Object.entries(d.request.headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n') || '(signed at the first attempt)'}
      </pre>
      <h4>Request body</h4>
      <pre class="code" tabIndex={0}>
        {pretty(d.request.body)}
      </pre>
    </section>
  )
}

/** One line under the title: the state, the message, the URL, the webhook-id, the next attempt. */
function DeliveryFacts({ d }: { d: WebhookDelivery }) {
  return (
    <p class="delivery-facts">
      <StatusBadge status={deliveryState(d)} label={STATE_LABELS[deliveryState(d)]} /> Message{' '}
      <a href={href('messages', d.messageId, { tab: 'delivery' })}>{d.messageId}</a> · to{' '}
      <code>{d.url}</code> · webhook-id <code>{d.webhookId}</code>
      {d.nextAttemptAt ? (
        <>
          {' '}
          · next attempt{' '}
          <time dateTime={d.nextAttemptAt} title={fullTime(d.nextAttemptAt)}>
            {new Date(d.nextAttemptAt).toLocaleTimeString()}
          </time>
        </>
      ) : null}
    </p>
  )
}

function AttemptsTable({ attempts }: { attempts: WebhookAttempt[] }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label="Attempts">
      <table class="vars attempts">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">When</th>
            <th scope="col">Result</th>
            <th scope="col">Duration</th>
            <th scope="col" class="attempt-response">
              Response body (start)
            </th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a, i) => (
            <tr key={`${a.at} ${i}`} data-ok={String(attemptSucceeded(a))}>
              <td>
                {i + 1}
                {a.manual ? <span class="tag">manual</span> : null}
              </td>
              <td>
                <time dateTime={a.at} title={fullTime(a.at)}>
                  {new Date(a.at).toLocaleTimeString()}
                </time>
              </td>
              <td class="attempt-result">
                {attemptResult(a)}
                {a.responseBody ? (
                  <code class="response-start response-under">{a.responseBody}</code>
                ) : null}
              </td>
              <td>{a.durationMs} ms</td>
              <td class="attempt-response">
                {a.responseBody ? (
                  <code class="response-start">{a.responseBody}</code>
                ) : (
                  <span class="muted">(empty)</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}
