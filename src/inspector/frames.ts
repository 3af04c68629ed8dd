/**
 * The frames of the event stream (GET /_sandbox/api/events, in ./events.ts), apart from its
 * route: the composition root builds the batches into the context before the routes (and h3 with
 * them) are loaded, once the port is open.
 */
import type { SandboxEvent } from '../core/events.js'
import type { MessageReader } from '../core/reading.js'
import { createFrameBatch, type FrameBatch, type FrameBatches } from '../http/frame-batch.js'
import { recordJson } from '../store/index.js'
import type { MessageRecord } from '../store/types.js'
import { summaryOf } from './query.js'

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
 * is everyone's, each told how many of its own went; templates, snapshots and the log's health are shared. Suppressions are cut to
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
      // Its own clear, with its count; a clear of every project, with how many of its own went
      // (0 when none: its list and rejections are read again all the same). Never another
      // project's clear, nor another project's count.
      if (event.project !== undefined) return event.project === project ? event : null
      return { type: 'cleared', count: event.byProject?.[project] ?? 0 }
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
