// biome-ignore-all lint/a11y/noRedundantRoles: the stylesheet lays the rows out as cards on a phone (display: block), which strips a table's implicit roles in some browsers; the explicit ones keep it a table for screen readers
import { useEffect } from 'preact/hooks'
import { Count, countOf } from './list-pane.js'
import type { SuppressionEntry } from './api.js'
import { href } from './router.js'
import type { SuppressionsModel } from './suppressions-model.js'
import { RelativeTime, StatusBadge } from './ui.js'

/**
 * The Suppressions view: the addresses a hard bounce or a complaint put on a project's list,
 * newest first, each with the message that did it (by its subject); remove one, or all. A
 * table on a wide screen; on a phone each row is a card (the stylesheet lays it out, the roles
 * keep it a table for screen readers), so no column is squeezed to a letter a line.
 */
export function SuppressionsView({ model }: { model: SuppressionsModel }) {
  useEffect(() => {
    document.title = 'Suppressions · sendbox'
  }, [])
  const items = model.items.value
  const total = items?.length ?? 0
  return (
    <section class="page" id="view-suppressions" aria-labelledby="suppressions-title">
      <div class="page-head">
        <div class="title-row">
          <h2 id="suppressions-title">Suppressions</h2>
          <Count
            id="suppression-count"
            count={items ? countOf(total, 'address', 'addresses') : null}
          />
          <span class="spacer" />
          <button
            type="button"
            class="btn btn-quiet btn-danger-text"
            id="clear-suppressions"
            disabled={total === 0}
            onClick={() => void model.clearAll()}
          >
            Remove all
          </button>
        </div>
        <p class="hint">
          A hard bounce or a complaint puts the address on its project's list (a project is one API
          token). Sends to it are still accepted, and end suppressed.
        </p>
      </div>
      <div class="page-body">
        {!items ? null : items.length === 0 ? (
          <NoSuppressions />
        ) : (
          <table class="vars suppressions cards" id="suppression-table" role="table">
            <thead role="rowgroup">
              <tr role="row">
                {['Address', 'Reason', 'Message', 'Project', 'Added'].map((label) => (
                  <th scope="col" role="columnheader" key={label}>
                    {label}
                  </th>
                ))}
                <th scope="col" role="columnheader">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {items.map((s) => (
                <SuppressionRow key={`${s.project} ${s.address}`} s={s} model={model} />
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  )
}

/** One suppressed address: why, the message that did it, its project, when; and Remove. */
function SuppressionRow({ s, model }: { s: SuppressionEntry; model: SuppressionsModel }) {
  return (
    <tr role="row" data-address={s.address}>
      <th scope="row" role="rowheader" class="suppressed-address">
        {s.address}
      </th>
      <td role="cell" data-label="Reason">
        <StatusBadge status={s.reason} />
      </td>
      <td role="cell" data-label="Message" class="suppressed-message">
        {s.messageId ? (
          <a href={href('messages', s.messageId, { tab: 'delivery' })} title={s.messageId}>
            {s.subject ?? s.messageId}
          </a>
        ) : (
          '—'
        )}
      </td>
      <td role="cell" data-label="Project">
        <code>{s.project}</code>
      </td>
      <td role="cell" data-label="Added">
        <RelativeTime iso={s.createdAt} />
      </td>
      <td role="cell" class="row-actions">
        <button
          type="button"
          class="btn btn-small"
          aria-label={`Remove ${s.address} (project ${s.project})`}
          onClick={() => void model.remove(s)}
        >
          Remove
        </button>
      </td>
    </tr>
  )
}

function NoSuppressions() {
  return (
    <div class="empty">
      <p class="empty-title">No suppressed addresses</p>
      <p>
        Send to <code>someone+bounce@example.com</code> and the bounce puts it here.
      </p>
    </div>
  )
}
