import type { H3 } from 'h3'
import type { SandboxEvent } from '../core/events.js'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'

/** Heartbeat comments keep proxies and browsers from closing an idle stream. */
export const HEARTBEAT_MS = 15_000
/** A client this many events behind is dropped, so a slow reader never slows a send. */
const MAX_BACKLOG = 1000

const encoder = new TextEncoder()

function frame(event: SandboxEvent): string {
  switch (event.type) {
    case 'message':
      return `event: message\nid: ${event.record.id}\ndata: ${JSON.stringify(event.record)}\n\n`
    case 'deleted':
      return `event: deleted\ndata: ${JSON.stringify({ id: event.id })}\n\n`
    case 'cleared':
      return `event: cleared\ndata: ${JSON.stringify({ count: event.count })}\n\n`
    case 'template':
      return `event: template\ndata: ${JSON.stringify(event.change)}\n\n`
    case 'status':
      return `event: status\ndata: ${JSON.stringify(statusPayload(event))}\n\n`
    case 'webhook':
      return `event: webhook\ndata: ${JSON.stringify(event.delivery)}\n\n`
    case 'suppression':
      return `event: suppression\ndata: ${JSON.stringify({ change: event.change, suppressions: event.suppressions })}\n\n`
  }
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

/** GET /_sandbox/api/events: Server-Sent Events `message`, `deleted`, `cleared`, `template`, `status`, `webhook`, `suppression`. */
export function registerEventRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/events', {
    GET: () => {
      let cleanup = () => {}
      const stream = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            const send = (text: string) => {
              if ((controller.desiredSize ?? 0) < -MAX_BACKLOG) return cleanup()
              controller.enqueue(encoder.encode(text))
            }
            const unsubscribe = ctx.events.subscribe((event) => send(frame(event)))
            const heartbeat = setInterval(() => send(`: heartbeat ${new Date().toISOString()}\n\n`), HEARTBEAT_MS)
            heartbeat.unref()
            const unregister = ctx.onClose(() => cleanup())
            let done = false
            cleanup = () => {
              if (done) return
              done = true
              unsubscribe()
              clearInterval(heartbeat)
              unregister()
              try {
                controller.close()
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
        { highWaterMark: 0 },
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
}
