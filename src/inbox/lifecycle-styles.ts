/**
 * Styles of the delivery lifecycle in the inbox (status badges, timelines, simulate buttons,
 * the Webhooks and Suppressions pages), served after the main stylesheet in /_sandbox/app.css.
 * Every status has words as well as a colour.
 */
export const LIFECYCLE_CSS = String.raw`
/* ---- status badges ---- */
.status-badge { flex: none; display: inline-block; padding: 0 7px; border-radius: 999px; font-size: 11px; font-weight: 650; line-height: 18px; white-space: nowrap; color: var(--muted); background: var(--surface-2); border: 1px solid var(--border); }
.status-badge[data-status="delivered"] { color: #1f7a35; background: #e9f8ee; border-color: #a8e0b8; }
.status-badge[data-status="opened"], .status-badge[data-status="clicked"] { color: var(--accent-text); background: var(--accent-soft); border-color: color-mix(in srgb, var(--accent) 35%, transparent); }
.status-badge[data-status="deferred"], .status-badge[data-status="pending"], .status-badge[data-status="retrying"] { color: var(--warn-text); background: var(--warn-soft); border-color: var(--warn-border); }
.status-badge[data-status="bounced"], .status-badge[data-status="complained"], .status-badge[data-status="failed"] { color: var(--danger); background: var(--danger-soft); border-color: var(--danger-border); }
.status-badge[data-status="suppressed"] { color: var(--text); background: var(--surface-2); border-color: var(--muted); border-style: dashed; }
@media (prefers-color-scheme: dark) {
  .status-badge[data-status="delivered"] { color: #8ce99a; background: #13301c; border-color: #2b6b3c; }
}
.item-meta .status-badge { font-size: 10.5px; line-height: 16px; }
.quiet-link { font-size: 12.5px; color: var(--accent-text); }
/* The status badge and the way to its timeline, apart. */
.status-line { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; }
.click-field label { color: var(--muted); font-size: 12px; }
.simulate-none { margin: 8px 0 4px !important; }
.btn-small { height: 28px; padding: 0 10px; font-size: 12.5px; }

/* ---- the Delivery tab ---- */
.delivery-summary { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 4px 0 6px; }
.delivery .hint { margin: 0 0 14px; }
.recipient { margin: 0 0 14px; padding: 12px 14px 10px; background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
.recipient-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; }
.details .recipient-address { margin: 0; font-size: 14px; letter-spacing: 0; text-transform: none; color: var(--text); overflow-wrap: anywhere; }
.simulate { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 10px 0 4px; }
.simulate-label { margin-right: 2px; color: var(--muted); font-size: 12px; }
.click-url { max-width: min(22em, 100%); height: 28px; padding: 0 6px; font: inherit; font-size: 12.5px; color: var(--text); background: var(--bg); border: 1px solid var(--border); border-radius: 6px; }
.timeline { margin: 10px 0 0; padding: 0 0 0 4px; list-style: none; }
.timeline-event { position: relative; display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; padding: 3px 0 3px 18px; font-size: 13px; }
.timeline-event::before { content: ""; position: absolute; left: 4px; top: 0; bottom: 0; width: 1px; background: var(--border); }
.timeline-event:first-child::before { top: 50%; }
.timeline-event:last-child::before { bottom: 50%; }
.timeline-dot { position: absolute; left: 0; top: calc(50% - 4.5px); width: 9px; height: 9px; border-radius: 50%; background: var(--muted); }
.timeline-event[data-type="delivered"] .timeline-dot { background: var(--live); }
.timeline-event[data-type="deferred"] .timeline-dot { background: var(--warn-border); }
.timeline-event[data-type="bounced"] .timeline-dot, .timeline-event[data-type="complained"] .timeline-dot { background: var(--danger); }
.timeline-event[data-type="opened"] .timeline-dot, .timeline-event[data-type="clicked"] .timeline-dot { background: var(--accent); }
.timeline-type { font-weight: 600; }
.timeline-detail { color: var(--muted); overflow-wrap: anywhere; }
.timeline-time { margin-left: auto; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }

/* ---- the Links tab: links (text, URL, copy, simulate a click) and codes ---- */
.links .hint { margin: 0 0 10px; }
.links .field { margin: 0 0 10px; }
.link-list { margin: 0; padding: 0; list-style: none; display: flex; flex-direction: column; gap: 8px; }
.link-row { display: grid; grid-template-columns: minmax(0, 1fr) auto; align-items: center; gap: 2px 14px; padding: 10px 12px 10px 14px; background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
.link-head { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 8px; min-width: 0; }
.link-text { font-weight: 600; overflow-wrap: anywhere; }
.link-text.muted { font-weight: 400; font-style: italic; }
/* A URL is one long word: it wraps anywhere rather than widen the page. */
.link-href { grid-column: 1; font-family: var(--mono); font-size: 12.5px; color: var(--muted); overflow-wrap: anywhere; }
.link-actions { grid-column: 2; grid-row: 1 / span 2; display: flex; flex-wrap: wrap; align-items: center; justify-content: flex-end; gap: 6px; }
.link-clicks:empty { display: none; }
.code-list { margin: 0; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 8px; }
.code-row { display: inline-flex; align-items: center; gap: 12px; padding: 5px 5px 5px 14px; background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
.otp { font-family: var(--mono); font-size: 17px; font-weight: 600; letter-spacing: 0.12em; overflow-wrap: anywhere; }
.copy { min-width: 6.4em; justify-content: center; }
.copy[data-copied] { color: var(--accent-text); background: var(--accent-soft); border-color: var(--accent); }
.copy[data-copied]::before { content: "✓"; }

/* ---- single-pane pages: webhooks, suppressions ---- */
.page { flex: 1; min-height: 0; overflow: auto; padding: 18px 24px 32px; }
.page-head, .page-body, .page .filters, .webhooks-split, .page > .empty { max-width: 1180px; margin: 0 auto; }
.page-head { margin-bottom: 14px; }
.page-head h2 { margin: 0; font-size: 17px; }
.page-head .hint { margin-top: 6px; overflow-wrap: anywhere; }
.page .empty { padding: 36px 20px; }
.suppressions th[scope="row"] { color: var(--text); font-weight: 500; }
.suppressed-message a { overflow-wrap: anywhere; }
.row-actions { text-align: right; }

/* ---- webhooks: filters, the table, the open delivery beside it ---- */
.filters { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; margin-bottom: 12px !important; }
.filters .text-input { width: 14em; flex: none; height: 28px; }
.webhooks-split { display: grid; grid-template-columns: minmax(0, 1fr); gap: 16px; align-items: start; }
@media (min-width: 1100px) {
  /* The table gets the larger share: its five columns need ~430 px before the recipient. */
  .webhooks-split[data-open="true"] { grid-template-columns: minmax(0, 1.35fr) minmax(0, 1fr); }
}
.deliveries { background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
.deliveries th, .deliveries td { padding: 7px 10px; vertical-align: middle; }
.deliveries thead th { font-size: 12px; }
.deliveries tbody tr:last-child > * { border-bottom: 0; }
.deliveries tbody tr[aria-current="true"] { background: var(--accent-soft); }
.deliveries tbody tr[aria-current="true"] > :first-child { box-shadow: inset 3px 0 0 var(--accent); }
.delivery-type { font-family: var(--mono); font-size: 12.5px; font-weight: 600; white-space: nowrap; }
.deliveries .item-time { white-space: nowrap; }
/* The recipient takes what the other columns leave (max-width 0 and width 100% make it the one
   column that gives way) and ellipsizes; its title has the whole address. */
.deliveries .delivery-recipient { width: 100%; max-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.delivery-attempts { font-variant-numeric: tabular-nums; white-space: nowrap; }
.attempts th, .attempts td:nth-child(-n + 4) { white-space: nowrap; }
.delivery-attempts[data-failed="true"] { color: var(--danger); font-weight: 600; }
.filtered-empty { padding: 20px; text-align: center; }
.delivery-detail { min-width: 0; padding: 4px 16px 16px; background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
.delivery-detail-head { display: flex; align-items: baseline; justify-content: space-between; gap: 8px; }
.delivery-detail h3 { margin: 12px 0 0; font-size: 15px; overflow-wrap: anywhere; }
.delivery-detail h4 { margin: 16px 0 6px; font-size: 12px; letter-spacing: 0.04em; text-transform: uppercase; color: var(--muted); }
.delivery-facts { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 6px; margin: 10px 0 0; font-size: 12.5px; color: var(--muted); overflow-wrap: anywhere; }
.delivery-facts code { font-size: 12px; }
.endpoint { overflow-wrap: anywhere; }
.attempts td { font-variant-numeric: tabular-nums; }
.attempts td .tag { margin-left: 6px; }
.attempts tr[data-ok="true"] .attempt-result { color: var(--ok-text); font-weight: 600; }
.attempts tr[data-ok="false"] .attempt-result { color: var(--danger); font-weight: 600; }
.response-start { font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
/* The response's start has a column of its own, or (narrow) a line under the result. */
.response-under { display: none; }
@media (max-width: 760px) {
  .page { padding: 14px 16px 24px; }
  /* The open delivery first, where the thumb is. */
  .webhooks-split > .delivery-detail { order: -1; }
  .filters .field { flex: 1 1 100%; }
  .filters .field label { flex: none; width: 4.2em; }
  .filters select, .filters .text-input { flex: 1 1 auto; width: auto; min-width: 0; }
  /* Five columns do not fit 390 px (the table was cut at "Response"): the response's start goes
     under the result, in the text's own colour and weight. */
  .attempts .attempt-response { display: none; }
  .attempts .response-under { display: block; margin-top: 2px; color: var(--text); font-weight: 400; }
  /* A table of cards: each suppression a block, its cells labelled (the roles keep it a table). */
  table.cards, .cards tbody, .cards tr, .cards th, .cards td { display: block; }
  .cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .cards tr { position: relative; margin-bottom: 10px; padding: 10px 12px; background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
  .cards th, .cards td { padding: 2px 0; border: 0; }
  .cards th[scope="row"] { padding-right: 84px; font-size: 14px; overflow-wrap: anywhere; }
  .cards td[data-label] { display: grid; grid-template-columns: 6.5em minmax(0, 1fr); align-items: baseline; gap: 8px; }
  .cards td[data-label]::before { content: attr(data-label); color: var(--muted); font-size: 12.5px; }
  .cards td[data-label] > * { justify-self: start; }
  .cards .row-actions { position: absolute; top: 8px; right: 10px; padding: 0; }
  [role="tab"] { flex: none; }
  /* A link's buttons go under its URL: the text and URL keep the whole width. */
  .link-row { grid-template-columns: minmax(0, 1fr); }
  .link-actions { grid-column: 1; grid-row: auto; justify-content: flex-start; margin-top: 6px; }
}
`
