import { signal, type Signal } from '@preact/signals'
import {
  API,
  ApiError,
  api,
  type MessageSummary,
  type SnapshotChange,
  type Release,
  type StatusChange,
  type TemplateChange,
  type WebhookDelivery,
} from './api.js'
import type { Rejection } from '../../core/rejections.js'
import { ChangesModel } from './changes-model.js'
import { connectLive } from './live.js'
import { MessagesModel } from './messages-model.js'
import type { Page } from './page.js'
import { currentRoute, type Route } from './router.js'
import { SuppressionsModel } from './suppressions-model.js'
import { TemplatesModel } from './templates-model.js'
import { WebhooksModel } from './webhooks-model.js'

/**
 * The inbox's state, whole: the page's services, the route, the log's health and one model per
 * view, kept live by the inspector's event stream. Made once by app.tsx; the views (views.tsx)
 * draw it.
 */

/** The `log` event's data, and what the health answer says (`log`, `logError`): docs/log-faults.md. */
export interface LogState {
  state: string
  file?: string | null
  reason?: string
  message?: string
}

export interface PageState {
  readonly page: Page
  readonly route: Signal<Route>
  readonly log: Signal<LogState>
  readonly messages: MessagesModel
  readonly templates: TemplatesModel
  readonly webhooks: WebhooksModel
  readonly suppressions: SuppressionsModel
  readonly changes: ChangesModel
}

/**
 * @example
 * const inbox = createPageState(createPage(browserTiming()))
 */
export function createPageState(page: Page): PageState {
  return {
    page,
    route: signal(currentRoute()),
    log: signal<LogState>({ state: 'ok' }),
    messages: new MessagesModel(page),
    templates: new TemplatesModel(page),
    webhooks: new WebhooksModel(page),
    suppressions: new SuppressionsModel(page),
    changes: new ChangesModel(page),
  }
}

/**
 * Asks health for the log's state (at load, and when the event stream reopens). Its `503` is a
 * store that cannot be reached (a database away): the event stream says when it is back.
 */
async function refreshLogState(inbox: PageState): Promise<void> {
  try {
    const health = await api.health()
    setLogState(inbox, { state: health.log ?? 'ok', ...health.logError })
  } catch (error) {
    if (error instanceof ApiError && error.status === 503)
      setLogState(inbox, { state: 'unavailable' })
    // Otherwise sendbox is away: the stream's reconnect asks again.
  }
}

/**
 * The store's new state. Back from `unavailable`, what the views show is from before the outage
 * (and events may have been lost with the database's notices): they load again, and a toast of a
 * request the outage refused goes.
 */
function setLogState(inbox: PageState, next: LogState): void {
  const was = inbox.log.peek().state
  inbox.log.value = next
  if (was !== 'unavailable' || next.state === 'unavailable') return
  inbox.page.toastText.value = null
  resyncViews(inbox, false)
}

/** Whatever happened while the page could not hear of it is fetched once, view by view. */
function resyncViews(inbox: PageState, first: boolean): void {
  inbox.messages.resync()
  inbox.webhooks.resync()
  inbox.suppressions.resync()
  // The navigation counts the changes to review in every view: their list is always known.
  inbox.changes.resync()
  // At the first open the templates view has just loaded itself.
  if (!first) inbox.templates.resync()
}

/**
 * Opens the event stream (summaries: the list needs no bodies, the open message is fetched
 * whole) and hands each event to the model it is for.
 */
export function connectPageState(inbox: PageState): void {
  const { messages, templates, webhooks, suppressions, changes, page } = inbox
  connectLive(`${API}/events?fields=summary`, {
    onState: (state) => {
      page.live.value = state
    },
    onOpen(first) {
      // Whatever happened before this stream was open (or while none was) is fetched once.
      resyncViews(inbox, first)
      void refreshLogState(inbox)
    },
    events: {
      message: (data) => messages.onMessage(data as MessageSummary),
      deleted: (data) => messages.onDeleted((data as { id: string }).id),
      cleared: () => messages.onCleared(),
      template: (data) => {
        templates.onTemplateChange(data as TemplateChange)
        changes.onTemplateChange(data as TemplateChange)
      },
      snapshot: (data) => changes.onSnapshot(data as SnapshotChange),
      rejected: (data) => messages.rejections.add(data as Rejection),
      status: (data) => messages.onStatus(data as StatusChange),
      release: (data) => messages.onRelease(data as { id: string; release: Release }),
      webhook: (data) => webhooks.onDelivery(data as WebhookDelivery),
      suppression: () => suppressions.onChange(),
      log: (data) => setLogState(inbox, data as LogState),
    },
  })
}
