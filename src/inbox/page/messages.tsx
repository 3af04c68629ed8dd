import type { VNode } from 'preact'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { messagePath, type Address, type MessageRecord, type MessageSummary } from './api.js'
import { ChecksBadge, ChecksTab } from './checks.js'
import { SpamBlock } from './spam.js'
import type { SpamModel } from './spam-model.js'
import { usePage } from './context.js'
import { DeliveryTab } from './delivery.js'
import { sourceLineParams } from './detail-route.js'
import { count, fullAddress, fullTime, plural, timeAgo } from './format.js'
import { PreviewControls, SandboxedFrame } from './frame.js'
import { LinksTab } from './links.js'
import { ListPane } from './list-pane.js'
import type { MessageListModel } from './message-list-model.js'
import { STATUSES } from './message-list-state.js'
import { fillRow, type RowContent, rowTemplate, sameRow } from './message-row.js'
import { MESSAGE_TABS, type MessagesModel } from './messages-model.js'
import { MESSAGE_WIDTHS } from './preview.js'
import { Rejections } from './rejections.js'
import { ReleaseButton, ReleaseForm } from './release.js'
import { formatHash, href, replaceParams, type Route } from './router.js'
import { describeFilter, isFiltered } from './search.js'
import { sendExample } from './snippet.js'
import {
  JsonBlock,
  Placeholder,
  RelativeTime,
  SourceView,
  StatusBadge,
  Tabs,
  Term,
  WarningItems,
} from './ui.js'

/**
 * The Messages view: the list (live, searchable) and the open message, side by side or one at a
 * time (a phone). The list is keyed by id and renders once per draw of MessageListModel (at most
 * once a frame): a row that came is one new element, one that went is one removed, a status
 * change re-renders one row. The list holds summaries; the open message is fetched whole.
 */
export function MessagesView({ model, route }: { model: MessagesModel; route: Route }) {
  const detail = useRef<HTMLElement>(null)
  const open = !!route.name
  // Back on the list's own route: the keyboard where the last key asked for it.
  useLayoutEffect(() => {
    if (!open) model.keys.restoreFocus(detail.current)
  }, [open, route])
  return (
    <div class="split" id="view-messages" data-open={String(open)}>
      <MessageListPane list={model.list} model={model} />
      <section class="pane detail-pane" id="message-pane" aria-label="Message" ref={detail}>
        <MessageDetail model={model} />
      </section>
    </div>
  )
}

const LIST_IDS = {
  pane: 'message-list-pane',
  title: 'messages-title',
  search: 'search',
  count: 'message-count',
  list: 'message-list',
}

/** How long typing settles before a search goes to the URL (and loads). */
const SEARCH_SETTLE_MS = 150

function MessageListPane({ list, model }: { list: MessageListModel; model: MessagesModel }) {
  list.version.value // Renders at each draw: the state below changed.
  const state = list.state
  const query = list.query.value
  const current = list.current.value
  const [typed, onSearch] = useSearchBox(list, query)
  const listElement = useRef<HTMLUListElement | null>(null)
  useKeyboardStays(listElement)
  useRowSize(listElement)
  const rows = useDrawnRows(list, state.rows, current, query)
  const filtered = isFiltered(state.filter)
  return (
    <ListPane
      nav={model.keys}
      ids={LIST_IDS}
      title="Messages"
      count={
        state.loaded
          ? {
              text: count(state.total),
              label: plural(state.total, filtered ? 'matching message' : 'message'),
            }
          : null
      }
      searchLabel="Search messages"
      search={typed}
      onSearch={onSearch}
      searchDescribedBy="search-help"
      listRef={listElement}
      onListPointerOver={fullDateOnHover}
      titleExtras={
        <>
          <span class="spacer" />
          <button
            type="button"
            class="btn btn-quiet btn-danger-text"
            id="clear-all"
            disabled={state.total === 0}
            onClick={() => void list.clearAll()}
          >
            {filtered ? 'Delete matching' : 'Clear all'}
          </button>
        </>
      }
      headExtras={listHead(list, model)}
      empty={listEmpty(state)}
      footer={moreBar(list)}
    >
      {rows}
    </ListPane>
  )
}

/**
 * The search box's text, and what typing does: the box follows at once, the URL (and the load)
 * once typing settles; a search changed elsewhere (a link, Esc) puts its text in the box.
 */
function useSearchBox(list: MessageListModel, query: string): [string, (value: string) => void] {
  const [typed, setTyped] = useState(query)
  const timer = useRef(0)
  useEffect(() => {
    if (query !== typed.trim()) setTyped(query)
  }, [query])
  const onSearch = (value: string) => {
    setTyped(value)
    window.clearTimeout(timer.current)
    timer.current = window.setTimeout(() => {
      const q = value.trim()
      if (q !== list.query.peek()) replaceParams({ q: q || null })
    }, SEARCH_SETTLE_MS)
  }
  return [typed, onSearch]
}

/** The row that had the keyboard went (deleted, dropped): the keyboard stays at its place. */
function useKeyboardStays(listElement: { current: HTMLUListElement | null }): void {
  const focused = focusedRow(listElement.current)
  useLayoutEffect(() => {
    const element = listElement.current
    if (!focused || !element || focused.link.isConnected) return
    const links = element.querySelectorAll<HTMLElement>('a[data-id]')
    ;(
      element.querySelector<HTMLElement>(`a[data-id="${CSS.escape(focused.id)}"]`) ??
      links[Math.min(focused.index, links.length - 1)]
    )?.focus()
  })
}

/**
 * Rows off screen are neither laid out nor painted (content-visibility: auto) and take the size
 * of a drawn row meanwhile: measured once, so that the list does not shift when they are.
 */
function useRowSize(listElement: { current: HTMLUListElement | null }): void {
  const [rowSize, setRowSize] = useState(0)
  useLayoutEffect(() => {
    if (rowSize) return
    const size = listElement.current?.firstElementChild?.getBoundingClientRect().height
    if (size) setRowSize(size)
  })
  // Set once, when measured: setting it at every draw (even to the same value) restyled every row.
  useLayoutEffect(() => {
    if (rowSize) listElement.current?.style.setProperty('--row-size', `${rowSize}px`)
  }, [rowSize])
}

/** Under the search box: its syntax, the messages --max-messages dropped, the rejected sends. */
function listHead(list: MessageListModel, model: MessagesModel): VNode {
  return (
    <>
      <p class="hint" id="search-help">
        Words match the subject; also <code>to:</code> <code>from:</code> <code>template:</code>{' '}
        <code>status:</code>
      </p>
      {list.dropped.value ? (
        <p class="dropped" id="dropped">
          {plural(list.dropped.value, 'older message')} dropped by --max-messages
        </p>
      ) : null}
      <Rejections model={model.rejections} />
    </>
  )
}

/** What an empty list says: why nothing matches a search, or how to send the first message. */
function listEmpty(state: MessageListModel['state']): VNode | null {
  if (!state.loaded || state.rows.length > 0 || state.hidden > 0) return null
  return isFiltered(state.filter) ? (
    <>
      <p class="empty-title">No message matches</p>
      <p>{describeFilter(state.filter)}</p>
      {state.impossible ? <p class="hint">status: is one of {STATUSES.join(', ')}</p> : null}
    </>
  ) : (
    <>
      <p class="empty-title">No messages yet</p>
      <p>Send one and it shows up here at once:</p>
      <pre class="code" tabIndex={0}>
        {sendExample(location.origin)}
      </pre>
    </>
  )
}

/** How many rows show of how many match, and Show more, when some are not shown. */
function moreBar(list: MessageListModel): VNode | null {
  const { loaded, hidden, rows, total } = list.state
  if (!loaded || hidden <= 0) return null
  return (
    <div class="more-bar">
      <p class="more-count" id="message-more-count">
        Showing {count(rows.length)} of {count(total)}; {count(hidden)} not shown
      </p>
      <button
        type="button"
        class="btn"
        id="message-more"
        aria-describedby="message-more-count"
        disabled={list.loadingMore.value}
        onClick={() => void list.showMore()}
      >
        Show more
      </button>
    </div>
  )
}

/**
 * The full date as a row's time's tooltip, made when the row is pointed at rather than for
 * every row drawn: formatting it was the page's own costliest function at 300 sends a second
 * (22 ms of script in 4 s, CDP profile), for a tooltip few rows ever show.
 */
function fullDateOnHover(event: PointerEvent): void {
  const time = (event.target as Element)
    .closest?.('.item')
    ?.querySelector<HTMLTimeElement>('time:not([title])')
  if (time) time.title = fullTime(time.dateTime)
}

/** The row with the keyboard, if any: its id and place, to give the keyboard back after a draw. */
function focusedRow(
  list: HTMLElement | null,
): { id: string; index: number; link: HTMLElement } | null {
  const active = document.activeElement
  if (!list || !(active instanceof HTMLElement) || !list.contains(active)) return null
  const link = active.closest<HTMLElement>('a[data-id]')
  const row = link?.closest('li')
  if (!link || !row) return null
  return { id: link.dataset.id!, index: [...list.children].indexOf(row), link }
}

/** A drawn row: what it shows, and its vnode (the same object while that is the same). */
interface DrawnRow {
  row: RowContent
  vnode: VNode
}

/**
 * The rows of a draw. A row whose content is the same as last time is the vnode drawn last
 * time, and Preact 11 passes over a component vnode it has already rendered without calling it
 * (an element vnode it would diff again, prop by prop and child by child: 248 ms of script in
 * 8 s at 30 sends a second, against 145 so). A row's time and link are worked out again only
 * when the page's clock or the search moved: at every draw for every row they were most of
 * what is left.
 */
function useDrawnRows(
  list: MessageListModel,
  rows: readonly MessageSummary[],
  current: string | null,
  search: string,
): VNode[] {
  const now = usePage().clock.value
  const template = useMemo(() => rowTemplate(document), [])
  const drawn = useRef({ rows: new Map<string, DrawnRow>(), now, search })
  const last = drawn.current
  const next = new Map<string, DrawnRow>()
  const vnodes = rows.map((m) => {
    const before = last.rows.get(m.id)
    const row: RowContent = {
      m,
      status: m.status,
      current: m.id === current,
      fresh: list.isFresh(m.id),
      href:
        before && last.search === search
          ? before.row.href
          : href('messages', m.id, search ? { q: search } : {}),
      time: before && last.now === now ? before.row.time : timeAgo(m.createdAt, now),
    }
    const kept =
      before && sameRow(before.row, row)
        ? before
        : { row, vnode: <MessageRow key={m.id} row={row} template={template} /> }
    next.set(m.id, kept)
    return kept.vnode
  })
  drawn.current = { rows: next, now, search }
  return vnodes
}

/**
 * One message in the list: a keyed `<li>` whose inside (ten elements) `fillRow` clones and fills
 * (message-row.ts says why). The ref is new at each render, so Preact hands it the element
 * again: that is the fill.
 */
function MessageRow({ row, template }: { row: RowContent; template: HTMLAnchorElement }) {
  return (
    <li
      ref={(item) => {
        if (item) fillRow(item, template, row)
      }}
    />
  )
}

// ---- the open message --------------------------------------------------------------------

function MessageDetail({ model }: { model: MessagesModel }) {
  const open = model.open.value
  const id = open.state === 'ready' ? open.record.id : null
  const subject = open.state === 'ready' ? open.record.subject : null
  useEffect(() => {
    document.title = subject === null ? 'sendbox' : `${subject} · sendbox`
  }, [subject])
  // On a narrow screen the message replaces the list: the keyboard goes along.
  useEffect(() => {
    if (!id || model.keys.list?.getClientRects().length) return
    document.getElementById('message-subject')?.focus({ preventScroll: true })
  }, [id])
  switch (open.state) {
    case 'none':
      return (
        <Placeholder>
          <p>Select a message to read it.</p>
          <p class="hint">
            <kbd>j</kbd> <kbd>k</kbd> move · <kbd>Enter</kbd> opens · <kbd>Esc</kbd> goes back ·{' '}
            <kbd>/</kbd> searches
          </p>
        </Placeholder>
      )
    case 'loading':
      return (
        <Placeholder>
          <p>Loading…</p>
        </Placeholder>
      )
    case 'gone':
      return (
        <Placeholder>
          <p>This message was deleted, or dropped by --max-messages.</p>
          <p>
            <a href={model.hrefFor(null)}>Back to the messages</a>
          </p>
        </Placeholder>
      )
    case 'error':
      return (
        <Placeholder>
          <p>Could not load the message: {open.message}</p>
        </Placeholder>
      )
    default:
      return <OpenMessage model={model} record={open.record} />
  }
}

function OpenMessage({ model, record: m }: { model: MessagesModel; record: MessageRecord }) {
  const detail = model.detail.value
  const { tab, view } = detail
  const checks = model.checks.value
  return (
    <article class="message" aria-labelledby="message-subject">
      <MessageHead model={model} m={m} />
      <div class="toolbar">
        <Tabs
          prefix="message"
          label="Message views"
          tabs={MESSAGE_TABS}
          selected={tab}
          onSelect={(next) => model.setTab(next)}
          badges={{ checks: <ChecksBadge report={checks.report} /> }}
        />
      </div>
      {tab === 'html' ? (
        <PreviewControls
          prefix="message"
          presets={MESSAGE_WIDTHS}
          view={view}
          onChange={(next) => model.setView(next)}
        />
      ) : null}
      <div class="panel" id="message-panel" role="tabpanel" aria-labelledby={`message-tab-${tab}`}>
        {messagePanel(m, detail, checks, model.spam)}
      </div>
    </article>
  )
}

/** The message's head: the way back, its subject and facts, what can be done with it, its warnings. */
function MessageHead({ model, m }: { model: MessagesModel; m: MessageRecord }) {
  const base = messagePath(m.id)
  return (
    <header class="message-head">
      <a class="back" href={model.hrefFor(null)}>
        <span aria-hidden="true">← </span>
        Messages
      </a>
      <h2 id="message-subject" tabIndex={-1}>
        {m.subject}
      </h2>
      <MessageMeta m={m} />
      <div class="actions">
        <a class="btn" href={`${base}/eml`} download={`${m.id}.eml`} id="download-eml">
          Download .eml
        </a>
        <a class="btn" href={`${base}/html`} target="_blank" rel="noopener noreferrer">
          Open HTML<span class="visually-hidden"> (new tab)</span>
        </a>
        <ReleaseButton model={model.release} />
        <button
          type="button"
          class="btn btn-danger-text"
          id="delete-message"
          onClick={() => void model.deleteOpen()}
        >
          Delete
        </button>
      </div>
      <ReleaseForm model={model.release} record={m} />
      {m.warnings.length ? (
        <div class="note note-warn" role="note">
          <strong>{plural(m.warnings.length, 'warning')}</strong>
          <ul>
            <WarningItems warnings={m.warnings} />
          </ul>
        </div>
      ) : null}
    </header>
  )
}

/** From, To, Sent, Status (with the way to its timeline), Template. */
function MessageMeta({ m }: { m: MessageRecord }) {
  return (
    <dl class="meta">
      <Term term="From">
        <AddressView a={m.from} />
      </Term>
      <Term term="To">
        <RecipientList to={m.to} />
      </Term>
      <Term term="Sent">
        <RelativeTime iso={m.createdAt} />
      </Term>
      <Term term="Status" class="status-line">
        <span id="message-status">
          <StatusBadge status={m.status} />
        </span>
        <a href={href('messages', m.id, { tab: 'delivery' })} class="quiet-link">
          Delivery timeline
        </a>
      </Term>
      <Term term="Template">
        <a href={href('templates', m.template)}>{m.template}</a>
      </Term>
    </dl>
  )
}

/** What the selected tab shows of the message. */
function messagePanel(
  m: MessageRecord,
  { tab, view, line }: MessagesModel['detail']['value'],
  checks: MessagesModel['checks']['value'],
  spam: SpamModel,
): VNode {
  const base = messagePath(m.id)
  if (tab === 'html')
    return (
      <SandboxedFrame
        src={`${base}/html`}
        title={`The message as HTML: ${m.subject}`}
        view={view}
      />
    )
  if (tab === 'text')
    return (
      <pre class="text-body" id="message-text" tabIndex={0}>
        {m.text}
      </pre>
    )
  if (tab === 'source') return <SourceView text={m.html} line={line} label="The HTML source" />
  if (tab === 'checks')
    return (
      <ChecksTab
        prefix="message"
        report={checks.report}
        error={checks.error}
        lineHref={(n) => formatHash({ view: 'messages', name: m.id, params: sourceLineParams(n) })}
      >
        <SpamBlock prefix="message" model={spam} />
      </ChecksTab>
    )
  if (tab === 'delivery') return <DeliveryTab record={m} />
  if (tab === 'links') return <LinksTab record={m} />
  return <Details m={m} />
}

/** The first few recipients, and a button for the rest (all of them are in Details too). */
function RecipientList({ to, shown = 3 }: { to: Address[]; shown?: number }) {
  const [all, setAll] = useState(false)
  const list = all ? to : to.slice(0, shown)
  return (
    <span class="recipients">
      {list.map((a, i) => (
        <span key={`${a.address} ${i}`}>
          {i ? ', ' : ''}
          <AddressView a={a} />
        </span>
      ))}
      {!all && to.length > shown ? (
        <>
          {' '}
          <button type="button" class="link-button" onClick={() => setAll(true)}>
            and {to.length - shown} more
          </button>
        </>
      ) : null}
    </span>
  )
}

function AddressView({ a }: { a: Address }) {
  return a.name ? (
    <>
      <span class="addr-name">{a.name}</span> <span class="addr">&lt;{a.address}&gt;</span>
    </>
  ) : (
    <span class="addr-name">{a.address}</span>
  )
}

/** The Details tab: a row per fact of the record, then its variables. */
function Details({ m }: { m: MessageRecord }) {
  return (
    <div class="details">
      <dl class="facts">
        <Term term="ID">
          <code>{m.id}</code>
        </Term>
        <Term term="Sent">{fullTime(m.createdAt)}</Term>
        <Term term="From">{fullAddress(m.from)}</Term>
        <Term term="To">
          {m.to.map((a, i) => (
            <span key={`${a.address} ${i}`}>
              {i ? <br /> : null}
              {fullAddress(a)}
            </span>
          ))}
        </Term>
        <Term term="Subject">{m.subject}</Term>
        <Term term="Template">
          <a href={href('templates', m.template)}>{m.template}</a>
        </Term>
        <Term term="Project">
          <code>{m.project}</code>
        </Term>
        <Term term="Token">
          <code>{m.tokenHint}</code>
        </Term>
        <Term term="Warnings">
          {m.warnings.length ? (
            <ul class="plain">
              <WarningItems warnings={m.warnings} />
            </ul>
          ) : (
            'None'
          )}
        </Term>
      </dl>
      <h3>Variables</h3>
      <JsonBlock value={m.templateVariables} />
    </div>
  )
}
