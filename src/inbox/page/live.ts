/**
 * The page's event stream: one EventSource at a time, opened again after the browser gives up
 * on one, and closed when the page is hidden for good. What the page does with each event and
 * each (re)open is its own (`LiveHandlers`); the browser's objects come in `env`, so the
 * reconnect logic runs under test with a fake EventSource.
 */

export type LiveState = 'connecting' | 'live' | 'offline'

export interface LiveHandlers {
  onState(state: LiveState): void
  /**
   * A stream opened: what happened while none was open is to be fetched once. `first` on the
   * page's first open only (the views load themselves at start).
   */
  onOpen(first: boolean): void
  /** Handlers by SSE event name, given the event's `data` parsed as JSON (or `undefined`). */
  events: Record<string, (data: unknown) => void>
}

/** The part of an EventSource this module uses. */
export interface EventSourceLike {
  readonly readyState: number
  addEventListener(type: string, listener: (event: Event) => void): void
  close(): void
}

export interface LiveEnvironment {
  EventSource: { new (url: string): EventSourceLike; readonly CLOSED: number }
  window: {
    addEventListener(type: 'pagehide', listener: () => void, options?: { once?: boolean }): void
    setTimeout(callback: () => void, ms: number): number
  }
}

/** After the browser gave up on a stream (a non-stream answer, say), wait this long. */
export const RECONNECT_MS = 3000

/**
 * Opens the stream at `url` and keeps one open until the page is hidden for good.
 *
 * @example
 * connectLive(`${API}/events?fields=summary`, { onState, onOpen, events: { message: onMessage } })
 */
export function connectLive(
  url: string,
  handlers: LiveHandlers,
  env: LiveEnvironment = { EventSource, window },
): void {
  // Across streams: a new stream after a lost one is not a first open (the templates resync).
  let everOpened = false
  let hidden = false
  let source: EventSourceLike | undefined
  const connect = (): void => {
    if (hidden) return
    const current = new env.EventSource(url)
    source = current
    let opened = false
    current.addEventListener('open', () => {
      handlers.onState('live')
      handlers.onOpen(!everOpened)
      everOpened = opened = true
    })
    current.addEventListener('error', () => {
      if (current.readyState === env.EventSource.CLOSED) {
        // The browser gave up (e.g. a non-stream answer): start over a bit later.
        handlers.onState('offline')
        env.window.setTimeout(connect, RECONNECT_MS)
      } else handlers.onState(opened ? 'offline' : 'connecting')
    })
    for (const [name, handle] of Object.entries(handlers.events))
      current.addEventListener(name, (event) => handle(dataOf(event)))
  }
  // One listener for the page's life, whatever stream is current then (one per stream piled up).
  env.window.addEventListener(
    'pagehide',
    () => {
      hidden = true
      source?.close()
    },
    { once: true },
  )
  connect()
}

function dataOf(event: Event): unknown {
  const data = (event as MessageEvent<unknown>).data
  if (typeof data !== 'string') return undefined
  try {
    return JSON.parse(data)
  } catch {
    return undefined
  }
}
