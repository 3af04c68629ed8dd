/** The sign-in page and the top bar's project (docs/team.md#projects-each-teams-mail-behind-its-own-tokens): part of /_sandbox/app.css. */
export const SESSION_CSS = String.raw`
.sign-in { display: flex; align-items: center; justify-content: center; min-height: 100vh; padding: 24px 16px; }
.sign-in form { display: flex; flex-direction: column; gap: 12px; width: 100%; max-width: 24em; padding: 24px; background: var(--surface); border: 1px solid var(--border); border-radius: 10px; }
.sign-in h1 { margin: 0; font-size: 18px; }
.sign-in p { margin: 0; color: var(--muted); font-size: 13px; }
.sign-in label { font-size: 13px; font-weight: 600; }
.sign-in input { height: 34px; padding: 0 10px; font: inherit; color: var(--text); background: var(--surface); border: 1px solid var(--border); border-radius: 7px; }
.sign-in .btn { align-self: flex-start; }
.session { display: flex; align-items: center; gap: 8px; margin: 0; color: var(--muted); font-size: 12.5px; white-space: nowrap; }
.session strong { color: var(--text); }
.corner { grid-area: status; display: flex; align-items: center; gap: 14px; justify-content: flex-end; }
`
