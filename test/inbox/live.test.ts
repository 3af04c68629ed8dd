import { describe, expect, it } from 'vitest'
import {
  connectLive,
  type EventSourceLike,
  type LiveEnvironment,
  type LiveState,
  RECONNECT_MS,
} from '../../src/inbox/page/live.js'

/**
 * The inbox's event stream without a browser: a fake EventSource the test opens, breaks and
 * feeds, and a fake window whose timers and `pagehide` the test fires.
 */

const CLOSED = 2

class FakeSource implements EventSourceLike {
  static made: FakeSource[] = []
  static readonly CLOSED = CLOSED
  readyState = 0
  closed = false
  private listeners = new Map<string, Array<(event: Event) => void>>()
  constructor(readonly url: string) {
    FakeSource.made.push(this)
  }
  addEventListener(type: string, listener: (event: Event) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
  }
  close(): void {
    this.closed = true
    this.readyState = CLOSED
  }
  fire(type: string, data?: string): void {
    if (type === 'open') this.readyState = 1
    for (const listener of this.listeners.get(type) ?? [])
      listener({ type, data } as unknown as Event)
  }
  /** The browser gives up on this stream (it will not reconnect it by itself). */
  giveUp(): void {
    this.readyState = CLOSED
    this.fire('error')
  }
}

function setup() {
  FakeSource.made = []
  const timers: Array<{ callback: () => void; ms: number }> = []
  const pagehide: Array<() => void> = []
  const env: LiveEnvironment = {
    EventSource: FakeSource,
    window: {
      addEventListener: (_type, listener) => void pagehide.push(listener),
      setTimeout: (callback, ms) => timers.push({ callback, ms }),
    },
  }
  const states: LiveState[] = []
  const opens: boolean[] = []
  const messages: unknown[] = []
  connectLive(
    '/_sandbox/api/events?fields=summary',
    {
      onState: (state) => states.push(state),
      onOpen: (first) => opens.push(first),
      events: { message: (data) => messages.push(data) },
    },
    env,
  )
  const current = () => FakeSource.made.at(-1)!
  /** Runs the timers due so far (the page's reconnect). */
  const runTimers = () => {
    for (const timer of timers.splice(0)) timer.callback()
  }
  return { env, timers, pagehide, states, opens, messages, current, runTimers }
}

describe('the inbox event stream', () => {
  it('opens one stream, and hands its events over parsed', () => {
    const live = setup()
    expect(FakeSource.made).toHaveLength(1)
    live.current().fire('open')
    expect(live.states).toEqual(['live'])
    expect(live.opens).toEqual([true])
    live.current().fire('message', '{"id":"msg_1"}')
    expect(live.messages).toEqual([{ id: 'msg_1' }])
  })

  it('after the browser gives up, opens a new stream later, and resyncs everything on it', () => {
    const live = setup()
    live.current().fire('open')
    live.current().giveUp()
    expect(live.states.at(-1)).toBe('offline')
    expect(live.timers.map((t) => t.ms)).toEqual([RECONNECT_MS])
    live.runTimers()
    expect(FakeSource.made).toHaveLength(2)
    live.current().fire('open')
    // Not a first open: the templates are resynced too (they were not, on a new stream).
    expect(live.opens).toEqual([true, false])
    expect(live.states.at(-1)).toBe('live')
  })

  it('a stream the browser reopens by itself resyncs too', () => {
    const live = setup()
    live.current().fire('open')
    live.current().fire('error')
    expect(live.states.at(-1)).toBe('offline')
    live.current().fire('open')
    expect(live.opens).toEqual([true, false])
    expect(FakeSource.made).toHaveLength(1)
  })

  it('adds one pagehide listener however often it reconnects; it closes the current stream', () => {
    const live = setup()
    for (let i = 0; i < 5; i++) {
      live.current().fire('open')
      live.current().giveUp()
      live.runTimers()
    }
    expect(FakeSource.made).toHaveLength(6)
    expect(live.pagehide).toHaveLength(1)
    live.pagehide[0]!()
    expect(live.current().closed).toBe(true)
  })

  it('after pagehide, a pending reconnect opens nothing', () => {
    const live = setup()
    live.current().fire('open')
    live.current().giveUp()
    live.pagehide[0]!()
    live.runTimers()
    expect(FakeSource.made).toHaveLength(1)
  })
})
