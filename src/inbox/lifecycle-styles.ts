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
.quiet-link { font-size: 12px; color: var(--muted); }
.btn-small { height: 28px; padding: 0 10px; font-size: 12.5px; }

/* ---- the Delivery tab ---- */
.delivery-summary { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 4px 0 6px; }
.delivery .hint { margin: 0 0 14px; }
.recipient { margin: 0 0 14px; padding: 12px 14px 10px; background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
.recipient-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; }
.details .recipient-address { margin: 0; font-size: 14px; letter-spacing: 0; text-transform: none; color: var(--text); overflow-wrap: anywhere; }
.simulate { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 10px 0 4px; }
.simulate-label { margin-right: 2px; color: var(--muted); font-size: 12px; }
.click-url { max-width: 22em; height: 28px; padding: 0 6px; font: inherit; font-size: 12.5px; color: var(--text); background: var(--bg); border: 1px solid var(--border); border-radius: 6px; }
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
.page-head { max-width: 1100px; margin: 0 auto 14px; }
.page-head h2 { margin: 0; font-size: 17px; }
.page-head .hint { margin-top: 6px; }
.page-body, .deliveries, .page .empty { max-width: 1100px; margin: 0 auto; }
.deliveries { padding: 0; list-style: none; display: flex; flex-direction: column; gap: 8px; }
.delivery-item { background: var(--surface); border: 1px solid var(--border); border-radius: 9px; }
.delivery-item[data-status="failed"] { border-left: 4px solid var(--danger); }
.delivery-item[data-status="pending"] { border-left: 4px solid var(--warn-border); }
.delivery-item > summary { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; padding: 10px 14px; cursor: pointer; list-style-position: inside; }
.delivery-type { font-size: 12.5px; font-weight: 600; }
.delivery-recipient { overflow-wrap: anywhere; }
.delivery-url, .delivery-last { color: var(--muted); font-size: 12.5px; overflow-wrap: anywhere; }
.delivery-item .item-time { margin-left: auto; }
.delivery-body { padding: 0 14px 14px; border-top: 1px solid var(--border); }
.delivery-body h3 { margin: 16px 0 6px; font-size: 12px; letter-spacing: 0.04em; text-transform: uppercase; color: var(--muted); }
.delivery-facts { margin: 10px 0 0; font-size: 12.5px; color: var(--muted); overflow-wrap: anywhere; }
.attempts td { font-variant-numeric: tabular-nums; }
.attempts tr[data-ok="true"] .attempt-result { color: var(--live); font-weight: 600; }
.attempts tr[data-ok="false"] .attempt-result { color: var(--danger); font-weight: 600; }
.response-start { font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.suppressions th[scope="row"] { color: var(--text); font-weight: 500; }
@media (max-width: 760px) {
  .page { padding: 14px 16px 24px; }
  .delivery-item .item-time { margin-left: 0; }
  /* Four sections in the top bar: they scroll sideways rather than widen the page, and the
     connection status keeps its dot (its words stay for screen readers). */
  .sections { position: relative; flex: 1; min-width: 0; overflow-x: auto; scrollbar-width: none; }
  .sections::-webkit-scrollbar { display: none; }
  .status { margin-left: 0; }
  #status-text { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .suppressions { display: block; overflow-x: auto; }
  /* Seven message tabs: they scroll sideways within the toolbar when a phone is narrower still. */
  .toolbar .tabs { position: relative; min-width: 0; max-width: 100%; overflow-x: auto; scrollbar-width: none; }
  .toolbar .tabs::-webkit-scrollbar { display: none; }
  [role="tab"] { flex: none; }
  /* A link's buttons go under its URL: the text and URL keep the whole width. */
  .link-row { grid-template-columns: minmax(0, 1fr); }
  .link-actions { grid-column: 1; grid-row: auto; justify-content: flex-start; margin-top: 6px; }
}
`
