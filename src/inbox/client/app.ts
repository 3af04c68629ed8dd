import {
  API,
  type MessageSummary,
  type StatusChange,
  type TemplateChange,
  type WebhookDelivery,
} from './api.js'
import type { Rejection } from '../../core/rejections.js'
import { $, isTyping } from './dom.js'
import { timeAgo } from './format.js'
import { connectLive } from './live.js'
import { type LogState, refreshLogState, showLogState } from './log-banner.js'
import { MessagesView } from './messages.js'
import { currentRoute } from './router.js'
import { TemplatesView } from './templates.js'
import { SuppressionsView } from './suppressions.js'
import { WebhooksView } from './webhooks.js'

/**
 * The inbox page: four views (messages, templates, webhooks, suppressions) behind hash routes,
 * kept live by the inspector's event stream, usable from the keyboard alone.
 */

const messages = new MessagesView()
const templates = new TemplatesView()
const webhooks = new WebhooksView()
const suppressions = new SuppressionsView()

function route(): void {
  const current = currentRoute()
  messages.root.hidden = current.view !== 'messages'
  templates.root.hidden = current.view !== 'templates'
  webhooks.root.hidden = current.view !== 'webhooks'
  suppressions.root.hidden = current.view !== 'suppressions'
  for (const view of ['messages', 'templates', 'webhooks', 'suppressions'] as const) {
    const link = $(`#nav-${view}`)
    if (view === current.view) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  if (current.view === 'templates') templates.show(current)
  else if (current.view === 'webhooks') webhooks.show()
  else if (current.view === 'suppressions') suppressions.show()
  else messages.show(current)
}

// ---- live updates ------------------------------------------------------------------------

function setStatus(state: 'connecting' | 'live' | 'offline'): void {
  const status = $('#status')
  status.dataset.state = state
  $('#status-text').textContent = {
    connecting: 'Connecting…',
    live: 'Live',
    offline: 'Reconnecting…',
  }[state]
  status.title =
    state === 'live'
      ? 'New messages and template changes show up by themselves'
      : 'Waiting for sendbox; the page catches up when it is back'
}

function connect(): void {
  // Summaries: the list needs no bodies, and the open message is fetched whole.
  connectLive(`${API}/events?fields=summary`, {
    onState: setStatus,
    onOpen(first) {
      // Whatever happened before this stream was open (or while none was) is fetched once.
      messages.resync()
      void refreshLogState()
      webhooks.resync()
      suppressions.resync()
      // At the first open the templates view has just loaded itself.
      if (!first) templates.resync()
    },
    events: {
      message: (data) => messages.onMessage(data as MessageSummary),
      deleted: (data) => messages.onDeleted((data as { id: string }).id),
      cleared: () => messages.onCleared(),
      template: (data) => templates.onTemplateChange(data as TemplateChange),
      rejected: (data) => messages.list.rejected.add(data as Rejection),
      status: (data) => messages.onStatus(data as StatusChange),
      webhook: (data) => webhooks.onDelivery(data as WebhookDelivery),
      suppression: () => suppressions.onChange(),
      log: (data) => showLogState(data as LogState),
    },
  })
}

// ---- keyboard ----------------------------------------------------------------------------

/** The view with a list and a search box, for the keyboard; none on the webhooks and suppressions pages. */
function activeView(): MessagesView | TemplatesView | null {
  const { view } = currentRoute()
  return view === 'templates' ? templates : view === 'messages' ? messages : null
}

function onKeydown(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
  if (document.querySelector('dialog[open]')) return
  const view = activeView()
  if (!view) return
  const { pane } = view
  if (isTyping(event.target)) {
    if (event.target !== pane.search) return
    if (event.key === 'Escape') {
      event.preventDefault()
      pane.escapeSearch()
    } else if (event.key === 'ArrowDown') {
      // From the search box straight into the results.
      event.preventDefault()
      pane.focusItem(0)
    }
    return
  }
  const target = event.target as HTMLElement
  const inList = pane.list.contains(target)
  const arrowsFree = inList || target === document.body || target.id === 'main'
  switch (event.key) {
    case '/':
      event.preventDefault()
      pane.focusSearch()
      return
    case 'j':
    case 'ArrowDown':
      if (event.key === 'ArrowDown' && !arrowsFree) return
      event.preventDefault()
      pane.move(1)
      return
    case 'k':
    case 'ArrowUp':
      if (event.key === 'ArrowUp' && !arrowsFree) return
      event.preventDefault()
      pane.move(-1)
      return
    case 'Escape':
      if (view.back()) event.preventDefault()
      return
  }
}

// ---- start -------------------------------------------------------------------------------

const main = $('#main')
main.append(messages.root, templates.root, webhooks.root, suppressions.root)
$('#skip-link').addEventListener('click', (event) => {
  // The hash belongs to the router: move the focus without touching it.
  event.preventDefault()
  main.focus()
})
document.addEventListener('keydown', onKeydown)
window.addEventListener('hashchange', route)
window.setInterval(() => {
  for (const time of document.querySelectorAll<HTMLTimeElement>('time[data-relative]'))
    time.textContent = timeAgo(time.dateTime)
}, 30_000)
route()
connect()
