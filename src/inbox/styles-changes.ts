/**
 * The Changes view's own rules, appended to the inbox stylesheet (src/inbox/styles.ts): the
 * snapshot status badges, the comparison stage (two frames one over the other, the swipe's
 * divider), the screenshots, the unified diffs, and the layouts: the diffs beside the
 * comparison from 1280 px, under it below that, the list or the case on a phone.
 */
export const CHANGES_CSS = String.raw`
/* ---- snapshot statuses: words first, colour second ---- */
.status-badge[data-status="snapshot-changed"] { color: var(--warn-text); background: var(--warn-soft); border-color: var(--warn-border); }
.status-badge[data-status="snapshot-new"] { color: var(--accent-text); background: var(--accent-soft); border-color: color-mix(in srgb, var(--accent) 35%, transparent); }
.status-badge[data-status="snapshot-obsolete"] { color: var(--muted); background: var(--surface); border-color: var(--muted); border-style: dashed; }
.status-badge[data-status="snapshot-same"] { color: var(--ok-text); background: var(--surface); border-color: color-mix(in srgb, var(--live) 45%, transparent); }

/* ---- the list ---- */
.change-item .item-desc { display: flex; flex-wrap: wrap; align-items: center; gap: 2px 6px; margin-top: 4px; }
.change-error { color: var(--danger); font-size: 12px; }
#change-list-pane .title-row .btn { margin-right: -4px; }

/* ---- the case: its head ---- */
.btn-primary { color: #fff; background: var(--accent); border-color: var(--accent); font-weight: 600; }
.btn-primary:hover { background: var(--accent-text); }
.btn-primary:disabled { color: var(--muted); background: transparent; border-color: var(--border); }
@media (prefers-color-scheme: dark) {
  /* The dark accent is light: dark words on it. */
  .btn-primary { color: #0e1115; }
}
.change-head { padding-top: 14px; }
.change-head .title-line { align-items: center; }
.change-head h2 { margin: 0; }
.change-case { font-family: var(--mono); font-size: 0.75em; font-weight: 500; color: var(--muted); }
.change-actions { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin-left: auto; }
.change-head .lede { margin: 8px 0 4px; font-size: 13px; overflow-wrap: anywhere; }
.change-error-note { margin: 6px 0 4px; }
.change-head .toolbar { min-height: 8px; }
.change-head .field-static { margin-bottom: 8px; }

/* ---- the comparison ---- */
.change-body { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.change-main { flex: 1; min-width: 0; min-height: 0; display: flex; flex-direction: column; }
.change-note { margin: 12px 24px 0; }
.overlay-controls .field input[type="range"] { width: 10em; accent-color: var(--accent); }
.overlay-controls output { min-width: 3ch; font-variant-numeric: tabular-nums; }
.compare-canvas { align-items: flex-start; }
.stage { position: relative; flex: none; touch-action: pan-y; }
/* One frame exactly over the other; the stage, not the frames, takes the pointer. */
.stage > .stage-frame { position: absolute; left: 0; top: 0; width: 100%; height: 100%; min-height: 0; }
.stage[data-mode="swipe"] .stage-frame, .stage[data-mode="overlay"] .stage-frame { pointer-events: none; }
.stage-frame[data-side="current"] { box-shadow: none; }
.stage[data-mode="swipe"] { cursor: ew-resize; user-select: none; }
.stage-label { position: absolute; top: 8px; z-index: 1; padding: 1px 8px; border-radius: 999px; font-size: 11.5px; font-weight: 600; color: #fff; background: rgb(16 24 40 / 0.72); pointer-events: none; }
.stage-label[data-side="snapshot"] { left: 8px; }
.stage-label[data-side="current"] { right: 8px; }
/* The first difference: a box drawn round it on both sides of the swipe (outline and a tint,
   not colour alone), under the divider so the divider stays on top to drag. */
.stage-mark { position: absolute; z-index: 1; border: 2px dashed #d9480f; border-radius: 4px; background: rgb(217 72 15 / 0.08); pointer-events: none; }
/* The divider: a line the height of the emails, a grip that stays in sight while they scroll. */
.swipe-divider { position: absolute; top: 0; bottom: 0; z-index: 2; width: 28px; margin-left: -14px; cursor: ew-resize; }
.swipe-divider::before { content: ""; position: absolute; top: 0; bottom: 0; left: 13px; width: 2px; background: var(--accent); box-shadow: 0 0 0 1px rgb(255 255 255 / 0.7); }
.swipe-grip { position: sticky; top: 35vh; display: block; width: 28px; height: 28px; margin-top: 40px; border-radius: 50%; background: var(--accent); border: 2px solid #fff; box-shadow: var(--shadow); }
.swipe-grip::before { content: ""; position: absolute; top: 7px; bottom: 7px; left: 8px; right: 8px; border-left: 2px solid #fff; border-right: 2px solid #fff; }
.swipe-divider:focus-visible { outline: none; }
.swipe-divider:focus-visible .swipe-grip { outline: 3px solid var(--accent); outline-offset: 2px; }
.swipe-divider:focus-visible::before { width: 4px; left: 12px; }

/* ---- the screenshots of sendbox check --visual ---- */
.shots { padding: 16px 24px 24px; }
.shots .note { margin: 0 0 12px; }
.shot-row { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 16px; }
.shot { flex: 1 1 200px; min-width: 0; max-width: 600px; margin: 0; }
.shot img { display: block; max-width: 100%; height: auto; background: #fff; border: 1px solid var(--border); border-radius: 6px; }
.shot figcaption { margin-top: 4px; color: var(--muted); font-size: 12px; }

/* ---- the diffs: numbers from attributes (never copied), a marker, a tint ---- */
.change-diffs { padding: 4px 16px 24px; background: var(--surface); border-top: 1px solid var(--border); }
.diff-section h3 { display: flex; align-items: baseline; gap: 8px; margin: 14px 0 6px; font-size: 12px; letter-spacing: 0.04em; text-transform: uppercase; color: var(--muted); }
.diff-stat { font-family: var(--mono); font-size: 12px; letter-spacing: 0; text-transform: none; font-weight: 600; }
.diff-added { color: var(--ok-text); }
.diff-removed { color: var(--danger); }
.diff-same { margin: 0; font-size: 13px; }
.diff { padding: 6px 0; font-size: 12px; line-height: 1.5; }
.diff-line { display: block; position: relative; min-height: 1.5em; padding: 0 8px 0 7.2em; color: var(--text); text-decoration: none; }
.diff-n { position: absolute; top: 0; left: 0; width: 2.6em; text-align: right; color: var(--muted); opacity: 0.8; font-variant-numeric: tabular-nums; user-select: none; }
.diff-n + .diff-n { left: 2.9em; }
.diff-n::before { content: attr(data-n); }
.diff-mark { position: absolute; top: 0; left: 6em; font-weight: 700; }
.diff-line[data-kind="add"] { background: #e6f4ea; }
.diff-line[data-kind="add"] .diff-mark { color: var(--ok-text); }
.diff-line[data-kind="del"] { background: #fdecec; }
.diff-line[data-kind="del"] .diff-mark { color: var(--danger); }
.diff-change { color: inherit; background: none; border-radius: 2px; text-decoration: underline 2px; text-underline-offset: 2px; }
.diff-line[data-kind="add"] .diff-change { background: #b7e1c1; text-decoration-color: var(--ok-text); }
.diff-line[data-kind="del"] .diff-change { background: #f7c1c1; text-decoration-color: var(--danger); }
.diff-line[data-kind="hunk"] { padding-left: 8px; color: var(--accent-text); background: var(--accent-soft); }
.diff-line[data-kind="header"], .diff-line[data-kind="note"] { padding-left: 8px; color: var(--muted); }
@media (prefers-color-scheme: dark) {
  .diff-line[data-kind="add"] { background: #13301c; }
  .diff-line[data-kind="del"] { background: #3a1a1d; }
  .diff-line[data-kind="add"] .diff-change { background: #1f5a30; }
  .diff-line[data-kind="del"] .diff-change { background: #6b2a2f; }
}

@media (min-width: 761px) {
  #view-changes { grid-template-columns: minmax(240px, 280px) minmax(0, 1fr); }
}
/* Not wide enough to put the diffs beside a 600 px email: under it, and the pane scrolls. */
@media (min-width: 761px) and (max-width: 1279px) {
  .change-body, .change-main, .change-panel { flex: none; }
  .change-panel .compare-canvas { flex: none; overflow: visible; }
}
@media (min-width: 1280px) {
  /* 1280 - 260 for the list leaves 1020: 440 for the diffs (a dedented HTML line of ~55
     characters fits one row), 580 for the email ("Fit" scales a 600 px one down a little). */
  #view-changes { grid-template-columns: 260px minmax(0, 1fr); }
  .change-body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(300px, 440px); }
  .change-diffs { min-height: 0; overflow: auto; border-top: 0; border-left: 1px solid var(--border); overscroll-behavior: contain; }
}
@media (max-width: 760px) {
  .change-head .title-line { gap: 6px 10px; }
  .change-actions { margin-left: 0; flex-basis: 100%; }
  .change-note { margin: 12px 16px 0; }
  .shots { padding: 12px 16px 16px; }
  .change-diffs { padding: 4px 12px 20px; }
}
`
