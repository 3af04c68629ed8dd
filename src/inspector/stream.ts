/**
 * Large JSON answers, streamed. A page of a thousand large records once made one 338 MiB string
 * (the event loop stalled for seconds; past V8's ~512 MB string limit it was a 500). Streamed,
 * the items are serialised a chunk at a time, only as fast as the client reads, with the event
 * loop free between chunks: memory and pauses are bounded by the chunk, not the page.
 */

/** Items are written in chunks of about this many characters. */
const CHUNK = 64 * 1024

const encoder = new TextEncoder()

/**
 * `{"<key>":[…items],"<rest…>":…}` as a streamed `application/json` answer: the same bytes
 * `JSON.stringify({ [key]: items, ...rest })` would give.
 *
 * @example return streamJsonList('messages', page.messages, { total: page.total })
 */
export function streamJsonList(
  key: string,
  items: readonly unknown[],
  rest: Record<string, unknown>,
): Response {
  const tail = Object.entries(rest)
    .map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`)
    .join('')
  let next = 0
  let started = false
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // Give every other request a turn before the next chunk.
        if (started) await new Promise((resolve) => setImmediate(resolve))
        let chunk = started ? '' : `{${JSON.stringify(key)}:[`
        started = true
        while (next < items.length && chunk.length < CHUNK) {
          chunk += `${next > 0 ? ',' : ''}${JSON.stringify(items[next])}`
          next++
        }
        if (next >= items.length) {
          controller.enqueue(encoder.encode(`${chunk}]${tail}}`))
          controller.close()
        } else controller.enqueue(encoder.encode(chunk))
      },
    },
    { highWaterMark: 1 },
  )
  return new Response(body, { headers: { 'content-type': 'application/json; charset=utf-8' } })
}
