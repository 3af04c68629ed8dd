import type { Session } from './api.js'
import { PageContext } from './context.js'
import type { PageState } from './inbox.js'
import { ConfirmDialog, LogBanner, Toast, TopBar } from './shell.js'
import { VIEWS, viewOf } from './views.js'

/**
 * The whole page, drawn from the inbox's state: the top bar, the log banner, the view the route
 * names (views.tsx), the toast and the dialog.
 *
 * @example
 * render(<App inbox={createPageState(createPage(browserTiming()))} />, document.getElementById('app')!)
 */
export function App({ inbox, session = null }: { inbox: PageState; session?: Session | null }) {
  const route = inbox.route.value
  const spec = viewOf(route)
  const View = spec.View
  return (
    <PageContext.Provider value={inbox.page}>
      <TopBar
        sections={VIEWS.map((v) => ({ id: v.id, label: v.label, count: v.count?.(inbox) ?? null }))}
        current={spec.id}
        session={session}
        storeDown={inbox.log.value.state === 'unavailable'}
      />
      <LogBanner log={inbox.log.value} />
      <main id="main" tabIndex={-1}>
        <h1 class="visually-hidden">sendbox inbox</h1>
        <View inbox={inbox} route={route} />
      </main>
      <Toast />
      <ConfirmDialog />
    </PageContext.Provider>
  )
}
