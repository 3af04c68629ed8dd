import { CHANGES_CSS } from './styles-changes.js'
import { TEMPLATES_CSS } from './styles-templates.js'
import { SESSION_CSS } from './styles-session.js'

/**
 * The inbox stylesheet, served as /_sandbox/app.css. A string constant so that it ships in
 * dist/ (src/ is not in the package). System fonts, light and dark following the system.
 */
export const INBOX_CSS =
  String.raw`
:root {
  color-scheme: light dark;
  --bg: #f4f5f7;
  --surface: #ffffff;
  --surface-2: #f0f2f5;
  --text: #1c2430;
  --muted: #5c6878;
  --border: #e1e5ea;
  --accent: #3b5bdb;
  --accent-soft: #e9eeff;
  --accent-text: #2f4ac0;
  --danger: #c92a2a;
  --danger-soft: #fff1f1;
  --danger-border: #f1b8b8;
  --warn-soft: #fff8e5;
  --warn-border: #edd38a;
  --warn-text: #7a5600;
  --live: #2f9e44;
  /* Green for words (4.5:1 and more on the surfaces); --live is for dots and borders. */
  --ok-text: #1f7a35;
  --code-key: #8a3ffc;
  --code-string: #1d6b3a;
  --code-number: #9a4a00;
  --code-keyword: #0b5cad;
  --shadow: 0 1px 2px rgb(16 24 40 / 0.06), 0 4px 14px rgb(16 24 40 / 0.06);
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 14px;
  line-height: 1.45;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0e1115;
    --surface: #161a20;
    --surface-2: #1e232b;
    --text: #e3e7ed;
    --muted: #98a3b2;
    --border: #2a3039;
    --accent: #8ea2ff;
    --accent-soft: #1f2849;
    --accent-text: #aebcff;
    --danger: #ff8f8f;
    --danger-soft: #2c1618;
    --danger-border: #6b2a2e;
    --warn-soft: #2a2310;
    --warn-border: #5e4b17;
    --warn-text: #f2cf75;
    --live: #51cf66;
    --ok-text: #8ce99a;
    --code-key: #d0b3ff;
    --code-string: #8ce99a;
    --code-number: #ffc078;
    --code-keyword: #8ec5ff;
    --shadow: 0 1px 2px rgb(0 0 0 / 0.4), 0 4px 14px rgb(0 0 0 / 0.3);
  }
}

*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
/* The client renders the page into #app; its children are the body's flex items. */
.app { display: contents; }
html, body { margin: 0; }
body { background: var(--bg); color: var(--text); min-height: 100vh; display: flex; flex-direction: column; -webkit-font-smoothing: antialiased; }
a { color: var(--accent-text); }
code, kbd, pre { font-family: var(--mono); }
/* A flag and its value read as one word: "--webhook <url>" is not broken at its hyphens. */
.nowrap { white-space: nowrap; }
h2, h3 { font-weight: 650; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; border-radius: 4px; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.skip-link { position: absolute; left: 8px; top: -48px; z-index: 30; padding: 8px 12px; background: var(--surface); border: 1px solid var(--border); border-radius: 6px; }
.skip-link:focus { top: 8px; }
.noscript { margin: 40px auto; max-width: 40em; padding: 0 16px; }
kbd { display: inline-block; min-width: 1.6em; padding: 0 5px; font-size: 11px; line-height: 18px; text-align: center; color: var(--muted); background: var(--surface); border: 1px solid var(--border); border-bottom-width: 2px; border-radius: 4px; }

/* ---- top bar ---- */
.topbar { flex: none; display: grid; grid-template-columns: auto minmax(0, 1fr) auto; grid-template-areas: "brand nav status"; align-items: center; column-gap: 20px; min-height: 52px; padding: 0 16px; background: var(--surface); border-bottom: 1px solid var(--border); }
.brand { grid-area: brand; }
.sections { grid-area: nav; min-width: 0; }
.status { grid-area: status; }
.brand { margin: 0; font-size: 16px; font-weight: 700; letter-spacing: -0.01em; }
.brand a { display: flex; align-items: center; gap: 8px; color: var(--text); text-decoration: none; }
.brand-mark { width: 22px; height: 22px; border-radius: 6px; background: url("/_sandbox/favicon.svg") center / cover no-repeat; }
.sections ul { display: flex; flex-wrap: wrap; gap: 2px; margin: 0; padding: 0; list-style: none; }
.sections a { display: flex; align-items: center; gap: 6px; padding: 6px 10px; border-radius: 6px; color: var(--muted); font-weight: 500; text-decoration: none; white-space: nowrap; }
.nav-count { min-width: 18px; padding: 0 6px; border-radius: 999px; font-size: 11px; font-weight: 650; line-height: 17px; text-align: center; color: var(--accent-text); background: var(--accent-soft); }
.sections a:hover { color: var(--text); background: var(--surface-2); }
.sections a[aria-current="page"] { color: var(--text); background: var(--surface-2); }
.status { display: flex; align-items: center; gap: 7px; margin: 0; color: var(--muted); font-size: 12.5px; white-space: nowrap; }
.status-dot { width: 8px; height: 8px; border-radius: 50%; background: var(--muted); }
.status[data-state="live"] .status-dot { background: var(--live); box-shadow: 0 0 0 3px color-mix(in srgb, var(--live) 22%, transparent); }
.status[data-state="offline"] .status-dot { background: #e8590c; }

/* ---- two panes ---- */
main { flex: 1; min-height: 0; display: flex; flex-direction: column; }
main:focus { outline: none; }
.split { flex: 1; min-height: 0; display: grid; grid-template-columns: minmax(300px, 400px) minmax(0, 1fr); }
.pane { min-width: 0; min-height: 0; overflow: auto; }
/* Positioned, so that what is positioned inside (the visually hidden words of every row) scrolls
   with the pane, and does not make the page itself taller than the window. */
.list-pane { position: relative; display: flex; flex-direction: column; background: var(--surface); border-right: 1px solid var(--border); }
.detail-pane { position: relative; display: flex; flex-direction: column; }
.pane-head { position: sticky; top: 0; z-index: 2; padding: 14px 16px 12px; background: var(--surface); border-bottom: 1px solid var(--border); }
.title-row { display: flex; align-items: center; gap: 8px; min-height: 28px; }
.title-row h2 { margin: 0; font-size: 15px; }
.spacer { flex: 1; }
.count { padding: 0 8px; border-radius: 999px; background: var(--surface-2); color: var(--muted); font-size: 12px; line-height: 20px; font-variant-numeric: tabular-nums; }
.count:empty { display: none; }
.search { position: relative; margin-top: 10px; }
.search-input { width: 100%; height: 34px; padding: 0 34px 0 10px; font: inherit; color: var(--text); background: var(--bg); border: 1px solid var(--border); border-radius: 7px; }
.search-input::placeholder { color: var(--muted); }
.search-input:focus-visible { outline-offset: 0; border-color: var(--accent); }
.search-key { position: absolute; right: 8px; top: 50%; transform: translateY(-50%); pointer-events: none; }
.search-input:focus + .search-key { display: none; }
.hint { margin: 6px 0 0; color: var(--muted); font-size: 12px; }
.hint code { font-size: 11.5px; color: var(--text); }
.dropped { margin: 8px 0 0; padding: 4px 8px; font-size: 12px; color: var(--warn-text); background: var(--warn-soft); border: 1px solid var(--warn-border); border-radius: 6px; }
.rejections { margin: 8px 0 0; font-size: 12px; color: var(--danger); background: var(--surface); border: 1px solid var(--border); border-radius: 6px; }
.rejections-summary { padding: 4px 8px; cursor: pointer; font-weight: 600; }
.rejections-list { margin: 0; padding: 0 8px 6px; list-style: none; max-height: 40vh; overflow: auto; }
.rejection { display: grid; gap: 2px; padding: 6px 0; border-top: 1px solid var(--border); color: var(--text); }
.rejection-top { display: flex; gap: 8px; align-items: center; justify-content: space-between; }
.rejection-what { font-family: var(--mono); font-size: 11px; color: var(--muted); overflow-wrap: anywhere; }
.rejection-message { overflow-wrap: anywhere; }

/* ---- list items ---- */
.items { margin: 0; padding: 0; list-style: none; }
.item { display: block; padding: 10px 16px 11px 13px; color: inherit; text-decoration: none; border-left: 3px solid transparent; border-bottom: 1px solid var(--border); }
.item:hover { background: var(--surface-2); }
.item[aria-current="true"] { background: var(--accent-soft); border-left-color: var(--accent); }
.item:focus-visible { outline-offset: -2px; border-radius: 0; }
.item-top { display: flex; align-items: baseline; justify-content: space-between; gap: 8px; }
.item-from { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 600; }
.item-time { flex: none; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.item-subject { display: block; margin-top: 1px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.item-slug { font-family: var(--mono); font-size: 13px; font-weight: 600; margin: 0; }
.item-meta { display: flex; align-items: center; gap: 8px; margin-top: 4px; color: var(--muted); font-size: 12px; }
.item-to { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
/* A message row: one element per line part, laid out by a grid (no wrappers: a row is ten elements). */
.msg { display: grid; grid-template-columns: minmax(0, 1fr) auto auto; grid-template-areas: "from from time" "subject subject subject" "to status tag"; column-gap: 8px; align-items: baseline; }
/* Rows off screen are not laid out or painted: a message arriving on top repaints what is seen. */
#message-list > li { content-visibility: auto; contain-intrinsic-size: auto var(--row-size, 88px); }
.msg .item-from { grid-area: from; }
.msg .item-time { grid-area: time; justify-self: end; }
.msg .item-subject { grid-area: subject; }
.msg .item-to { grid-area: to; margin-top: 4px; color: var(--muted); font-size: 12px; }
.msg > .status-badge { grid-area: status; margin-top: 4px; align-self: center; }
.msg > .tag { grid-area: tag; margin-top: 4px; align-self: center; }
.item-desc { display: block; margin-top: 2px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: var(--muted); font-size: 12.5px; }
.item-vars { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 6px; }
.tag, .chip { flex: none; max-width: 100%; overflow: hidden; text-overflow: ellipsis; padding: 0 6px; font-family: var(--mono); font-size: 11px; line-height: 18px; color: var(--muted); background: var(--surface-2); border: 1px solid var(--border); border-radius: 4px; white-space: nowrap; }
.item[aria-current="true"] .tag, .item[aria-current="true"] .chip { background: var(--surface); }
.is-new { animation: arrive 2.4s ease-out; }
@keyframes arrive { from { background: color-mix(in srgb, var(--accent) 22%, transparent); } to { background: transparent; } }
@media (prefers-reduced-motion: reduce) { .is-new { animation: none; } }
.badge { flex: none; padding: 0 7px; border-radius: 999px; font-size: 11px; font-weight: 600; line-height: 18px; }
.badge-error { color: var(--danger); background: var(--danger-soft); border: 1px solid var(--danger-border); }
.more-bar { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 8px 12px; padding: 12px 16px 16px; }
.more-count { margin: 0; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.empty { padding: 36px 20px; color: var(--muted); text-align: center; }
.empty-title { margin: 0 0 6px; color: var(--text); font-size: 15px; font-weight: 600; }
.empty .code { margin-top: 14px; text-align: left; font-size: 11.5px; }
.muted { color: var(--muted); }

/* ---- buttons ---- */
.btn { display: inline-flex; align-items: center; gap: 6px; height: 32px; padding: 0 12px; font: inherit; font-size: 13px; font-weight: 500; color: var(--text); text-decoration: none; white-space: nowrap; background: var(--surface); border: 1px solid var(--border); border-radius: 7px; cursor: pointer; }
.btn:hover { background: var(--surface-2); }
.btn:disabled { opacity: 0.45; cursor: default; background: transparent; }
.btn-quiet { height: 28px; padding: 0 8px; background: transparent; border-color: transparent; }
.btn-danger-text { color: var(--danger); }
.btn-danger { color: #fff; background: #c92a2a; border-color: #c92a2a; }
.btn-danger:hover { background: #a61e1e; }

/* ---- the open message / template ---- */
.placeholder { margin: auto; padding: 40px 24px; max-width: 32em; color: var(--muted); text-align: center; }
.placeholder .hint { margin-top: 10px; line-height: 2; }
.message { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.message-head { padding: 20px 24px 4px; background: var(--surface); }
.back { display: none; align-items: center; gap: 4px; margin-bottom: 10px; font-weight: 500; text-decoration: none; }
.message-head h2 { margin: 0 0 10px; font-size: 20px; line-height: 1.3; overflow-wrap: anywhere; }
.message-head h2:focus { outline: none; }
.lede { margin: -4px 0 10px; color: var(--muted); }
.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 3px 14px; margin: 0; font-size: 13px; }
.meta > div { display: contents; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.addr { color: var(--muted); }
.link-button { padding: 0; font: inherit; color: var(--accent-text); background: none; border: 0; text-decoration: underline; cursor: pointer; }
.chips { display: flex; flex-wrap: wrap; gap: 4px; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 14px 0 6px; }
.message-head .note { margin: 10px 0 6px; }
.toolbar { display: flex; flex-wrap: wrap; align-items: flex-end; justify-content: space-between; gap: 6px 16px; padding: 8px 24px 0; background: var(--surface); border-bottom: 1px solid var(--border); }
.message-head .toolbar { margin: 6px -24px 0; }
.toolbar-end { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px; margin-bottom: 7px; }
.tabs { display: flex; gap: 2px; }
[role="tab"] { margin-bottom: -1px; padding: 8px 12px 9px; font: inherit; font-weight: 500; color: var(--muted); background: none; border: 0; border-bottom: 2px solid transparent; cursor: pointer; }
[role="tab"]:hover { color: var(--text); }
[role="tab"][aria-selected="true"] { color: var(--text); border-bottom-color: var(--accent); }
[role="tab"]:focus-visible { outline-offset: -3px; }
.toolbar > .widths { margin-bottom: 7px; }
.widths { display: inline-flex; border: 1px solid var(--border); border-radius: 7px; overflow: hidden; }
.width { padding: 4px 9px; font: inherit; font-size: 12px; color: var(--muted); background: var(--surface); border: 0; border-left: 1px solid var(--border); cursor: pointer; white-space: nowrap; font-variant-numeric: tabular-nums; }
.width:first-child { border-left: 0; }
.width:hover { color: var(--text); }
.width[aria-pressed="true"] { color: var(--accent-text); background: var(--accent-soft); font-weight: 600; }
.width:focus-visible { outline-offset: -2px; border-radius: 0; }

/* ---- preview options: width, colour scheme, images ---- */
.viewbar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 10px; padding: 8px 24px; background: var(--surface); border-bottom: 1px solid var(--border); }
.width-field { gap: 4px; }
.width-field input { width: 5.4em; height: 28px; padding: 0 6px; font: inherit; font-size: 13px; font-variant-numeric: tabular-nums; color: var(--text); background: var(--bg); border: 1px solid var(--border); border-radius: 6px; }
.width-field input::placeholder { color: var(--muted); }
.width-field input[aria-invalid="true"] { border-color: var(--danger); }
.width.toggle { border: 1px solid var(--border); border-radius: 7px; }
.width.toggle:focus-visible { border-radius: 7px; }

/* ---- tab badges ---- */
.tab-badge { display: inline-block; min-width: 18px; margin-left: 6px; padding: 0 5px; border-radius: 999px; font-size: 11px; font-weight: 650; line-height: 17px; text-align: center; font-variant-numeric: tabular-nums; color: var(--muted); background: var(--surface-2); border: 1px solid var(--border); }
.tab-badge[data-severity="error"] { color: var(--danger); background: var(--danger-soft); border-color: var(--danger-border); }
.tab-badge[data-severity="warning"] { color: var(--warn-text); background: var(--warn-soft); border-color: var(--warn-border); }
.field { display: flex; align-items: center; gap: 6px; font-size: 13px; }
.field label { color: var(--muted); }
.field select { height: 28px; padding: 0 6px; font: inherit; color: var(--text); background: var(--surface); border: 1px solid var(--border); border-radius: 6px; }
.field-static { margin: 0; color: var(--muted); font-size: 13px; }
.panel { flex: 1; min-height: 0; display: flex; flex-direction: column; overflow: auto; }
.template-body { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.canvas { flex: 1; min-height: 0; display: flex; justify-content: safe center; padding: 16px; overflow: auto; }
.frame { flex: none; width: 100%; height: 100%; min-height: 420px; background: #fff; border: 0; border-radius: 8px; box-shadow: var(--shadow); }
/* A template preview: the frame as tall as the email (frame.tsx measures it), the canvas
   scrolls, so a re-render keeps the place the designer scrolled to. */
.canvas.is-fit { position: relative; align-items: flex-start; }
.canvas.is-fit .frame { height: auto; }
.measure-box { position: absolute; left: 0; top: 0; width: 0; height: 0; overflow: hidden; visibility: hidden; pointer-events: none; }
.frame-measure { height: 100px; border: 0; }
.template-main { position: relative; }
/* The email's own dark rules: a dark backdrop where the email leaves the canvas transparent. */
.frame.is-dark { background: #121212; }
/* What the Gmail and Outlook apps do to an email in dark mode, more or less. */
.frame.is-inverted { filter: invert(1) hue-rotate(180deg); }
.text-body { flex: 1; margin: 0; padding: 20px 24px; font-size: 13px; line-height: 1.6; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--surface); }
.code { margin: 0; padding: 12px 14px; font-size: 12.5px; line-height: 1.55; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--surface-2); border: 1px solid var(--border); border-radius: 7px; }
.source { margin: 16px 24px 24px; }
.source-lines { padding-left: 0; }
.source-lines .line { display: block; position: relative; padding-left: 4.6em; min-height: 1.55em; }
.source-lines .line::before { content: attr(data-line); position: absolute; left: 0; width: 3.6em; text-align: right; color: var(--muted); opacity: 0.75; font-variant-numeric: tabular-nums; user-select: none; }
.source-lines .line.is-target { background: var(--warn-soft); box-shadow: inset 3px 0 0 var(--warn-text); }
.source-lines .line.is-target::before { color: var(--warn-text); opacity: 1; font-weight: 700; }
.details { padding: 16px 24px 28px; }
.table-scroll { max-width: 100%; overflow-x: auto; }
.table-scroll:focus-visible { outline-offset: 2px; }
.details h3 { margin: 22px 0 8px; font-size: 12px; letter-spacing: 0.04em; text-transform: uppercase; color: var(--muted); }
.details h3:first-child { margin-top: 4px; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 8px 18px; margin: 0; font-size: 13px; }
.facts > div { display: contents; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.plain { margin: 0; padding: 0; list-style: none; }
.vars { width: 100%; border-collapse: collapse; font-size: 13px; }
/* A word breaks only when it cannot fit a line of its own: a narrow column does not wrap an
   address a letter at a time; a table wider than its box scrolls sideways (.table-scroll). */
.vars th, .vars td { padding: 6px 10px 6px 0; text-align: left; vertical-align: top; border-bottom: 1px solid var(--border); overflow-wrap: break-word; }
.vars th { color: var(--muted); font-weight: 500; }
.notes:empty { display: none; }
.notes { padding: 12px 24px 0; }
.notes .note + .note { margin-top: 8px; }
.note { padding: 8px 12px; font-size: 13px; background: var(--surface-2); border: 1px solid var(--border); border-radius: 7px; overflow-wrap: anywhere; }
.note-warn { color: var(--warn-text); background: var(--warn-soft); border-color: var(--warn-border); }
.note ul { margin: 4px 0 0; padding-left: 18px; }
.error-panel { margin: 20px 24px; padding: 16px 18px; background: var(--danger-soft); border: 1px solid var(--danger-border); border-left: 4px solid var(--danger); border-radius: 8px; overflow-wrap: anywhere; }
.error-panel h3 { margin: 0 0 6px; font-size: 15px; color: var(--danger); }
.error-message { margin: 4px 0 10px; }
.error-places li + li { margin-top: 8px; }
.error-location { font-weight: 600; }
.error-linecol { color: var(--muted); }

/* ---- the template: live variables beside (or above) the preview ---- */
.template-main { flex: 1; min-height: 0; min-width: 0; display: flex; flex-direction: column; }
.vars-editor { display: flex; flex-direction: column; gap: 6px; padding: 12px 24px 14px; background: var(--surface); border-bottom: 1px solid var(--border); }
.vars-head { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 4px 10px; }
.vars-label { font-weight: 600; }
.vars-editor .hint { margin: 0; }
.edited { color: var(--muted); font-size: 12.5px; }
.field-error { margin: 0; padding: 6px 10px; font-size: 12.5px; color: var(--danger); background: var(--danger-soft); border: 1px solid var(--danger-border); border-radius: 6px; overflow-wrap: anywhere; }
.render-status { margin: 0; min-height: 1.45em; color: var(--muted); font-size: 12.5px; }
.render-status[data-state="busy"]::before, .render-status[data-state="ok"]::before, .render-status[data-state="error"]::before { content: ""; display: inline-block; width: 7px; height: 7px; margin-right: 6px; border-radius: 50%; vertical-align: 1px; background: var(--muted); }
.render-status[data-state="ok"]::before { background: var(--live); }
.vars-code { display: flex; flex-direction: column; min-width: 0; max-height: 45vh; }
.render-status[data-state="error"] { color: var(--danger); }
.render-status[data-state="error"]::before { background: var(--danger); }
.save-case { display: flex; flex-direction: column; gap: 4px; margin-top: 4px; padding-top: 10px; border-top: 1px solid var(--border); }
.save-case label { color: var(--muted); font-size: 12.5px; }
.save-row { display: flex; gap: 8px; }
.text-input { flex: 1; min-width: 0; height: 32px; padding: 0 8px; font: inherit; font-family: var(--mono); font-size: 12.5px; color: var(--text); background: var(--bg); border: 1px solid var(--border); border-radius: 7px; }
.text-input:focus-visible { outline-offset: 0; border-color: var(--accent); }
.text-input[aria-invalid="true"] { border-color: var(--danger); }
.save-message:empty { display: none; }
.release { display: flex; flex-direction: column; gap: 6px; margin: 10px 0 6px; padding: 10px 12px; background: var(--surface-2); border: 1px solid var(--border); border-radius: 7px; overflow-wrap: anywhere; }
.release h3 { margin: 0; font-size: 13.5px; }
.release label { color: var(--muted); font-size: 12.5px; }
.release-note { margin: 0; font-size: 12.5px; }
.release-note[data-state="error"], .release-result[data-state="failed"] p { color: var(--danger); }
.release-result:empty { display: none; }
.release-result p { margin: 0; font-size: 12.5px; }
.release-result[data-state="sent"] p { color: var(--ok-text); }
.release-history ul { margin: 2px 0 0; font-size: 12.5px; }
.save-message p { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 6px; margin: 2px 0 0; font-size: 12.5px; overflow-wrap: anywhere; }
.save-message[data-state="error"] p { color: var(--danger); }
.save-message[data-state="ok"] p { color: var(--ok-text); }
.save-message code { font-size: 11.5px; color: var(--text); }

/* ---- checks ---- */
.checks-summary { margin: 4px 0 14px; font-size: 15px; font-weight: 650; }
/* More specific than .details h3:first-child: every group's heading is the first in its box. */
.checks .size h3, .checks .clients h3, .checks .finding-group h3 { margin: 22px 0 8px; font-size: 12px; letter-spacing: 0.04em; text-transform: uppercase; color: var(--muted); }
.checks .size h3 { margin-top: 4px; }
.size-line { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; margin: 0; }
.size-line meter { width: 180px; height: 12px; }
.findings { display: flex; flex-direction: column; gap: 8px; }
.finding { padding: 9px 12px; background: var(--surface); border: 1px solid var(--border); border-left: 4px solid var(--muted); border-radius: 7px; overflow-wrap: anywhere; }
.finding[data-severity="error"] { border-left-color: var(--danger); }
.finding[data-severity="warning"] { border-left-color: var(--warn-border); }
.finding p { margin: 0; }
.finding-message { font-weight: 500; }
.finding-fix { margin-top: 3px !important; color: var(--muted); }
.finding-label { font-weight: 600; color: var(--text); }
.finding-meta { display: flex; flex-wrap: wrap; align-items: center; gap: 4px; margin-top: 6px !important; color: var(--muted); font-size: 12px; }
.finding-code { font-size: 11.5px; }
.finding-line { font-weight: 600; font-variant-numeric: tabular-nums; }
details.finding-group > summary { cursor: pointer; color: var(--muted); }
details.finding-group > summary { margin: 22px 0 8px; }
.checks details.finding-group > summary h3 { display: inline-block; margin: 0; }
.client-table th[scope="row"] { color: var(--text); font-weight: 500; white-space: nowrap; }
.client-table .score { white-space: nowrap; font-variant-numeric: tabular-nums; font-weight: 600; }
.score-value[data-state="ok"] { color: var(--ok-text); }
.score-value[data-state="warning"] { color: var(--warn-text); }
.score-value[data-state="error"] { color: var(--danger); }
.client-table .chips { gap: 3px; }
.client-table .chip { white-space: normal; overflow-wrap: anywhere; }

/* ---- the log cannot be written (docs/log-faults.md) ---- */
.log-banner { padding: 8px 16px; color: var(--danger); background: var(--danger-soft); border-bottom: 1px solid var(--danger-border); font-size: 13px; line-height: 1.5; overflow-wrap: anywhere; }
.log-banner[hidden] { display: none; }

/* ---- dialog, toast ---- */
dialog { width: min(420px, calc(100vw - 32px)); padding: 20px 22px; color: var(--text); background: var(--surface); border: 1px solid var(--border); border-radius: 12px; box-shadow: 0 12px 40px rgb(0 0 0 / 0.25); }
dialog::backdrop { background: rgb(10 14 20 / 0.45); }
dialog h2 { margin: 0 0 8px; font-size: 17px; }
dialog p { margin: 0; color: var(--muted); }
.dialog-actions { display: flex; justify-content: flex-end; gap: 8px; margin-top: 20px; }
.toast { position: fixed; left: 50%; bottom: 16px; z-index: 40; max-width: calc(100vw - 32px); padding: 10px 14px; color: var(--bg); background: var(--text); border-radius: 8px; box-shadow: var(--shadow); transform: translateX(-50%); }

/* ---- wide: two panes that scroll on their own ---- */
@media (min-width: 761px) {
  /* The page never scrolls: the list and the open message each scroll in their own pane. */
  body { height: 100vh; height: 100dvh; overflow: hidden; }
  .pane { overscroll-behavior: contain; }
  /* Templates: a narrower list, for the variables editor beside the preview. */
  #view-templates { grid-template-columns: minmax(240px, 300px) minmax(0, 1fr); }
}
/* Not wide enough for the editor beside a 600 px email: the editor on top, the pane scrolls. */
@media (min-width: 761px) and (max-width: 1279px) {
  .template-body { flex: none; }
  .template-main .panel { flex: none; overflow: visible; }
  .template-main .frame { height: 78vh; }
}
@media (min-width: 1280px) {
  /* A 600 px email fits beside the list (240) and the editor (360 by default): 1280 - 240 - 360
     leaves 680 for the preview, its canvas's padding and its scroll bar. */
  #view-templates { grid-template-columns: 240px minmax(0, 1fr); }
  /* The editor's width comes from its splitter (src/inbox/page/splitter.tsx). */
  .template-body { display: grid; grid-template-columns: min(var(--editor-width, 360px), calc(100% - 360px)) auto minmax(0, 1fr); }
  .template-body[data-editor="off"] { grid-template-columns: minmax(0, 1fr); }
  .vars-editor { min-height: 0; overflow: auto; padding: 14px 16px; border-bottom: 0; border-right: 1px solid var(--border); }
  .vars-code { flex: 1 1 auto; min-height: 14em; max-height: none; }
}

/* ---- narrow: one column, the list or the message ---- */
@media (max-width: 760px) {
  /* Two rows: the brand and the stream's state, then the sections. */
  .topbar { grid-template-columns: minmax(0, 1fr) auto; grid-template-areas: "brand status" "nav nav"; column-gap: 10px; padding: 4px 12px 6px; }
  .brand { padding: 6px 0 4px; }
  /* The sections in one row that scrolls sideways (a third row pushed every view ~30 px down);
     the fade at the right edge says there is more. */
  .sections ul { position: relative; flex-wrap: nowrap; gap: 0 2px; overflow-x: auto; scrollbar-width: none; mask-image: linear-gradient(to right, #000 calc(100% - 24px), transparent); }
  .sections a { padding: 5px 8px; font-size: 13.5px; }
  .split { display: block; }
  .split[data-open="true"] > .list-pane, .split[data-open="false"] > .detail-pane { display: none; }
  .pane { overflow: visible; }
  .list-pane { min-height: calc(100vh - 52px); border-right: 0; }
  .back { display: inline-flex; }
  .message-head { padding: 14px 16px 4px; }
  .message-head .toolbar { margin: 6px -16px 0; }
  .toolbar { padding: 6px 16px 0; }
  .notes { padding: 12px 16px 0; }
  .canvas { padding: 8px; }
  .frame { height: 72vh; }
  .viewbar { padding: 8px 16px; }
  .vars-editor { padding: 12px 16px 14px; }
  /* Seven message tabs in one row that scrolls sideways, whole words (not cut at "Checl"): two
     rows put the preview ~40 px further down, under a header already half the screen. */
  /* Positioned: a badge's visually-hidden words (absolute) stay inside the row's scroll, not the page's. */
  .tabs { position: relative; flex-wrap: nowrap; overflow-x: auto; scrollbar-width: none; }
  [role="tab"] { flex: none; white-space: nowrap; }
  [role="tab"] { padding: 8px 8px 9px; }
  .tab-badge { margin-left: 4px; }
  .text-body { padding: 16px; }
  .source { margin: 12px 16px 16px; }
  .details { padding: 14px 16px 24px; }
  .error-panel { margin: 16px; }
}
` +
  TEMPLATES_CSS +
  CHANGES_CSS +
  SESSION_CSS
