import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MessageStatus, MessageSummary, MessageSummaryPage } from '../../src/inbox/page/api.js'
import {
  MAX_LIMIT,
  MessageListState,
  PAGE,
  type PageRequest,
  STATUSES,
} from '../../src/inbox/page/message-list-state.js'
import { matchesSearch, parseSearch, type SearchFilter } from '../../src/inbox/page/search.js'
import { compileFilter } from '../../src/store/filter.js'
import { MESSAGE_STATUSES } from '../../src/store/recipients.js'
import type { MessageRecord } from '../../src/store/types.js'

/**
 * The inbox's message list as plain state, without a browser: which pages it asks for, how live
 * events change it row by row, and how events that race a page come out.
 */

/** Message n: ids sort as they were made (higher is newer), as ULIDs do. */
const message = (n: number, extra: Partial<MessageSummary> = {}): MessageSummary => ({
  id: `msg_${String(n).padStart(8, '0')}`,
  status: 'sent',
  createdAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  project: 'aa56d15b',
  tokenHint: 'sandbox_…oken',
  template: n % 2 ? 'welcome' : 'receipt',
  from: { name: 'Acme', address: 'hello@acme.test' },
  to: [{ name: n % 3 ? 'Ada' : 'Bob', address: n % 3 ? 'ada@example.com' : 'bob@example.com' }],
  subject: `Message ${n}`,
  warnings: [],
  recipients: [],
  ...extra,
})
const id = (n: number) => message(n).id

/** The inspector's side: messages 1..n stored, listed newest first, filtered as it filters. */
class Server {
  messages: MessageSummary[]
  constructor(n: number, make = (i: number) => message(i)) {
    this.messages = Array.from({ length: n }, (_, i) => make(n - i))
  }
  send(summary: MessageSummary): MessageSummary {
    this.messages.unshift(summary)
    return summary
  }
  delete(id: string): void {
    this.messages = this.messages.filter((m) => m.id !== id)
  }
  page({ offset, limit }: PageRequest, filter: SearchFilter = {}): MessageSummaryPage {
    const matching = this.messages.filter((m) => matchesSearch(m, filter))
    return {
      messages: matching.slice(offset, offset + limit).map((m) => ({ ...m })),
      total: matching.length,
    }
  }
}

const ids = (state: MessageListState) => state.rows.map((m) => m.id)
const newest = (server: Server, n: number, filter: SearchFilter = {}) =>
  server.messages
    .filter((m) => matchesSearch(m, filter))
    .slice(0, n)
    .map((m) => m.id)

function loaded(server: Server, filter: SearchFilter = {}): MessageListState {
  const state = new MessageListState()
  state.setFilter(filter)
  const request = state.loadRequest()
  expect(state.applyLoad(request, server.page(request, filter))).toBe(true)
  state.takeChanges()
  return state
}

describe('the statuses a search may name', () => {
  it("are the server's own list, not a copy of it", () => {
    expect(STATUSES).toBe(MESSAGE_STATUSES)
  })
})

describe('pages', () => {
  it('loads one page of the newest, and counts what it does not show', () => {
    const server = new Server(5000)
    const state = new MessageListState()
    const request = state.loadRequest()
    expect(request).toMatchObject({ offset: 0, limit: PAGE })
    state.applyLoad(request, server.page(request))
    expect(ids(state)).toEqual(newest(server, PAGE))
    expect(state.total).toBe(5000)
    expect(state.hidden).toBe(4900)
  })

  it('"Show more" asks for the next page only (overlapping the last row by one), until everything is shown', () => {
    const server = new Server(250)
    const state = loaded(server)
    const first = state.moreRequest()!
    expect(first).toMatchObject({ offset: PAGE - 1, limit: PAGE + 1, anchor: id(250 - PAGE + 1) })
    expect(state.moreRequest()).toBeNull() // one at a time
    expect(state.applyMore(first, server.page(first))).toBe('ok')
    expect(ids(state)).toEqual(newest(server, 200))
    expect(state.capacity).toBe(200)
    const second = state.moreRequest()!
    expect(second.offset).toBe(199)
    state.applyMore(second, server.page(second))
    expect(ids(state)).toEqual(newest(server, 250))
    expect(state.hidden).toBe(0)
    expect(state.moreRequest()).toBeNull()
  })

  it('reaches the oldest of 5000 in 49 requests of about a page each', () => {
    const server = new Server(5000)
    const state = loaded(server)
    let requests = 0
    let rows = 0
    for (let request = state.moreRequest(); request; request = state.moreRequest()) {
      const page = server.page(request)
      requests++
      rows += page.messages.length
      expect(state.applyMore(request, page)).toBe('ok')
    }
    expect(requests).toBe(49)
    expect(rows).toBe(4900 + 49) // the one-row overlaps
    expect(ids(state)).toEqual(newest(server, 5000))
  })

  it('keeps no duplicate when messages arrived while the next page was on its way', () => {
    const server = new Server(300)
    const state = loaded(server)
    const request = state.moreRequest()!
    // Two arrive; the server answers after them, so its offsets moved by two.
    for (const n of [301, 302]) state.insert(server.send(message(n)))
    const page = server.page(request)
    expect(state.applyMore(request, page)).toBe('ok')
    expect(new Set(ids(state)).size).toBe(state.rows.length)
    // A contiguous run of the newest, nothing skipped.
    expect(ids(state)).toEqual(newest(server, state.rows.length))
  })

  it('asks again when deletions above the last row made the page skip some', () => {
    const server = new Server(300)
    const state = loaded(server)
    const request = state.moreRequest()!
    // Deleted on the server before it answers; the page starts past the row it should start with.
    server.delete(id(300))
    server.delete(id(299))
    expect(state.applyMore(request, server.page(request))).toBe('retry')
    state.remove(id(300))
    state.remove(id(299))
    const again = state.moreRequest()!
    expect(state.applyMore(again, server.page(again))).toBe('ok')
    expect(ids(state)).toEqual(newest(server, state.rows.length))
  })

  it('drops an answer for a search that is no longer the one shown', () => {
    const server = new Server(10)
    const state = new MessageListState()
    const old = state.loadRequest()
    state.setFilter(parseSearch('to:bob'))
    const current = state.loadRequest()
    expect(state.applyLoad(old, server.page(old))).toBe(false)
    expect(state.applyLoad(current, server.page(current, state.filter))).toBe(true)
    expect(state.rows.every((m) => m.to[0]!.name === 'Bob')).toBe(true)
  })

  it('reloads as many rows as it showed (up to the largest page the inspector gives)', () => {
    const server = new Server(3000)
    const state = loaded(server)
    for (let i = 0; i < 15; i++) {
      const request = state.moreRequest()!
      state.applyMore(request, server.page(request))
    }
    expect(state.rows.length).toBe(1600)
    expect(state.loadRequest().limit).toBe(MAX_LIMIT)
  })

  it('asks for nothing with a status that is not one (status:bou, half typed)', () => {
    const state = new MessageListState()
    state.setFilter(parseSearch('status:bou'))
    expect(state.impossible).toBe(true)
    state.setEmpty()
    expect(state.rows).toEqual([])
    expect(state.insert(message(1, { status: 'bounced' }))).toBe(false)
  })
})

describe('live events, row by row', () => {
  it('puts a new message on top, and the oldest row makes room (it is counted, not shown)', () => {
    const server = new Server(150)
    const state = loaded(server)
    expect(state.insert(server.send(message(151)))).toBe(true)
    expect(state.rows[0]!.id).toBe(id(151))
    expect(state.rows.length).toBe(PAGE)
    expect(state.total).toBe(151)
    expect(state.hidden).toBe(51)
    expect(state.takeChanges()).toEqual({ removed: [id(51)], updated: [] })
    expect(ids(state)).toEqual(newest(server, PAGE))
  })

  it('shows a new message even when every row shown was deleted and older ones are not shown', () => {
    const server = new Server(150)
    const state = loaded(server)
    for (const m of [...state.rows]) {
      server.delete(m.id)
      state.remove(m.id)
    }
    expect(state.rows).toEqual([])
    expect(state.hidden).toBe(50)
    expect(state.insert(server.send(message(151)))).toBe(true)
    expect(ids(state)).toEqual([id(151)])
    expect(state.total).toBe(51)
  })

  it('counts a message once, however often it is heard of', () => {
    const server = new Server(3)
    const state = loaded(server)
    const m = server.send(message(4))
    state.insert(m)
    expect(state.insert({ ...m })).toBe(false)
    expect(state.total).toBe(4)
    expect(state.rows.length).toBe(4)
  })

  it('with a search, takes only what matches it, as the inspector would', () => {
    const server = new Server(30)
    const filter = parseSearch('to:bob welcome')
    const state = loaded(server, { ...filter, subject: 'message' })
    const before = state.total
    expect(
      state.insert(server.send(message(31, { to: [{ name: 'Ada', address: 'ada@example.com' }] }))),
    ).toBe(false)
    expect(
      state.insert(server.send(message(32, { to: [{ name: 'Bob', address: 'bob@example.com' }] }))),
    ).toBe(true)
    expect(state.total).toBe(before + 1)
    expect(state.rows[0]!.id).toBe(id(32))
  })

  it('takes a deleted row out; the event stream echoing a deletion made here counts once', () => {
    const server = new Server(5)
    const state = loaded(server)
    expect(state.remove(id(3))).toBe(true)
    expect(state.remove(id(3))).toBe(false)
    expect(state.total).toBe(4)
    expect(state.takeChanges().removed).toEqual([id(3)])
  })

  it('counts a deletion among the rows not shown without a search; with one, leaves it to a count', () => {
    const server = new Server(150)
    const all = loaded(server)
    all.remove(id(1))
    expect(all.total).toBe(149)
    expect(all.needsCount).toBe(false)

    const searched = loaded(server, parseSearch('template:welcome'))
    const total = searched.total
    searched.remove(id(2))
    expect(searched.total).toBe(total)
    expect(searched.needsCount).toBe(true)
  })

  it('changes only the status of the row a status event names', () => {
    const server = new Server(5)
    const state = loaded(server)
    state.status(id(4), 'delivered')
    expect(state.get(id(4))!.status).toBe('delivered')
    expect(state.takeChanges()).toEqual({ removed: [], updated: [id(4)] })
    expect(state.status(id(99), 'delivered')).toBeNull()
  })

  it('with status: in the search, a row leaves when its status does, and one that reaches it is fetched to join', () => {
    const server = new Server(6, (n) => message(n, { status: n % 2 ? 'bounced' : 'delivered' }))
    const state = loaded(server, parseSearch('status:bounced'))
    expect(state.total).toBe(3)
    state.status(id(5), 'complained')
    expect(state.has(id(5))).toBe(false)
    expect(state.total).toBe(2)
    expect(state.status(id(4), 'bounced')).toBe('fetch')
    // What the page fetches comes in its place, newest first.
    expect(state.insert(message(4, { status: 'bounced' }))).toBe(true)
    expect(ids(state)).toEqual([id(4), id(3), id(1)])
  })

  it('says which rows went and which changed, once, and not a row that went and came back', () => {
    const server = new Server(3)
    const state = loaded(server)
    server.messages.find((m) => m.id === id(1))!.status = 'bounced'
    state.status(id(1), 'bounced')
    state.remove(id(2))
    const reload = state.loadRequest()
    state.applyLoad(reload, server.page(reload)) // id(2) is still on the server: it comes back
    expect(state.takeChanges()).toEqual({ removed: [], updated: [id(1)] })
    expect(state.takeChanges()).toEqual({ removed: [], updated: [] })
    // A page that says otherwise than the row: the row follows the page.
    server.messages.find((m) => m.id === id(3))!.status = 'delivered'
    const again = state.loadRequest()
    state.applyLoad(again, server.page(again))
    expect(state.takeChanges()).toEqual({ removed: [], updated: [id(3)] })
  })
})

describe('events that race a page', () => {
  it('a message that arrived while the first page was on its way is there once, whether the page has it or not', () => {
    for (const pageFirst of [true, false]) {
      const server = new Server(10)
      const state = new MessageListState()
      const request = state.loadRequest()
      let page = pageFirst ? server.page(request) : null
      state.insert(server.send(message(11)))
      page ??= server.page(request)
      state.applyLoad(request, page)
      expect(ids(state), `page computed ${pageFirst ? 'before' : 'after'} the message`).toEqual(
        newest(server, 11),
      )
      expect(state.total).toBe(11)
    }
  })

  it('a deletion while the first page was on its way leaves the row out, whether the page has it or not', () => {
    for (const pageFirst of [true, false]) {
      const server = new Server(10)
      const state = loaded(server)
      const request = state.loadRequest()
      let page = pageFirst ? server.page(request) : null
      server.delete(id(7))
      state.remove(id(7))
      page ??= server.page(request)
      state.applyLoad(request, page)
      expect(ids(state)).toEqual(newest(server, 9))
      expect(state.total).toBe(9)
    }
  })

  it('a status while a page was on its way ends on the row, even when the page had the old one', () => {
    const server = new Server(150)
    const state = loaded(server)
    const request = state.moreRequest()!
    const page = server.page(request) // computed before the status
    state.status(id(20), 'bounced')
    state.applyMore(request, page)
    expect(state.get(id(20))!.status).toBe('bounced')
  })
})

describe('a count once the stream is quiet', () => {
  it('settles the total, and drops rows past it (the oldest went: --max-messages)', () => {
    const server = new Server(50)
    const state = loaded(server)
    const events = state.events
    expect(state.applyCount(events, 45)).toEqual([id(1), id(2), id(3), id(4), id(5)])
    expect(state.total).toBe(45)
    expect(state.rows.length).toBe(45)
  })

  it('is not taken when events came while it was on its way', () => {
    const server = new Server(50)
    const state = loaded(server)
    const events = state.events
    state.insert(server.send(message(51)))
    expect(state.applyCount(events, 50)).toBeNull()
    expect(state.total).toBe(51)
  })
})

describe('the search, decided in the page as the inspector decides it', () => {
  const address = fc.record({
    name: fc.option(fc.constantFrom('Ada', 'Bob Smith', "O'Brien, Jr.", 'Zoë "Z"', 'ada'), {
      nil: null,
    }),
    address: fc.constantFrom('ada@example.com', 'bob@x.test', 'ZOE@Example.com'),
  })
  const record = fc.record({
    n: fc.nat(1000),
    status: fc.constantFrom<MessageStatus>('sent', 'delivered', 'bounced'),
    template: fc.constantFrom('welcome', 'password-reset', 'Welcome-2'),
    subject: fc.constantFrom('Welcome', 'Reset your password', 'Order #1042', 'Ünïcode'),
    project: fc.constantFrom('aa56d15b', '1f2e3d4c'),
    from: address,
    to: fc.array(address, { minLength: 1, maxLength: 3 }),
  })
  const filter = fc.record(
    {
      to: fc.constantFrom('ada', 'bob smith', '"o\'brien', 'example.com>', 'z"', 'x'),
      from: fc.constantFrom('ada', 'bob', '<ada@', 'zoë'),
      template: fc.constantFrom('welcome', 'reset', 'W'),
      subject: fc.constantFrom('welcome', 'order #', 'ü', 'your'),
      project: fc.constantFrom('aa56d15b', '1f2e3d4c', 'aa56'),
      status: fc.constantFrom('sent', 'bounced'),
    },
    { requiredKeys: [] },
  )

  it('matches exactly what compileFilter (src/store/filter.ts) matches', () => {
    fc.assert(
      fc.property(record, filter, ({ n, ...fields }, f) => {
        const summary = message(n, fields)
        const full: MessageRecord = { ...summary, html: '', text: '', templateVariables: {} }
        expect(matchesSearch(summary, f)).toBe(
          compileFilter(f as Parameters<typeof compileFilter>[0])(full),
        )
      }),
      { numRuns: 2000 },
    )
  })
})
