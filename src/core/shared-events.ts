import type { MessageStore, Notice, Suppression } from '../store/types.js'
import type { EventBus, SandboxEvent } from './events.js'
import type { WebhookDelivery } from './webhook-types.js'

/**
 * One sandbox over several processes (docs/team.md): what happens in one reaches the event bus
 * of every other, so their waits and event streams hear it within milliseconds. A store shared
 * by processes has a `channel`; on the log this does nothing.
 *
 * A notice is small (PostgreSQL's NOTIFY takes less than 8,000 bytes): a message travels as its id
 * and is read back from the store, which has committed it by the time the notice arrives. Notices
 * are handled one after another, so a message is always heard before its states.
 * Templates, snapshots and the log's health stay each process's own (their files are its own).
 */

/**
 * What travels: the events of the shared state, each by the least that identifies it, so that
 * a notice stays small whatever the event carries (a `clicked` link of 9 KB, a release's reply):
 * a recipient's event and a release travel as their place in the record, which the other process
 * reads back. Suppressions, which a removal may take by the thousand, travel in as many notices
 * as they need (each at most SUPPRESSION_BYTES of them), every one of them told.
 */
function noticesOf(event: SandboxEvent): Notice[] {
  switch (event.type) {
    case 'message':
      return [{ type: 'message', id: event.record.id }]
    case 'status': {
      const events = event.record.recipients[event.recipient]?.events ?? []
      return [
        {
          type: 'status',
          id: event.record.id,
          recipient: event.recipient,
          at: lastIndexLike(events, event.event),
        },
      ]
    }
    case 'deleted':
      return [{ type: 'deleted', id: event.id, project: event.project }]
    case 'cleared':
      return [
        {
          type: 'cleared',
          count: event.count,
          ...(event.project === undefined ? {} : { project: event.project }),
          ...byProjectThatFits(event.byProject),
        },
      ]
    case 'release':
      return [
        {
          type: 'release',
          id: event.record.id,
          at: lastIndexLike(event.record.releases ?? [], event.release),
        },
      ]
    case 'webhook':
      // Read back from the deliveries' table: a body does not fit in a notice.
      return [{ type: 'webhook', id: event.delivery.id }]
    case 'suppression':
      return inParts(event.suppressions).map((suppressions) => ({
        type: 'suppression',
        change: event.change,
        suppressions,
      }))
    default:
      return []
  }
}

/**
 * The bytes of a clear's counts per project one notice carries at most. Only projects some of
 * whose messages went are counted, each in at most ~75 bytes (a projects file's names are at most
 * 64 characters), so over eighty projects always fit. Past it (a sandbox without a projects file
 * that many tokens sent to: its projects are the tokens' hashes, and no stream is a project's)
 * the counts stay behind, and the clear still crosses: a notice too large would be refused, and
 * the other processes' streams would not hear the clear at all.
 */
const CLEARED_BYTES = 6000

/** `{ byProject }` when it fits in a notice, else nothing (see CLEARED_BYTES). */
function byProjectThatFits(byProject: Record<string, number> | undefined) {
  if (byProject === undefined) return {}
  return Buffer.byteLength(JSON.stringify(byProject)) <= CLEARED_BYTES ? { byProject } : {}
}

/** Where `item` sits in `list`, the last of its equals (-1 when it is not there). */
function lastIndexLike<T>(list: readonly T[], item: T): number {
  const at = list.lastIndexOf(item)
  if (at !== -1) return at
  const wanted = JSON.stringify(item)
  return list.findLastIndex((each) => JSON.stringify(each) === wanted)
}

/**
 * The bytes of suppressions one notice carries at most. An address is at most 998 characters, so
 * even a part of one suppression stays below PostgreSQL's 8,000 bytes; 45 of 100 characters took
 * 9 KB, and failed the statement that carried them, when a change was one notice.
 */
const SUPPRESSION_BYTES = 6000

/** The suppressions in parts of at most SUPPRESSION_BYTES each (one at least), in order. */
function inParts(suppressions: readonly Suppression[]): Suppression[][] {
  const parts: Suppression[][] = []
  let part: Suppression[] = []
  let bytes = 0
  for (const suppression of suppressions) {
    const size = Buffer.byteLength(JSON.stringify(suppression)) + 1
    if (part.length > 0 && bytes + size > SUPPRESSION_BYTES) {
      parts.push(part)
      part = []
      bytes = 0
    }
    part.push(suppression)
    bytes += size
  }
  if (part.length > 0) parts.push(part)
  return parts
}

interface NoticeFields {
  id: string
  count: number
  recipient: number
  /** A recipient's event, or a release: its index in the record read back. */
  at: number
  change: 'added' | 'removed'
  suppressions: Suppression[]
  project?: string
  byProject?: Record<string, number>
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
      const event = record?.recipients[n.recipient]?.events[n.at]
      return record && event
        ? { type: 'status', record, recipient: n.recipient, event, remote: true }
        : null
    }
    case 'release': {
      const record = await store.get(n.id)
      const release = record?.releases?.[n.at]
      return record && release ? { type: 'release', record, release, remote: true } : null
    }
    case 'deleted':
      return { type: 'deleted', id: n.id, project: n.project ?? '', remote: true }
    case 'cleared':
      return {
        type: 'cleared',
        count: n.count,
        ...(n.project === undefined ? {} : { project: n.project }),
        ...(n.byProject === undefined ? {} : { byProject: n.byProject }),
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
      // Each notice on its own: one that fails is reported, and fails nothing else.
      for (const notice of noticesOf(event)) channel.publish(notice).catch(report)
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
