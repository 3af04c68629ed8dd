/**
 * The templates view's own rules, appended to the inbox stylesheet (src/inbox/styles.ts): the
 * list toggle, the editor's splitter, the error card's excerpt, the Variables tab, and the phone
 * layout that puts the preview first.
 */
export const TEMPLATES_CSS = String.raw`
/* ---- head: the title, and the list toggle beside it (wide only) ---- */
.title-line { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 12px; }
.template-head h2 { margin: 0; }
.template-head .lede { flex: 1 1 16em; min-width: 0; margin: 0; }
.list-toggle { flex: none; margin: -2px -8px 0 auto; color: var(--muted); }
/* Expects and Updated on one line: the preview gets the height. */
.meta-line { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 20px; margin-top: 8px; }
.meta-line > div { display: flex; align-items: baseline; gap: 8px; }
.template-head { padding-top: 14px; }
.list-toggle:hover { color: var(--text); }

/* ---- the splitter between the variables editor and the preview (wide only) ---- */
.resizer { display: none; }
.template-body[data-editor="off"] > .resizer { display: none; }

/* ---- notes ---- */
#dark-hint code { font-size: 11.5px; }

/* ---- the error card: where, the message, the offending lines with a caret ---- */
.error-where { margin: 8px 0 0; }
.excerpt { margin: 8px 0 4px; background: var(--surface); }
.excerpt .line.is-target { background: var(--danger-soft); box-shadow: inset 3px 0 0 var(--danger); }
.excerpt .line.is-target::before { color: var(--danger); }
.excerpt .caret { color: var(--danger); font-weight: 700; min-height: 0; }
.error-link { margin: 4px 0 0; }

/* ---- the Variables tab: names whole, their required fields as chips ---- */
.vars-expected th[scope="row"] { color: var(--text); font-weight: 400; }
.vars-expected .var-name { white-space: nowrap; overflow-wrap: normal; }
.vars-expected .chip { margin-right: 2px; }
.details:has(> .vars-expected) { overflow-x: auto; }

@media (min-width: 761px) {
  /* The list hidden while a template is open: the template takes the whole width. */
  #view-templates[data-open="true"][data-list="hidden"] { grid-template-columns: minmax(0, 1fr); }
  #view-templates[data-open="true"][data-list="hidden"] > .list-pane { display: none; }
}
@media (max-width: 760px) {
  .list-toggle { display: none; }
}
@media (min-width: 1280px) {
  .template-body > .resizer { display: block; position: relative; width: 7px; margin: 0 -3px; z-index: 1; cursor: col-resize; touch-action: none; background: transparent; }
  .template-body > .resizer::after { content: ""; position: absolute; top: 0; bottom: 0; left: 3px; width: 1px; background: var(--border); }
  .template-body > .resizer:hover::after, .template-body > .resizer:focus-visible::after, .template-body > .resizer.is-dragging::after { left: 2px; width: 3px; background: var(--accent); }
  .template-body > .resizer:focus-visible { outline: none; }
  .template-body .vars-editor { border-right: 0; }
}

/* ---- a phone: the preview first, the editor under it ---- */
@media (max-width: 760px) {
  #view-templates .template-main { order: -1; }
  #view-templates .vars-editor { border-top: 1px solid var(--border); border-bottom: 0; }
  #view-templates .message-head { padding-top: 10px; }
  #view-templates .message-head h2 { font-size: 18px; }
  #view-templates .lede { margin: 0 0 6px; font-size: 13px; }
  /* What the template expects is on the Variables tab: the preview gets the height. */
  #view-templates .meta-line { display: none; }
  #view-templates .toolbar { padding: 4px 10px 0; }
  #view-templates .tabs { gap: 0; }
  #view-templates [role="tab"] { flex: none; padding: 8px 5px 9px; font-size: 13px; }
  /* The preview options wrap (two rows) rather than run off screen. */
  #view-templates .viewbar { padding: 6px 12px; gap: 6px 8px; }
  #view-templates .toolbar-end { margin-bottom: 4px; }
}
`
