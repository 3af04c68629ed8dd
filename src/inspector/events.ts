import { Readable } from 'node:stream'
import { HTTPResponse } from 'h3'
import { PROJECT_ACCESS } from '../http/viewer.js'
import { defineOperation } from '../http/define.js'
import { FIELDS_QUERY } from './query.js'

/** Heartbeat comments keep proxies and browsers from closing an idle stream. */
export const HEARTBEAT_MS = 15_000
/**
 * A client with this many bytes of events not yet taken by its socket is dropped (its
 * connection closed; EventSource reconnects and the inbox reloads its list), so a paused or slow
 * reader holds a bounded amount of memory and never slows a send.
 */
export const MAX_BACKLOG_BYTES = 8 * 1024 * 1024

const encoder = new TextEncoder()

/** GET /_sandbox/api/events: Server-Sent Events `message`, `deleted`, `cleared`, `template`, `rejected`, `status`, `webhook`, `suppression`, `log`, `snapshot`, `release`. */
export const eventOperation = defineOperation({
  method: 'GET',
  path: '/_sandbox/api/events',
  operationId: 'events',
  tag: 'inspector',
  summary: 'Server-Sent Events: everything that happens in the sandbox, live.',
  description:
    'Events: `message` (a record with its `links` and `codes`, or with `?fields=summary` the record without `html`, `text` and `templateVariables`; its `id` is the message id), `deleted` (`{ id }`), `cleared` (`{ count }`: how many messages went; with a project token, how many of that project went, and never a clear of another project), `template` (`{ slug, change, source, path }`), `rejected` (a refused send, as `GET /_sandbox/api/rejections` lists it), `status` (`{ id, status, recipient, recipientIndex, recipientStatus, event }`, a delivery state change or simulated event), `webhook` (a delivery, queued, attempted or settled), `suppression` (`{ change, suppressions }`), `snapshot` (`{ template, case, status, previous, counts }`: the snapshot status of a case changed, `status` null when the case is gone; docs/snapshots.md), `log` (`{ state, file, reason?, message?, since? }`: the log could not be written, or is written again; a PostgreSQL store cannot be reached (`unavailable`), or is reached again; docs/log-faults.md), `release` (`{ id, release: { to, at, rejected, response } }`: a message was sent on to a real mailbox through the relay; docs/inspector.md). A heartbeat comment every 15 s; a client more than 8 MiB of events behind is dropped (EventSource reconnects).',
  query: FIELDS_QUERY,
  security: PROJECT_ACCESS,
  success: {
    status: 200,
    description: 'An event stream that stays open.',
    contentType: 'text/event-stream',
  },
  handler: ({ ctx, query, caller }) => {
    const summary = query.fields === 'summary'
    // A Node stream, not a web ReadableStream: with twenty tabs open, each send is twenty chunks,
    // and a web stream's promise per chunk cost more CPU than the send itself. srvx pipes it to
    // the socket and destroys it when the client goes.
    let done = false
    const stream = new Readable({
      read() {},
      destroy(error, callback) {
        cleanup()
        callback(error)
      },
    })
    const send = (bytes: Uint8Array) => {
      // What the socket has not taken yet waits in the stream's buffer (pipe pauses on a full socket).
      if (stream.readableLength + bytes.byteLength > MAX_BACKLOG_BYTES) {
        // Too far behind: error the stream, which discards its backlog and closes the connection
        // now; ending it would keep the backlog until the client read it.
        cleanup()
        stream.destroy(new Error('The event-stream client fell too far behind.'))
        return
      }
      stream.push(bytes)
    }
    // With projects, a project's streams share a batch of their own: its events only.
    const batch = ctx.frames.of(summary ? 'summary' : 'full', caller.project)
    batch.streams.add(send)
    // Each stream is a subscriber of its own (health counts them); the batch keeps one copy.
    const unsubscribe = ctx.events.subscribe((event) => batch.add(event))
    const heartbeat = setInterval(
      () => send(encoder.encode(`: heartbeat ${new Date().toISOString()}\n\n`)),
      HEARTBEAT_MS,
    )
    heartbeat.unref()
    const unregister = ctx.onClose(() => {
      batch.flush()
      cleanup()
      stream.push(null)
    })
    function cleanup() {
      if (done) return
      done = true
      batch.streams.delete(send)
      unsubscribe()
      clearInterval(heartbeat)
      unregister()
    }
    // `retry` tells EventSource how soon to reconnect; the comment flushes the headers.
    stream.push(encoder.encode('retry: 1000\n: connected\n\n'))
    // Node's Response takes any async iterable of bytes; the DOM's BodyInit, which the tests
    // that drive a page are type-checked with (tsconfig.test-dom.json), names only its own streams.
    return new HTTPResponse(stream as unknown as ConstructorParameters<typeof HTTPResponse>[0], {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      },
    })
  },
})
