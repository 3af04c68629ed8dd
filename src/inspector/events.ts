import { Readable } from 'node:stream'
import { HTTPResponse } from 'h3'
import type { SandboxEvent } from '../core/events.js'
import { createFrameBatch, type FrameBatches } from '../core/frame-batch.js'
import type { MessageReader } from '../core/reading.js'
import { defineOperation } from '../http/define.js'
import { recordJson } from '../store/index.js'
import type { MessageRecord } from '../store/types.js'
import { FIELDS_QUERY, summaryOf } from './query.js'

/** Heartbeat comments keep proxies and browsers from closing an idle stream. */
export const HEARTBEAT_MS = 15_000
/**
 * A client with this many bytes of events not yet taken by its socket is dropped (its
 * connection closed; EventSource reconnects and the inbox reloads its list), so a paused or slow
 * reader holds a bounded amount of memory and never slows a send.
 */
export const MAX_BACKLOG_BYTES = 8 * 1024 * 1024

const encoder = new TextEncoder()

/**
 * A whole record's JSON with its reading (docs/testing.md#what-a-record-carries): the line the log just wrote for it, with
 * `links` and `codes` added before its closing brace, so the record is not serialised a second time.
 */
function readRecordJson(event: { record: MessageRecord }, reader: MessageReader): string {
  const { links, codes } = reader.of(event.record)
  const line = recordJson(event.record)
  return `${line.slice(0, -1)},"links":${JSON.stringify(links)},"codes":${JSON.stringify(codes)}}`
}

/** An event as a frame; with `summary`, a `message` carries the record without its bodies. */
function frame(event: SandboxEvent, summary: boolean, reader: MessageReader): string {
  switch (event.type) {
    case 'message':
      return `event: message\nid: ${event.record.id}\ndata: ${summary ? JSON.stringify(summaryOf(event.record)) : readRecordJson(event, reader)}\n\n`
    case 'deleted':
      return `event: deleted\ndata: ${JSON.stringify({ id: event.id })}\n\n`
    case 'cleared':
      return `event: cleared\ndata: ${JSON.stringify({ count: event.count })}\n\n`
    case 'template':
      return `event: template\ndata: ${JSON.stringify(event.change)}\n\n`
    case 'rejected':
      return `event: rejected\ndata: ${JSON.stringify(event.rejection)}\n\n`
    case 'status':
      return `event: status\ndata: ${JSON.stringify(statusPayload(event))}\n\n`
    case 'webhook':
      return `event: webhook\ndata: ${JSON.stringify(event.delivery)}\n\n`
    case 'suppression':
      return `event: suppression\ndata: ${JSON.stringify({ change: event.change, suppressions: event.suppressions })}\n\n`
    case 'log':
      return `event: log\ndata: ${JSON.stringify(event.health)}\n\n`
    case 'snapshot':
      return `event: snapshot\ndata: ${JSON.stringify(event.change)}\n\n`
  }
}

/**
 * A `status` event (docs/delivery.md): the message's id and overall status, the recipient's address,
 * and what happened to that recipient (its new status and the event), so that a page can update
 * without fetching the record.
 */
export function statusPayload(event: Extract<SandboxEvent, { type: 'status' }>) {
  const recipient = event.record.recipients[event.recipient]!
  return {
    id: event.record.id,
    status: event.record.status,
    recipient: recipient.address,
    recipientIndex: event.recipient,
    recipientStatus: recipient.status,
    event: event.event,
  }
}

/**
 * The frame batches of one sandbox (see core/frame-batch.ts), built by the composition root
 * into its context: whole records, and summaries.
 *
 * @example const ctx = { …, frames: createFrameBatches(reader) }
 */
export function createFrameBatches(reader: MessageReader): FrameBatches {
  return {
    full: createFrameBatch((event) => encoder.encode(frame(event, false, reader))),
    summary: createFrameBatch((event) => encoder.encode(frame(event, true, reader))),
  }
}

/** GET /_sandbox/api/events: Server-Sent Events `message`, `deleted`, `cleared`, `template`, `rejected`, `status`, `webhook`, `suppression`, `log`, `snapshot`. */
export const eventOperation = defineOperation({
  method: 'GET',
  path: '/_sandbox/api/events',
  operationId: 'events',
  tag: 'inspector',
  summary: 'Server-Sent Events: everything that happens in the sandbox, live.',
  description:
    'Events: `message` (a record with its `links` and `codes`, or with `?fields=summary` the record without `html`, `text` and `templateVariables`; its `id` is the message id), `deleted` (`{ id }`), `cleared` (`{ count }`), `template` (`{ slug, change, source, path }`), `rejected` (a refused send, as `GET /_sandbox/api/rejections` lists it), `status` (`{ id, status, recipient, recipientIndex, recipientStatus, event }`, a delivery state change or simulated event), `webhook` (a delivery, queued, attempted or settled), `suppression` (`{ change, suppressions }`), `snapshot` (`{ template, case, status, previous, counts }`: the snapshot status of a case changed, `status` null when the case is gone; docs/snapshots.md), `log` (`{ state, file, reason?, message?, since? }`: the log could not be written, or is written again; docs/log-faults.md). A heartbeat comment every 15 s; a client more than 8 MiB of events behind is dropped (EventSource reconnects).',
  query: FIELDS_QUERY,
  success: {
    status: 200,
    description: 'An event stream that stays open.',
    contentType: 'text/event-stream',
  },
  handler: ({ ctx, query }) => {
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
    const batch = summary ? ctx.frames.summary : ctx.frames.full
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
    return new HTTPResponse(stream, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      },
    })
  },
})
