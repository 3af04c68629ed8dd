import * as v from 'valibot'
import type { Parsed } from '../lib/problems.js'
import { component, enumOf, FIELD, object, optional, parse, relation, rule } from '../lib/schema.js'
import type { MessageRecord, MessageStore, RecipientEventEntry, WorkItem } from '../store/types.js'
import type { SendboxConfig } from './settings.js'
import { createStepApplier } from './delivery-apply.js'
import { createSharedDelivery } from './delivery-shared.js'
import { createDeliveryTimers } from './delivery-timers.js'
import type { EventBus } from './events.js'
import type { Logger } from './logger.js'
import { readingOf } from './reading.js'
import { sentEvent } from './webhook-events.js'
import type { WebhookDispatcher } from './webhooks.js'
import type { WorkRunner } from './work-runner.js'
import { SIMULATED_EVENT_TYPES, type SimulatedEvent } from './simulated-event-types.js'

export {
  SIMULATED_EVENT_TYPES,
  type SimulatedEvent,
  type SimulatedEventType,
} from './simulated-event-types.js'

/**
 * The delivery lifecycle (docs/delivery.md). Every accepted send fires `message.sent`; then, after
 * the 201 and `--delivery-delay` ms apart, its recipients go through the states their
 * addresses name. Each step is one small log line and one `status` event per recipient, and a
 * webhook each. Simulated engagement (`simulate`) adds events by hand and takes the recipient
 * over: its remaining automatic steps are dropped.
 */

const KNOWN = `one of ${SIMULATED_EVENT_TYPES.join(', ')}`
const RECIPIENT_HINT = `${FIELD} must be the address of one of the message's recipients.`
const URL_HINT = `${FIELD} must be the href (a string) of one of the message's links.`
const nonBlank = (text: string) => text.trim() !== ''

/** What POST /_sandbox/api/messages/:id/events and `sandbox.simulate` take, checked the same way. */
export const SIMULATED_EVENT = component(
  'SimulatedEvent',
  v.pipe(
    object(
      {
        type: enumOf(SIMULATED_EVENT_TYPES, { description: 'What the recipient did.' }),
        recipient: optional(
          v.pipe(
            v.string(RECIPIENT_HINT),
            rule('invalid_type', nonBlank, RECIPIENT_HINT),
            v.trim(),
            // Something other than spaces (a blank one is refused).
            v.metadata({ pattern: '\\S' }),
            v.description("A recipient's address; default: the first recipient."),
            v.examples(['ada@example.com']),
          ),
        ),
        url: optional(
          v.pipe(
            v.string(URL_HINT),
            rule('invalid_type', nonBlank, URL_HINT),
            v.metadata({ pattern: '\\S' }),
            v.description(
              "`clicked` only, and required there: the `href` of one of the message's `links`.",
            ),
          ),
        ),
      },
      {
        requiredHints: { type: `: ${KNOWN}` },
        unknownField: (near) =>
          `Unknown field "${FIELD}"${near ? `; did you mean "${near}"?` : ''}. An event takes type, recipient and url.`,
      },
    ),
    relation<SimulatedEvent>(
      'required',
      ['type', 'url'],
      'url',
      (event) => event.type !== 'clicked' || event.url !== undefined,
      "A clicked event needs the url of a link in the message's HTML.",
    ),
    relation<SimulatedEvent>(
      'invalid_value',
      ['type', 'url'],
      'url',
      (event) => event.url === undefined || event.type === 'clicked',
      (event) => `url goes with clicked only, not with ${event.type}.`,
    ),
    // The two rules above, for the document: a `clicked` has a `url`, nothing else has one.
    v.metadata({
      oneOf: [
        { properties: { type: { const: 'clicked' } }, required: ['url'] },
        {
          properties: { type: { enum: SIMULATED_EVENT_TYPES.filter((t) => t !== 'clicked') } },
          not: { required: ['url'] },
        },
      ],
    }),
  ),
)

/**
 * Validates a simulated event, listing every problem at once.
 *
 * @example
 * parseSimulatedEvent({ type: 'opened' })         // { ok: true, value: { type: 'opened' } }
 * parseSimulatedEvent({ type: 'clicked' })        // { ok: false, problems: [{ field: 'url', code: 'required', … }] }
 */
export function parseSimulatedEvent(body: unknown): Parsed<SimulatedEvent> {
  return parse(SIMULATED_EVENT, body)
}

/** There is no message with this id. */
export class MessageNotFoundError extends Error {
  override name = 'MessageNotFoundError'
  constructor(readonly id: string) {
    super(`There is no message "${id}"; it may have been deleted or dropped by --max-messages.`)
  }
}

/** The named recipient is not one of the message's. */
export class RecipientNotFoundError extends Error {
  override name = 'RecipientNotFoundError'
  constructor(
    readonly recipient: string,
    readonly recipients: string[],
  ) {
    super(
      `"${recipient}" is not a recipient of this message; its recipients are ${recipients.join(', ')}.`,
    )
  }
}

/** A `clicked` url that the message's HTML does not contain. */
export class UrlNotInMessageError extends Error {
  override name = 'UrlNotInMessageError'
  constructor(
    readonly url: string,
    readonly links: string[],
  ) {
    super(
      links.length
        ? `The message has no link to ${url}; its links are ${links.slice(0, 10).join(', ')}${links.length > 10 ? ', …' : ''}.`
        : `The message has no link to ${url} (it has no links at all).`,
    )
  }
}

/**
 * The hrefs a click may name: the message's `links` (docs/testing.md#what-a-record-carries), without repeats.
 *
 * @example
 * clickableUrls({ html: '<a href="https://x.test/?a=1&amp;b=2">x</a>', text: '' }) // ['https://x.test/?a=1&b=2']
 */
export function clickableUrls(record: Pick<MessageRecord, 'html' | 'text'>): string[] {
  return [...new Set(readingOf(record).links.map((link) => link.href))]
}

/** `Ada <ada@example.com>` or `ada@example.com` → `ada@example.com`. */
const bareAddress = (value: string) =>
  (/<([^<>]+)>\s*$/.exec(value)?.[1] ?? value).trim().toLowerCase()

export interface DeliveryEngine {
  /**
   * Appends a simulated event, updates the states, fires its webhook; resolves with the record
   * after it. Throws MessageNotFoundError, RecipientNotFoundError or UrlNotInMessageError.
   */
  simulate(id: string, event: SimulatedEvent): Promise<MessageRecord>
  /**
   * The work a newly accepted message brings, stored with it in one transaction (a store
   * several processes share); none on the log, where this process delivers on timers.
   */
  workOf(record: MessageRecord): WorkItem[]
  /** Messages with automatic steps still to come in this process's timers. */
  scheduled(): number
  /** Stops every pending step. */
  close(): void
}

type DeliveryContext = {
  log: MessageStore
  events: EventBus
  config: SendboxConfig
  logger: Logger
}

/** The recipient an event names (the first when none is), checked against the message. */
function recipientIndex(record: MessageRecord, input: SimulatedEvent): number {
  if (input.recipient === undefined) return 0
  const wanted = bareAddress(input.recipient)
  const recipient = record.recipients.findIndex((r) => r.address.toLowerCase() === wanted)
  if (recipient === -1)
    throw new RecipientNotFoundError(
      input.recipient,
      record.recipients.map((r) => r.address),
    )
  return recipient
}

/** The event a simulation appends, after its checks. */
function simulatedEntry(record: MessageRecord, input: SimulatedEvent): RecipientEventEntry {
  const recipient = recipientIndex(record, input)
  if (input.type === 'clicked') {
    const urls = clickableUrls(record)
    if (!urls.includes(input.url?.trim() ?? ''))
      throw new UrlNotInMessageError(input.url ?? '', urls)
  }
  return {
    recipient,
    type: input.type,
    at: new Date().toISOString(),
    ...(input.type === 'clicked' ? { url: input.url!.trim() } : {}),
    ...(input.type === 'bounced' ? { bounce: { type: 'hard' as const } } : {}),
    simulated: true,
  }
}

/**
 * Starts the lifecycle. On the log, this process delivers what it accepts, on timers, and picks
 * up the steps a previous run left unfinished (delivery-timers.ts). On a store several processes
 * share (given its `runner`), each message's delivery is a row of work any of them claims
 * (delivery-shared.ts): done once, and done when the process that accepted it is gone.
 *
 * @example
 * const delivery = createDeliveryEngine(ctx, webhooks)
 * await delivery.simulate(record.id, { type: 'opened' })
 */
export function createDeliveryEngine(
  ctx: DeliveryContext,
  webhooks: WebhookDispatcher,
  runner?: WorkRunner,
): DeliveryEngine {
  let closed = false
  const apply = createStepApplier(ctx, webhooks, () => closed)
  const work = runner ? ctx.log.work : undefined
  const shared =
    runner && work
      ? createSharedDelivery(
          { log: ctx.log, work, deliveryDelay: ctx.config.deliveryDelay },
          apply,
          webhooks,
          runner,
        )
      : null
  const timers = shared
    ? null
    : createDeliveryTimers(
        { log: ctx.log, logger: ctx.logger, deliveryDelay: ctx.config.deliveryDelay },
        apply,
      )

  // A message another process accepted is not this one's to start: its own events only.
  const stopListening = ctx.events.subscribe(
    (event) => {
      if (event.type !== 'message' || closed) return
      if (shared) return shared.start(event.record)
      void webhooks.enqueue(sentEvent(event.record), event.record.id)
      timers?.start(event.record.id)
    },
    { remote: false },
  )

  timers?.resume().catch((error: unknown) => {
    if (!closed) ctx.logger.error('Could not resume the delivery steps left unfinished', error)
  })

  return {
    async simulate(id, input) {
      const record = await ctx.log.get(id)
      if (!record) throw new MessageNotFoundError(id)
      const entry = simulatedEntry(record, input)
      timers?.takeOver(id, entry.recipient)
      const updated = await apply(record, [entry])
      if (!updated) throw new MessageNotFoundError(id)
      return updated
    },
    workOf: (record) => shared?.workOf(record) ?? [],
    scheduled: () => timers?.scheduled() ?? 0,
    close() {
      closed = true
      stopListening()
      timers?.close()
    },
  }
}
