/**
 * The inbox page's HTML shell: the skip link, the element the page renders into (#app: the
 * top bar, <main>, the dialog; src/inbox/page, bundled to /_sandbox/app.js), and the polite
 * live region, there from the first byte so that screen readers watch it before it speaks. No
 * inline script or style anywhere: the page's CSP forbids both.
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
<div id="app" class="app"></div>
<noscript><p class="noscript">The inbox needs JavaScript. The inspector API under /_sandbox/api works without it.</p></noscript>
<div id="announcer" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
</body>
</html>
`

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/><path d="M7 10.5h18v11H7z" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/><path d="M7.5 11l8.5 6.5 8.5-6.5" fill="none" stroke="#fff" stroke-width="2" stroke-linejoin="round"/></svg>
`
