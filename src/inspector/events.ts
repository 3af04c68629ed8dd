import { Readable } from 'node:stream'
import { HTTPResponse } from 'h3'
import type { SandboxEvent } from '../core/events.js'
import { createFrameBatch, type FrameBatch, type FrameBatches } from '../http/frame-batch.js'
import { PROJECT_ACCESS } from '../http/viewer.js'
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
    case 'release':
      return `event: release\ndata: ${JSON.stringify({ id: event.record.id, release: event.release })}\n\n`
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
 * The event as one project's viewers may see it, or null when it is none of theirs: a message,
 * its states, deliveries, rejections and deletions are their project's; a clear of every project
 * is everyone's; templates, snapshots and the log's health are shared. Suppressions are cut to
 * the project's own.
 */
export function eventFor(event: SandboxEvent, project: string | null): SandboxEvent | null {
  if (project === null) return event
  switch (event.type) {
    case 'message':
    case 'status':
    case 'release':
      return event.record.project === project ? event : null
    case 'deleted':
      return event.project === project ? event : null
    case 'cleared':
      return event.project === undefined || event.project === project ? event : null
    case 'rejected':
      return event.rejection.project === project ? event : null
    case 'webhook':
      return event.delivery.project === project ? event : null
    case 'suppression': {
      const suppressions = event.suppressions.filter((s) => s.project === project)
      return suppressions.length ? { ...event, suppressions } : null
    }
    default:
      return event
  }
}

/**
 * The frame batches of one sandbox (see http/frame-batch.ts), built by the composition root
 * into its context: whole records and summaries, per project seen, made on first use.
 *
 * @example const ctx = { …, frames: createFrameBatches(reader) }
 */
export function createFrameBatches(reader: MessageReader): FrameBatches {
  const batches = new Map<string, FrameBatch>()
  return {
    of(kind, project) {
      const key = `${kind} ${project ?? ''}`
      let batch = batches.get(key)
      if (!batch) {
        batch = createFrameBatch((event) => {
          const seen = eventFor(event, project)
          return seen && encoder.encode(frame(seen, kind === 'summary', reader))
        })
        batches.set(key, batch)
      }
      return batch
    },
  }
}

/** GET /_sandbox/api/events: Server-Sent Events `message`, `deleted`, `cleared`, `template`, `rejected`, `status`, `webhook`, `suppression`, `log`, `snapshot`, `release`. */
export const eventOperation = defineOperation({
  method: 'GET',
  path: '/_sandbox/api/events',
  operationId: 'events',
  tag: 'inspector',
  summary: 'Server-Sent Events: everything that happens in the sandbox, live.',
  description:
    'Events: `message` (a record with its `links` and `codes`, or with `?fields=summary` the record without `html`, `text` and `templateVariables`; its `id` is the message id), `deleted` (`{ id }`), `cleared` (`{ count }`), `template` (`{ slug, change, source, path }`), `rejected` (a refused send, as `GET /_sandbox/api/rejections` lists it), `status` (`{ id, status, recipient, recipientIndex, recipientStatus, event }`, a delivery state change or simulated event), `webhook` (a delivery, queued, attempted or settled), `suppression` (`{ change, suppressions }`), `snapshot` (`{ template, case, status, previous, counts }`: the snapshot status of a case changed, `status` null when the case is gone; docs/snapshots.md), `log` (`{ state, file, reason?, message?, since? }`: the log could not be written, or is written again; docs/log-faults.md), `release` (`{ id, release: { to, at, rejected, response } }`: a message was sent on to a real mailbox through the relay; docs/inspector.md). A heartbeat comment every 15 s; a client more than 8 MiB of events behind is dropped (EventSource reconnects).',
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
