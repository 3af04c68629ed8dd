// @vitest-environment happy-dom
import { render } from 'preact'
import { act } from 'preact/test-utils'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { MessageSummary, WebhookDelivery } from '../../src/inbox/page/api.js'
import { DRAW_EVERY_MS } from '../../src/inbox/page/burst.js'
import { PageContext } from '../../src/inbox/page/context.js'
import { PreviewControls } from '../../src/inbox/page/frame.js'
import { MessagesView } from '../../src/inbox/page/messages.js'
import { MessagesModel } from '../../src/inbox/page/messages-model.js'
import { createPage, type Page } from '../../src/inbox/page/page.js'
import { DEFAULT_VIEW, TEMPLATE_WIDTHS, type ViewState } from '../../src/inbox/page/preview.js'
import { parseHash } from '../../src/inbox/page/router.js'
import { SuppressionsView } from '../../src/inbox/page/suppressions.js'
import { SuppressionsModel } from '../../src/inbox/page/suppressions-model.js'
import { Tabs } from '../../src/inbox/page/ui.js'
import { WebhooksView } from '../../src/inbox/page/webhooks.js'
import { WebhooksModel } from '../../src/inbox/page/webhooks-model.js'
import { fakeTiming } from './fake-timing.js'

/**
 * The inbox's components in a DOM without a browser (happy-dom): what moved from hand-written
 * DOM code into components keeps doing what it did — a keyed list that keeps its row elements,
 * the tab list's keys, the width field, the tables' words.
 */

let container: HTMLElement
let page: Page
let timing: ReturnType<typeof fakeTiming>
beforeEach(() => {
  // Once the stream is quiet the list counts what events do not say (GET /health, a page):
  // answered here, as a sandbox with no message would.
  vi.stubGlobal('fetch', async (input: string) =>
    Response.json(
      String(input).includes('/health')
        ? { status: 'ok', messages: 0 }
        : { messages: [], total: 0 },
    ),
  )
  container = document.createElement('div')
  document.body.append(container)
  timing = fakeTiming()
  page = createPage(timing)
})
afterEach(() => {
  vi.unstubAllGlobals()
  render(null, container)
  container.remove()
})

const show = (node: preact.ComponentChild) =>
  act(() => {
    render(<PageContext.Provider value={page}>{node}</PageContext.Provider>, container)
  })

const summary = (n: number, status: MessageSummary['status'] = 'sent'): MessageSummary =>
  ({
    id: `msg_${String(n).padStart(4, '0')}`,
    status,
    createdAt: '2026-11-21T10:00:00.000Z',
    project: '1f2e3d4c',
    tokenHint: 'sandbox_…0123',
    template: 'welcome',
    from: { name: 'Acme', address: 'hello@acme.test' },
    to: [{ name: 'Ada', address: 'ada@example.com' }],
    subject: `Subject ${n}`,
    warnings: [],
    recipients: [],
    links: [],
    codes: [],
  }) as unknown as MessageSummary

describe('the message list', () => {
  function listOf(model: MessagesModel) {
    const state = model.list.state
    const request = state.loadRequest()
    state.applyLoad(request, { messages: [], total: 0 } as never)
    return () => [...container.querySelectorAll<HTMLElement>('#message-list a[data-id]')]
  }

  it('is keyed by id: a live message is one new row, the others are the same elements', async () => {
    const model = new MessagesModel(page)
    const rows = listOf(model)
    await show(<MessagesView model={model} route={parseHash('#/')} />)
    for (const n of [1, 2, 3]) model.list.onMessage(summary(n))
    await act(() => timing.frame())
    const before = rows()
    expect(before.map((r) => r.dataset.id)).toEqual(['msg_0003', 'msg_0002', 'msg_0001'])

    timing.advance(DRAW_EVERY_MS)
    model.list.onMessage(summary(4))
    await act(() => timing.frame())
    const after = rows()
    expect(after.map((r) => r.dataset.id)).toEqual(['msg_0004', 'msg_0003', 'msg_0002', 'msg_0001'])
    expect(after.slice(1)).toEqual(before)
    expect(after.slice(1).every((row, i) => row === before[i])).toBe(true)
  })

  it('redraws at most once a frame: a burst of events is one render', async () => {
    const model = new MessagesModel(page)
    const rows = listOf(model)
    await show(<MessagesView model={model} route={parseHash('#/')} />)
    for (let n = 1; n <= 50; n++) model.list.onMessage(summary(n))
    expect(rows()).toHaveLength(0)
    await act(() => timing.frame())
    expect(rows()).toHaveLength(50)
    expect(model.list.version.peek()).toBe(1)
    // In a burst only the first is highlighted (it came alone, as far as anyone knew); a
    // message that comes alone later is too.
    expect(
      [...container.querySelectorAll<HTMLElement>('.is-new')].map((a) => a.dataset.id),
    ).toEqual(['msg_0001'])
    timing.advance(2000)
    model.list.onMessage(summary(51))
    timing.advance(200)
    await act(() => timing.frame())
    expect(container.querySelector('.is-new')?.getAttribute('data-id')).toBe('msg_0051')
    expect(container.querySelectorAll('.is-new')).toHaveLength(2)
  })

  it('a status changes its row in place: the same element, a new badge', async () => {
    const model = new MessagesModel(page)
    const rows = listOf(model)
    await show(<MessagesView model={model} route={parseHash('#/')} />)
    model.list.onMessage(summary(1))
    model.list.onMessage(summary(2))
    await act(() => timing.frame())
    const [row] = rows().filter((r) => r.dataset.id === 'msg_0001')
    model.list.onStatus({
      id: 'msg_0001',
      status: 'bounced',
      recipient: 'ada@example.com',
      recipientIndex: 0,
      recipientStatus: 'bounced',
      event: { type: 'bounced', at: '2026-11-21T10:00:01.000Z' },
    })
    timing.advance(200)
    await act(() => timing.frame())
    const [again] = rows().filter((r) => r.dataset.id === 'msg_0001')
    expect(again).toBe(row)
    expect(again!.querySelector('.status-badge')?.textContent).toBe('Bounced')
    expect(container.querySelector('#message-count')?.getAttribute('aria-label')).toBe('2 messages')
  })

  it('a draw touches only the rows that changed: the others are not filled again', async () => {
    const model = new MessagesModel(page)
    listOf(model)
    await show(<MessagesView model={model} route={parseHash('#/')} />)
    for (const n of [1, 2, 3]) model.list.onMessage(summary(n))
    await act(() => timing.frame())
    const list = container.querySelector('#message-list')!
    const records: MutationRecord[] = []
    const observer = new MutationObserver((found) => records.push(...found))
    observer.observe(list, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    })
    timing.advance(DRAW_EVERY_MS)
    model.list.onMessage(summary(4))
    await act(() => timing.frame())
    await act(() => Promise.resolve())
    const touched = new Set(
      [...records, ...observer.takeRecords()].map((record) => {
        const node = record.target === list ? record.addedNodes[0]! : record.target
        return (node instanceof Element ? node : node.parentElement)!.closest('li')
      }),
    )
    observer.disconnect()
    expect([...touched].map((li) => li?.querySelector('a')?.dataset.id)).toEqual(['msg_0004'])
  })

  it('the open message is marked, and the times follow the page clock', async () => {
    const model = new MessagesModel(page)
    const rows = listOf(model)
    await show(<MessagesView model={model} route={parseHash('#/')} />)
    for (const n of [1, 2]) model.list.onMessage(summary(n))
    await act(() => timing.frame())
    const time = () => rows()[0]!.querySelector('time')!.textContent
    expect(time()).not.toBe('5 min. ago')
    await act(() => {
      model.list.current.value = 'msg_0001'
      page.clock.value = Date.parse('2026-11-21T10:05:00.000Z')
    })
    expect(rows().map((r) => r.getAttribute('aria-current'))).toEqual([null, 'true'])
    expect(time()).toBe('5 min. ago')
    expect(rows()[0]!.getAttribute('href')).toBe('#/messages/msg_0002')
  })
})

describe('the tab list', () => {
  it('moves with the arrows, Home and End, and selects as it goes', async () => {
    const picked: string[] = []
    const tabs = [
      { id: 'a', label: 'A' },
      { id: 'b', label: 'B' },
      { id: 'c', label: 'C' },
    ]
    await show(
      <Tabs prefix="t" label="Views" tabs={tabs} selected="a" onSelect={(id) => picked.push(id)} />,
    )
    const tab = (id: string) => container.querySelector<HTMLElement>(`#t-tab-${id}`)!
    expect(tab('a').getAttribute('aria-selected')).toBe('true')
    expect(tab('b').tabIndex).toBe(-1)
    const key = (id: string, key: string) =>
      tab(id).dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }))
    key('a', 'ArrowRight')
    key('a', 'ArrowLeft')
    key('a', 'End')
    key('c', 'Home')
    expect(picked).toEqual(['b', 'c', 'c', 'a'])
    expect(tab('b').getAttribute('aria-controls')).toBe('t-panel')
  })
})

describe('the width field', () => {
  it('applies a width as soon as it is one, refuses one too narrow while typing, clamps it when committed', async () => {
    const views: ViewState[] = []
    await show(
      <PreviewControls
        prefix="p"
        presets={TEMPLATE_WIDTHS}
        view={DEFAULT_VIEW}
        onChange={(v) => views.push(v)}
      />,
    )
    const input = container.querySelector<HTMLInputElement>('#p-width-input')!
    await act(() => {
      input.value = '99'
      input.dispatchEvent(new Event('input', { bubbles: true }))
    })
    expect(input.getAttribute('aria-invalid')).toBe('true')
    expect(views).toEqual([])
    await act(() => {
      input.dispatchEvent(new Event('change', { bubbles: true }))
    })
    expect(views.at(-1)?.width).toBe('320')
    await act(() => {
      input.value = '480'
      input.dispatchEvent(new Event('input', { bubbles: true }))
    })
    expect(views.at(-1)?.width).toBe('480')
    // Every preset is named with its width and what it is for.
    expect(
      [...container.querySelectorAll('[data-width]')].map((b) => b.getAttribute('aria-label')),
    ).toEqual(['Fit the pane', '375 px, phone', '600 px, email', '1024 px, desktop'])
  })
})

describe('the suppression list', () => {
  it('names the message by its subject, links to its delivery, and counts like the other pages', async () => {
    const model = new SuppressionsModel(page)
    model.items.value = [
      {
        address: 'erin+bounce@example.com',
        project: '1f2e3d4c',
        reason: 'bounced',
        createdAt: '2026-11-21T10:00:00.000Z',
        messageId: 'msg_01ABC',
        subject: 'Welcome to Acme',
      },
      {
        address: 'old@example.com',
        project: '1f2e3d4c',
        reason: 'complained',
        createdAt: '2026-11-21T09:00:00.000Z',
        messageId: 'msg_01GONE',
      },
    ]
    await show(<SuppressionsView model={model} />)
    const links = [...container.querySelectorAll<HTMLAnchorElement>('.suppressed-message a')]
    expect(links.map((a) => a.textContent)).toEqual(['Welcome to Acme', 'msg_01GONE'])
    expect(links[0]!.getAttribute('href')).toBe('#/messages/msg_01ABC?tab=delivery')
    const count = container.querySelector('#suppression-count')!
    expect([count.className, count.getAttribute('role'), count.textContent]).toEqual([
      'count',
      'img',
      '2',
    ])
    expect(count.getAttribute('aria-label')).toBe('2 addresses')
    // Table roles said outright: a phone lays the rows out as cards.
    expect(container.querySelectorAll('[role="row"]')).toHaveLength(3)
  })
})

describe('the webhook deliveries', () => {
  it('say the endpoint once, and keep a failed attempt in sight after a retry succeeded', async () => {
    const model = new WebhooksModel(page)
    const delivery = (id: string, codes: number[], status: WebhookDelivery['status']) =>
      ({
        id,
        webhookId: `evt_${id}`,
        type: 'message.sent',
        url: 'http://127.0.0.1:9/hooks',
        messageId: 'msg_01ABC',
        recipient: 'ada@example.com',
        status,
        createdAt: '2026-11-21T10:00:00.000Z',
        nextAttemptAt: null,
        request: { headers: {}, body: '{}' },
        attempts: codes.map((statusCode) => ({
          at: '2026-11-21T10:00:00.000Z',
          statusCode,
          error: null,
          durationMs: 1,
          responseBody: '',
        })),
      }) as WebhookDelivery
    model.data.value = {
      endpoints: ['http://127.0.0.1:9/hooks'],
      deliveries: [
        delivery('whd_a', [500, 200], 'delivered'),
        delivery('whd_b', [200], 'delivered'),
      ],
      total: 2,
      pending: 0,
    }
    await show(<WebhooksView model={model} route={parseHash('#/webhooks')} />)
    expect(container.textContent?.split('http://127.0.0.1:9/hooks')).toHaveLength(2)
    expect(
      [...container.querySelectorAll('.delivery-attempts')].map((td) => td.textContent),
    ).toEqual(['2 (1 failed)', '1'])
    expect(container.querySelector('#webhook-detail')).toBeNull()
    model.openId.value = 'whd_a'
    await act(() => {})
    expect(container.querySelector('#webhook-detail .attempts tbody')?.children).toHaveLength(2)
  })
})
