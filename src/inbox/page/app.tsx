import { effect } from '@preact/signals'
import { render } from 'preact'
import { browserTiming } from './burst.js'
import { api } from './api.js'
import { App } from './app-view.js'
import { SignIn } from './sign-in.js'
import { connectPageState, createPageState, type PageState } from './inbox.js'
import { createPage } from './page.js'
import { currentRoute } from './router.js'
import { isTyping, keyTarget } from './ui.js'
import { VIEWS, viewOf } from './views.js'

/**
 * The inbox page: views (views.tsx) behind hash routes, kept live by the inspector's event
 * stream, usable from the keyboard alone. This module starts it: the state (inbox.ts), the
 * route, the keys, the clock, and the one render of <App> into the shell's #app.
 */

/** How often relative times ("3 min. ago") are brought up to date. */
const CLOCK_MS = 30_000

/** The route in the URL is shown: its view loads what it needs, the others are left. */
function navigate(inbox: PageState): void {
  const route = currentRoute()
  const spec = viewOf(route)
  for (const view of VIEWS) if (view !== spec) view.hide?.(inbox)
  spec.show(inbox, route)
  inbox.route.value = route
}

/** j/k or ↓/↑ move through the list, `/` searches, Esc clears the search or goes back. */
function onKeydown(inbox: PageState, event: KeyboardEvent): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
  if (document.querySelector('dialog[open]')) return
  const spec = viewOf(inbox.route.peek())
  const keys = spec.keys?.(inbox)
  if (!keys) return
  const origin = keyTarget(event)
  if (isTyping(origin)) {
    if (origin !== keys.search) return
    if (event.key === 'Escape') {
      event.preventDefault()
      keys.escapeSearch()
    } else if (event.key === 'ArrowDown') {
      // From the search box straight into the results.
      event.preventDefault()
      keys.focusItem(0)
    }
    return
  }
  const target = event.target as HTMLElement
  const arrowsFree = keys.contains(target) || target === document.body || target.id === 'main'
  switch (event.key) {
    case '/':
      event.preventDefault()
      keys.focusSearch()
      return
    case 'j':
    case 'ArrowDown':
      if (event.key === 'ArrowDown' && !arrowsFree) return
      event.preventDefault()
      keys.move(1)
      return
    case 'k':
    case 'ArrowUp':
      if (event.key === 'ArrowUp' && !arrowsFree) return
      event.preventDefault()
      keys.move(-1)
      return
    case 'Escape':
      if (spec.back?.(inbox)) event.preventDefault()
      return
  }
}

async function start(): Promise<void> {
  // With projects, the page shows one project's mail: it asks who it is first, and for a token
  // when nobody signed in (the page itself holds no data).
  const session = await api.session().catch(() => null)
  if (session?.projects && !session.signedIn) {
    render(<SignIn />, document.getElementById('app')!)
    document.getElementById('token')?.focus()
    return
  }
  const page = createPage(browserTiming())
  const inbox = createPageState(page)
  // The live region is in the shell from the first byte (screen readers watch it from the start).
  const announcer = document.getElementById('announcer')
  effect(() => {
    if (announcer) announcer.textContent = page.announcement.value
  })
  // "Light" is asked of a frame explicitly when the system is dark: follow the system's changes.
  const dark = window.matchMedia('(prefers-color-scheme: dark)')
  page.systemDark.value = dark.matches
  dark.addEventListener('change', () => {
    page.systemDark.value = dark.matches
  })
  window.setInterval(() => {
    page.clock.value = Date.now()
  }, CLOCK_MS)
  document.addEventListener('keydown', (event) => onKeydown(inbox, event))
  window.addEventListener('hashchange', () => navigate(inbox))
  document.getElementById('skip-link')?.addEventListener('click', (event) => {
    // The hash belongs to the router: move the focus without touching it.
    event.preventDefault()
    document.getElementById('main')?.focus()
  })
  navigate(inbox)
  render(<App inbox={inbox} session={session} />, document.getElementById('app')!)
  connectPageState(inbox)
}

start().catch((error) => console.error(error))
