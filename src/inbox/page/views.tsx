import type { FunctionComponent } from 'preact'
import { ChangesView } from './changes.js'
import { toReview } from './changes-model.js'
import type { PageState } from './inbox.js'
import type { ListNav } from './list-nav.js'
import { MessagesView } from './messages.js'
import type { Route } from './router.js'
import { SuppressionsView } from './suppressions.js'
import { TemplatesView } from './templates.js'
import { WebhooksView } from './webhooks.js'

/**
 * The inbox's views, in the order of the navigation. A view is a row here: its URL segment, its
 * name in the navigation, its component, what happens when its route is shown or left, and,
 * when it has a list, the list's keyboard. ARCHITECTURE.md ("The inbox page") says how to add one.
 */
export interface ViewSpec {
  /** The first segment of its URL (`#/webhooks`), and `nav-<id>` in the navigation. */
  id: string
  label: string
  /** Draws the view from its model. */
  View: FunctionComponent<{ inbox: PageState; route: Route }>
  /** Its route is shown (the first time, or with other parameters): load what it needs. */
  show(inbox: PageState, route: Route): void
  /** Another view's route is shown. */
  hide?(inbox: PageState): void
  /** A count after its name in the navigation (null: none). */
  count?(inbox: PageState): number | null
  /** j/k, `/` and Esc, for a view with a list and a search box. */
  keys?(inbox: PageState): ListNav
  /** Esc with nothing else to do: back from the open item (true when it went). */
  back?(inbox: PageState): boolean
}

export const VIEWS: readonly ViewSpec[] = [
  {
    id: 'messages',
    label: 'Messages',
    View: ({ inbox, route }) => <MessagesView model={inbox.messages} route={route} />,
    show: (inbox, route) => inbox.messages.show(route),
    keys: (inbox) => inbox.messages.keys,
    back: (inbox) => inbox.messages.back(),
  },
  {
    id: 'templates',
    label: 'Templates',
    View: ({ inbox, route }) => <TemplatesView model={inbox.templates} route={route} />,
    show: (inbox, route) => inbox.templates.show(route),
    keys: (inbox) => inbox.templates.keys,
    back: (inbox) => inbox.templates.back(),
  },
  {
    id: 'changes',
    label: 'Changes',
    View: ({ inbox, route }) => <ChangesView model={inbox.changes} route={route} />,
    show: (inbox, route) => inbox.changes.show(route),
    hide: (inbox) => inbox.changes.hide(),
    // Changed and new cases: what is left to review (obsolete snapshots are listed, not counted).
    count: (inbox) => toReview(inbox.changes.counts.value),
    keys: (inbox) => inbox.changes.keys,
    back: (inbox) => inbox.changes.back(),
  },
  {
    id: 'webhooks',
    label: 'Webhooks',
    View: ({ inbox, route }) => <WebhooksView model={inbox.webhooks} route={route} />,
    show: (inbox, route) => inbox.webhooks.show(route),
    hide: (inbox) => inbox.webhooks.hide(),
  },
  {
    id: 'suppressions',
    label: 'Suppressions',
    View: ({ inbox }) => <SuppressionsView model={inbox.suppressions} />,
    show: (inbox) => inbox.suppressions.show(),
    hide: (inbox) => inbox.suppressions.hide(),
  },
]

/** The view a route shows: its own, or the messages for an unknown one. */
export const viewOf = (route: Route): ViewSpec =>
  VIEWS.find((v) => v.id === route.view) ?? VIEWS[0]!
