import type { MessageStore, Notice, RecipientEvent, Release, Suppression } from '../store/types.js'
import type { EventBus, SandboxEvent } from './events.js'
import type { WebhookDelivery } from './webhook-types.js'

/**
 * One sandbox over several processes (docs/team.md): what happens in one reaches the event bus
 * of every other, so their waits and event streams hear it within milliseconds. A store shared
 * by processes has a `channel`; on the log this does nothing.
 *
 * A notice is small (PostgreSQL's NOTIFY takes at most 8,000 bytes): a message travels as its id
 * and is read back from the store, which has committed it by the time the notice arrives. Notices
 * are handled one after another, so a message is always heard before its states.
 * Templates, snapshots and the log's health stay each process's own (their files are its own).
 */

/** What travels: the events of the shared state, each by the least that identifies it. */
function noticeOf(event: SandboxEvent): Notice | null {
  switch (event.type) {
    case 'message':
      return { type: 'message', id: event.record.id }
    case 'status':
      return {
        type: 'status',
        id: event.record.id,
        recipient: event.recipient,
        event: event.event,
      }
    case 'deleted':
      return { type: 'deleted', id: event.id, project: event.project }
    case 'cleared':
      return {
        type: 'cleared',
        count: event.count,
        ...(event.project === undefined ? {} : { project: event.project }),
      }
    case 'release':
      return { type: 'release', id: event.record.id, release: event.release }
    case 'webhook':
      // Read back from the deliveries' table: a body does not fit in a notice.
      return { type: 'webhook', id: event.delivery.id }
    case 'suppression':
      return {
        type: 'suppression',
        change: event.change,
        suppressions: fitting(event.suppressions),
      }
    default:
      return null
  }
}

/** Room for this many suppressions in one notice; a bigger change tells of the first ones only. */
const SUPPRESSIONS_PER_NOTICE = 40

const fitting = (suppressions: Suppression[]) => suppressions.slice(0, SUPPRESSIONS_PER_NOTICE)

interface NoticeFields {
  id: string
  count: number
  recipient: number
  event: RecipientEvent
  change: 'added' | 'removed'
  suppressions: Suppression[]
  project?: string
  release: Release
}

/** The event a notice stands for, read back from the store; null when it is gone meanwhile. */
async function eventOf(store: MessageStore, notice: Notice): Promise<SandboxEvent | null> {
  // What noticeOf wrote, by the same process code: trusted like the store's own rows.
  const n = notice as unknown as NoticeFields
  switch (notice.type) {
    case 'webhook': {
      const delivery = await store.webhooks?.get(n.id)
      return delivery
        ? { type: 'webhook', delivery: delivery as unknown as WebhookDelivery, remote: true }
        : null
    }
    case 'message': {
      const record = await store.get(n.id)
      return record ? { type: 'message', record, remote: true } : null
    }
    case 'status': {
      const record = await store.get(n.id)
      return record
        ? { type: 'status', record, recipient: n.recipient, event: n.event, remote: true }
        : null
    }
    case 'release': {
      const record = await store.get(n.id)
      return record ? { type: 'release', record, release: n.release, remote: true } : null
    }
    case 'deleted':
      return { type: 'deleted', id: n.id, project: n.project ?? '', remote: true }
    case 'cleared':
      return {
        type: 'cleared',
        count: n.count,
        ...(n.project === undefined ? {} : { project: n.project }),
        remote: true,
      }
    case 'suppression':
      return { type: 'suppression', change: n.change, suppressions: n.suppressions, remote: true }
    default:
      return null
  }
}

/** Notices read side by side at most: a backlog is caught up in batches, never one by one. */
const NOTICES_PER_BATCH = 64

/**
 * Turns the other processes' notices into events here, in the order heard. Each batch of the
 * notices waiting is read side by side (one statement each, on the pool's connections) and then
 * emitted in order, so a message is heard before its states, and a burst of another process's
 * sends does not queue up behind one read at a time: read one by one, under two processes' full
 * load each heard 3.4 reads per send and fell seconds behind (npm run bench:team). When nothing
 * here hears other processes' events (no wait, no event stream open), nothing is read at all.
 *
 * @example
 * const hearing = createHearing(ctx, report)
 * channel.subscribe(hearing.hear)
 */
function createHearing(ctx: { log: MessageStore; events: EventBus }, report: (e: unknown) => void) {
  const waiting: Notice[] = []
  let draining = false
  let stopped = false
  const read = (notice: Notice) =>
    eventOf(ctx.log, notice).catch((error: unknown) => {
      if (!stopped) report(error)
      return null
    })
  async function drain(): Promise<void> {
    draining = true
    while (waiting.length > 0 && !stopped) {
      const batch = waiting.splice(0, NOTICES_PER_BATCH)
      if (!ctx.events.hearsRemote()) continue
      const events = await Promise.all(batch.map(read))
      for (const event of events) if (event && !stopped) ctx.events.emit(event)
    }
    draining = false
  }
  return {
    hear(notice: Notice) {
      if (stopped) return
      waiting.push(notice)
      if (!draining) void drain().catch(report)
    },
    stop() {
      stopped = true
      waiting.length = 0
    },
  }
}

/**
 * Publishes this process's events to the others and emits theirs here, marked `remote`.
 * Returns the stop function; a no-op on a store without a channel.
 *
 * @example
 * const stop = shareEvents({ log, events }, (error) => logger.error('…', error))
 */
export function shareEvents(
  ctx: { log: MessageStore; events: EventBus },
  report: (error: unknown) => void,
): () => void {
  const { channel } = ctx.log
  if (!channel) return () => {}
  const stopPublishing = ctx.events.subscribe(
    (event) => {
      const notice = noticeOf(event)
      if (notice) channel.publish(notice).catch(report)
    },
    { remote: false },
  )
  const hearing = createHearing(ctx, report)
  const stopHearing = channel.subscribe(hearing.hear)
  return () => {
    stopPublishing()
    stopHearing()
    hearing.stop()
  }
}
