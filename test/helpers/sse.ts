/** A test's view of GET /_sandbox/api/events: every frame, and a way to wait for some. */
export interface EventStream {
  events: Array<{ event: string; data: any }>
  /** Resolves once `predicate` holds for the frames so far (checked as each arrives). */
  until(
    predicate: (events: Array<{ event: string; data: any }>) => boolean,
    timeoutMs?: number,
  ): Promise<Array<{ event: string; data: any }>>
  close(): void
}

/** Opens the event stream and resolves once it is connected. */
export async function openEventStream(
  baseUrl: string,
  query = '',
  headers: Record<string, string> = {},
): Promise<EventStream> {
  const abort = new AbortController()
  const response = await fetch(`${baseUrl}/_sandbox/api/events${query}`, {
    signal: abort.signal,
    headers,
  })
  if (!response.ok) throw new Error(`the event stream answered ${response.status}`)
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  const events: EventStream['events'] = []
  const waiters = new Set<() => void>()
  let buffer = ''
  let connected: () => void = () => {}
  const ready = new Promise<void>((resolve) => (connected = resolve))
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += value
        let end: number
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (frame.includes(': connected')) connected()
          const name = /^event: (.+)$/m.exec(frame)?.[1]
          const data = /^data: (.+)$/m.exec(frame)?.[1]
          if (name && data) events.push({ event: name, data: JSON.parse(data) })
        }
        for (const waiter of [...waiters]) waiter()
      }
    } catch {
      // aborted by close()
    }
  })()
  await ready
  return {
    events,
    until(predicate, timeoutMs = 10_000) {
      if (predicate(events)) return Promise.resolve(events)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(
              `the event stream did not get what was expected within ${timeoutMs} ms; it got ${JSON.stringify(events.map((e) => e.event))}`,
            ),
          )
        }, timeoutMs)
        const check = () => {
          if (!predicate(events)) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(events)
        }
        waiters.add(check)
      })
    },
    close: () => abort.abort(),
  }
}

/**
 * Opens the event stream, runs `change` (a write to the templates or fixtures folder), and
 * resolves once a `template` event matching each of `expected` (fields of its data, e.g.
 * `{ slug: 'welcome', source: 'fixture' }`) has arrived: the catalog has taken the change in.
 */
export async function afterTemplateEvents(
  baseUrl: string,
  change: () => Promise<unknown>,
  ...expected: Array<Record<string, string>>
): Promise<void> {
  const stream = await openEventStream(baseUrl)
  try {
    await change()
    await stream.until((events) =>
      expected.every((fields) =>
        events.some(
          (e) =>
            e.event === 'template' &&
            Object.entries(fields).every(([key, value]) => e.data[key] === value),
        ),
      ),
    )
  } finally {
    stream.close()
  }
}
