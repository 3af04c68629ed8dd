import type { SandboxEvent } from '../core/events.js'
import { defineOperation } from '../http/define.js'
import { recordJson } from '../store/index.js'

/** Heartbeat comments keep proxies and browsers from closing an idle stream. */
export const HEARTBEAT_MS = 15_000
/**
 * A client with this many bytes of events not yet taken by its socket is dropped (its
 * connection closed; EventSource reconnects and the inbox reloads its list), so a paused or slow
 * reader holds a bounded amount of memory and never slows a send.
 */
export const MAX_BACKLOG_BYTES = 8 * 1024 * 1024

const encoder = new TextEncoder()

function frame(event: SandboxEvent): string {
  switch (event.type) {
    case 'message':
      // The line the log just wrote for it: the record is not serialised a second time.
      return `event: message\nid: ${event.record.id}\ndata: ${recordJson(event.record)}\n\n`
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
  }
}

/**
 * An event's bytes, serialised once however many streams are open: the bus hands every
 * subscriber the same event object, so the first one encodes it and the rest share the buffer.
 */
const frames = new WeakMap<SandboxEvent, Uint8Array>()
function encodedFrame(event: SandboxEvent): Uint8Array {
  let bytes = frames.get(event)
  if (!bytes) {
    bytes = encoder.encode(frame(event))
    frames.set(event, bytes)
  }
  return bytes
}

/**
 * A `status` event (CONTRACT §7): the message's id and overall status, the recipient's address,
 * and what happened to that recipient (its new status and the event), so that a page can update
 * without fetching the record.
 */
export function statusPayload(event: Extract<SandboxEvent, { type: 'status' }>) {
  const recipient = event.record.recipients[event.recipient]!
  return { id: event.record.id, status: event.record.status, recipient: recipient.address, recipientIndex: event.recipient, recipientStatus: recipient.status, event: event.event }
}

/** GET /_sandbox/api/events: Server-Sent Events `message`, `deleted`, `cleared`, `template`, `rejected`, `status`, `webhook`, `suppression`. */
export const eventOperation = defineOperation({
  method: 'GET',
  path: '/_sandbox/api/events',
  operationId: 'events',
  tag: 'inspector',
  summary: 'Server-Sent Events: everything that happens in the sandbox, live.',
  description:
    'Events: `message` (a record; its `id` is the message id), `deleted` (`{ id }`), `cleared` (`{ count }`), `template` (`{ slug, change, source, path }`), `rejected` (a refused send, as `GET /_sandbox/api/rejections` lists it), `status` (`{ id, status, recipient, recipientIndex, recipientStatus, event }`, a delivery state change or simulated event), `webhook` (a delivery, queued, attempted or settled), `suppression` (`{ change, suppressions }`). A heartbeat comment every 15 s; a client more than 8 MiB of events behind is dropped (EventSource reconnects).',
  success: { status: 200, description: 'An event stream that stays open.', contentType: 'text/event-stream' },
  handler: ({ ctx }) => {
    let cleanup = (_overflow?: boolean) => {}
    const stream = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          const send = (bytes: Uint8Array) => {
            // desiredSize is minus the bytes queued: what the client has not taken yet.
            if (-(controller.desiredSize ?? 0) + bytes.byteLength > MAX_BACKLOG_BYTES) return cleanup(true)
            controller.enqueue(bytes)
          }
          const unsubscribe = ctx.events.subscribe((event) => send(encodedFrame(event)))
          const heartbeat = setInterval(() => send(encoder.encode(`: heartbeat ${new Date().toISOString()}\n\n`)), HEARTBEAT_MS)
          heartbeat.unref()
          const unregister = ctx.onClose(() => cleanup())
          let done = false
          cleanup = (overflow = false) => {
            if (done) return
            done = true
            unsubscribe()
            clearInterval(heartbeat)
            unregister()
            try {
              // Too far behind: error the stream, which discards its backlog and closes the
              // connection now; close() would keep the backlog until the client read it.
              if (overflow) controller.error(new Error('The event-stream client fell too far behind.'))
              else controller.close()
            } catch {
              // Already closed or errored by the client going away.
            }
          }
          // `retry` tells EventSource how soon to reconnect; the comment flushes the headers.
          controller.enqueue(encoder.encode('retry: 1000\n: connected\n\n'))
        },
        cancel() {
          cleanup()
        },
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
    )
    return new Response(stream, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      },
    })
  },
})
