import { describe, expect, it } from 'vitest'
import type { MessageSummary, MessageSummaryPage } from '../../src/inbox/client/api.js'
import { MessageListState, PAGE } from '../../src/inbox/client/message-list-state.js'

/**
 * The inbox's message list without a browser: which pages it asks for, what live events do to
 * its rows, and what it tells the page to redraw.
 */

/** Ids sort as ULIDs do: a higher number is a newer message. */
const id = (n: number) => `msg_${String(n).padStart(26, '0')}`
const summary = (n: number, extra: Partial<MessageSummary> = {}): MessageSummary =>
  ({ id: id(n), status: 'sent', template: 'welcome', subject: `Hello ${n}`, from: { name: null, address: 'a@acme.test' }, to: [{ name: null, address: `u${n}@example.com` }], project: 'abcd1234', createdAt: '2026-01-01T00:00:00.000Z', ...extra }) as unknown as MessageSummary
/** The `total` newest messages, numbered total..1; a page of them at `offset`. */
const pageOf = (total: number, offset: number, limit: number): MessageSummaryPage => ({
  messages: Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => summary(total - offset - i)),
  total,
})

function loaded(total: number): MessageListState {
  const state = new MessageListState()
  const request = state.loadRequest()
  expect(state.applyLoad(request, pageOf(total, request.offset, request.limit))).toBe(true)
  state.takeChanges()
  return state
}

describe('paging', () => {
  it('loads one page, says how many are not shown, and "Show more" asks only for the next page', () => {
    const state = new MessageListState()
    const first = state.loadRequest()
    expect(first).toMatchObject({ offset: 0, limit: PAGE })
    state.applyLoad(first, pageOf(5000, 0, first.limit))
    expect(state.rows).toHaveLength(PAGE)
    expect(state.hidden).toBe(5000 - PAGE)

    const more = state.moreRequest()!
    // From the last row on (an overlap of one, to notice rows deleted meanwhile), one page long.
    expect(more).toMatchObject({ offset: PAGE - 1, limit: PAGE + 1, anchor: id(5000 - PAGE + 1) })
    expect(state.moreRequest()).toBeNull() // one on its way at a time
    expect(state.applyMore(more, pageOf(5000, more.offset, more.limit))).toBe('ok')
    expect(state.rows).toHaveLength(2 * PAGE)
    expect(new Set(state.rows.map((r) => r.id)).size).toBe(2 * PAGE)
    expect(state.hidden).toBe(5000 - 2 * PAGE)
  })

  it('reaches the last of 5000 by fetching each message once (plus one overlap per page)', () => {
    const state = loaded(5000)
    let fetched = PAGE
    for (let request = state.moreRequest(); request; request = state.moreRequest()) {
      const page = pageOf(5000, request.offset, request.limit)
      fetched += page.messages.length
      state.applyMore(request, page)
    }
    expect(state.rows.at(-1)!.id).toBe(id(1))
    expect(state.hidden).toBe(0)
    expect(fetched).toBeLessThan(5000 + 5000 / PAGE + 1)
  })

  it('asks again when rows above the last were deleted while the next page was on its way', () => {
    const state = loaded(300)
    const more = state.moreRequest()!
    // Two newer messages went meanwhile: the page at that offset starts past the anchor.
    expect(state.applyMore(more, pageOf(298, more.offset, more.limit))).toBe('retry')
  })

  it('drops an answer for a search that changed meanwhile', () => {
    const state = new MessageListState()
    const first = state.loadRequest()
    state.setFilter({ to: 'ada' })
    expect(state.applyLoad(first, pageOf(10, 0, first.limit))).toBe(false)
    expect(state.loaded).toBe(false)
  })
})

describe('live events change single rows', () => {
  it('a new message goes on top, counts, and pushes the oldest row out past the capacity', () => {
    const state = loaded(500)
    expect(state.insert(summary(501))).toBe(true)
    expect(state.rows[0]!.id).toBe(id(501))
    expect(state.rows).toHaveLength(PAGE)
    expect(state.total).toBe(501)
    expect(state.takeChanges()).toEqual({ removed: [id(500 - PAGE + 1)], updated: [] })
  })

  it('a status changes that row only; a deletion removes it and lowers the count', () => {
    const state = loaded(10)
    expect(state.status(id(7), 'bounced')).toBeNull()
    expect(state.get(id(7))!.status).toBe('bounced')
    expect(state.takeChanges()).toEqual({ removed: [], updated: [id(7)] })
    expect(state.remove(id(3))).toBe(true)
    expect(state.total).toBe(9)
    expect(state.takeChanges()).toEqual({ removed: [id(3)], updated: [] })
    // The stream echoes the page's own deletion: it counts once.
    expect(state.remove(id(3))).toBe(false)
    expect(state.total).toBe(9)
  })

  it('a message that does not match the search is left out; a status the search names asks for it', () => {
    const state = new MessageListState()
    state.setFilter({ status: 'bounced' })
    const request = state.loadRequest()
    state.applyLoad(request, { messages: [summary(2, { status: 'bounced' } as Partial<MessageSummary>)], total: 1 })
    expect(state.insert(summary(3))).toBe(false)
    expect(state.rows.map((r) => r.id)).toEqual([id(2)])
    expect(state.status(id(1), 'bounced')).toBe('fetch')
  })

  it('events that come while the first page is on its way apply to it, once', () => {
    const state = new MessageListState()
    const request = state.loadRequest()
    state.insert(summary(11))
    state.status(id(5), 'delivered')
    state.remove(id(9))
    // The page was computed before the events: it has neither 11 nor the new status, and still 9.
    state.applyLoad(request, pageOf(10, 0, request.limit))
    expect(state.rows[0]!.id).toBe(id(11))
    expect(state.get(id(5))!.status).toBe('delivered')
    expect(state.has(id(9))).toBe(false)
    expect(state.rows).toHaveLength(10)
  })
})
