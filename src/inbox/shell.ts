/**
 * The inbox page's HTML shell: landmarks, the live region and the confirmation dialog. The
 * client (src/inbox/client, compiled to /_sandbox/app.js) fills <main>. No inline script or
 * style anywhere: the page's CSP forbids both.
 */
export const INBOX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>sendbox</title>
<link rel="icon" href="/_sandbox/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/_sandbox/app.css">
<script type="module" src="/_sandbox/app.js"></script>
</head>
<body>
<a class="skip-link" href="#main" id="skip-link">Skip to content</a>
<header class="topbar">
  <p class="brand"><a href="#/" aria-label="sendbox, messages"><span class="brand-mark" aria-hidden="true"></span>sendbox</a></p>
  <nav class="sections" aria-label="Sections">
    <ul>
      <li><a href="#/" id="nav-messages">Messages</a></li>
      <li><a href="#/templates" id="nav-templates">Templates</a></li>
      <li><a href="#/webhooks" id="nav-webhooks">Webhooks</a></li>
      <li><a href="#/suppressions" id="nav-suppressions">Suppressions</a></li>
    </ul>
  </nav>
  <p class="status" id="status" data-state="connecting"><span class="status-dot" aria-hidden="true"></span><span id="status-text">Connecting…</span></p>
</header>
<div id="log-banner" class="log-banner" role="alert" hidden></div>
<main id="main" tabindex="-1">
  <h1 class="visually-hidden">sendbox inbox</h1>
  <noscript><p class="noscript">The inbox needs JavaScript. The inspector API under /_sandbox/api works without it.</p></noscript>
</main>
<div id="announcer" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
<div id="toast" class="toast" role="alert" hidden></div>
<dialog id="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-text">
  <h2 id="confirm-title">Delete messages?</h2>
  <p id="confirm-text"></p>
  <div class="dialog-actions">
    <button type="button" class="btn" id="confirm-cancel" autofocus>Cancel</button>
    <button type="button" class="btn btn-danger" id="confirm-ok">Delete</button>
  </div>
</dialog>
</body>
</html>
`

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/><path d="M7 10.5h18v11H7z" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/><path d="M7.5 11l8.5 6.5 8.5-6.5" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/></svg>
`
