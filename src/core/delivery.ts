import * as v from 'valibot'
import type { Parsed } from '../lib/problems.js'
import { component, enumOf, FIELD, object, optional, parse, relation, rule } from '../lib/schema.js'
import { isLogWriteError, isStoreUnavailable } from '../store/index.js'
import type {
  MessageRecord,
  MessageStore,
  RecipientEventEntry,
  RecipientEventType,
  Suppression,
} from '../store/types.js'
import type { SendboxConfig } from './settings.js'
import type { EventBus } from './events.js'
import type { Logger } from './logger.js'
import { outcomeOf, remainingSteps, stepsFor, suppresses } from './outcomes.js'
import { readingOf } from './reading.js'
import { recipientEvent, sentEvent } from './webhook-events.js'
import type { WebhookDispatcher } from './webhooks.js'

/**
 * The delivery lifecycle (docs/delivery.md). Every accepted send fires `message.sent`; then, after
 * the 201 and `--delivery-delay` ms apart, its recipients go through the states their
 * addresses name. Each step is one small log line and one `status` event per recipient, and a
 * webhook each. Simulated engagement (`simulate`) adds events by hand and takes the recipient
 * over: its remaining automatic steps are dropped.
 */

export const SIMULATED_EVENT_TYPES = [
  'opened',
  'clicked',
  'bounced',
  'complained',
  'delivered',
] as const
export type SimulatedEventType = (typeof SIMULATED_EVENT_TYPES)[number]

/** What POST /_sandbox/api/messages/:id/events and `sandbox.simulate` take. */
export interface SimulatedEvent {
  type: SimulatedEventType
  /** A recipient's address; default: the first recipient. */
  recipient?: string
  /** `clicked`: the href of one of the message's `links` (docs/testing.md#what-a-record-carries). */
  url?: string
}

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
  /** Messages with automatic steps still to come. */
  scheduled(): number
  /** Stops every pending step. */
  close(): void
}

interface Pending {
  id: string
  /** Per recipient, the steps left; null until the first step decides them. */
  plans: RecipientEventType[][] | null
  step: number
  /** Recipients a simulated event took over. */
  skip: Set<number>
  timer: NodeJS.Timeout | null
}

type DeliveryContext = {
  log: MessageStore
  events: EventBus
  config: SendboxConfig
  logger: Logger
}

/**
 * Starts the lifecycle: listens for accepted sends on the event bus, and picks up the steps a
 * previous run left unfinished in the log.
 *
 * @example
 * const delivery = createDeliveryEngine(ctx, webhooks)
 * await delivery.simulate(record.id, { type: 'opened' })
 */
export function createDeliveryEngine(
  ctx: DeliveryContext,
  webhooks: WebhookDispatcher,
): DeliveryEngine {
  const pending = new Map<string, Pending>()
  let closed = false

  function schedule(p: Pending): void {
    pending.set(p.id, p)
    // Even at 0 this is a timer: the step always comes after the send's 201.
    p.timer = setTimeout(() => {
      p.timer = null
      step(p).catch((error: unknown) => {
        // A log that cannot be written said so once, plainly: no stack per delivery step.
        if (closed || isLogWriteError(error) || isStoreUnavailable(error)) return
        ctx.logger.error(`Could not apply the delivery step of ${p.id}`, error)
      })
    }, ctx.config.deliveryDelay)
  }

  /** An address on the project's suppression list is suppressed; otherwise its outcome decides. */
  const planFor = async (record: MessageRecord, address: string): Promise<RecipientEventType[]> =>
    stepsFor(
      (await ctx.log.suppression(record.project, address)) ? 'suppressed' : outcomeOf(address),
    )

  async function step(p: Pending): Promise<void> {
    const record = await ctx.log.get(p.id)
    if (closed || !record) return void pending.delete(p.id)
    p.plans ??= await Promise.all(record.recipients.map((r) => planFor(record, r.address)))
    const at = new Date().toISOString()
    const entries: RecipientEventEntry[] = []
    p.plans.forEach((plan, recipient) => {
      const type = plan[p.step]
      if (type && !p.skip.has(recipient))
        entries.push({
          recipient,
          type,
          at,
          ...(type === 'bounced' ? { bounce: { type: 'hard' as const } } : {}),
        })
    })
    p.step++
    await apply(record.id, entries)
    const more = p.plans.some((plan, recipient) => !p.skip.has(recipient) && plan.length > p.step)
    if (more && !closed) schedule(p)
    else pending.delete(p.id)
  }

  /**
   * Logs the events and the suppressions they cause, then publishes them: the status events,
   * their webhooks, the suppression events. The new states and the suppressions show in memory
   * at the same moment (both are queued for the same write), so whoever sees a bounced
   * recipient also sees its address on the list.
   */
  async function apply(
    id: string,
    entries: RecipientEventEntry[],
  ): Promise<MessageRecord | undefined> {
    const before = await ctx.log.get(id)
    if (entries.length === 0 || !before) return before
    const updating = ctx.log.addEvents(id, entries)
    const suppressions = entries
      .filter((e) => suppresses(e.type))
      .map(
        (e): Suppression => ({
          address: before.recipients[e.recipient]!.address.toLowerCase(),
          project: before.project,
          reason: e.type as Suppression['reason'],
          createdAt: e.at,
          messageId: id,
        }),
      )
    const suppressing = suppressions.map((entry) => ctx.log.suppress(entry))
    // One await over all of them: they share one write, so when it fails they all reject at
    // once, and one awaited alone would leave the others unobserved (Node ends the process).
    const [record] = await Promise.all([updating, ...suppressing])
    if (!record || closed) return record
    for (const { recipient, ...event } of entries) {
      ctx.events.emit({ type: 'status', record, recipient, event })
      const webhook = recipientEvent(record, recipient, event)
      if (webhook) webhooks.enqueue(webhook, record.id)
    }
    if (suppressions.length) ctx.events.emit({ type: 'suppression', change: 'added', suppressions })
    return record
  }

  const stopListening = ctx.events.subscribe((event) => {
    // A message another process accepted is that process's to deliver: each step happens once.
    if (event.type !== 'message' || closed || event.remote) return
    webhooks.enqueue(sentEvent(event.record), event.record.id)
    schedule({ id: event.record.id, plans: null, step: 0, skip: new Set(), timer: null })
  })

  // Steps a previous run did not get to: they go on from where the log says they stopped.
  async function resume(): Promise<void> {
    // A store other processes share holds their deliveries under way too: taking them up here
    // would step them twice (and read every message of the sandbox). Not resumed there, yet.
    if (ctx.log.channel) return
    const { messages } = await ctx.log.list()
    if (closed) return
    for (const record of messages.reverse()) resumeOne(record)
  }
  function resumeOne(record: MessageRecord): void {
    const left = record.recipients.map(remainingSteps)
    if (left.every((steps) => steps !== null && steps.length === 0)) return
    if (left.some((steps) => steps === null)) {
      schedule({
        id: record.id,
        plans: null,
        step: 0,
        skip: new Set(left.flatMap((steps, i) => (steps !== null ? [i] : []))),
        timer: null,
      })
    } else
      schedule({
        id: record.id,
        plans: left as RecipientEventType[][],
        step: 0,
        skip: new Set(),
        timer: null,
      })
  }

  resume().catch((error: unknown) => {
    if (!closed) ctx.logger.error('Could not resume the delivery steps left unfinished', error)
  })

  return {
    async simulate(id, input) {
      const record = await ctx.log.get(id)
      if (!record) throw new MessageNotFoundError(id)
      let recipient = 0
      if (input.recipient !== undefined) {
        const wanted = bareAddress(input.recipient)
        recipient = record.recipients.findIndex((r) => r.address.toLowerCase() === wanted)
        if (recipient === -1)
          throw new RecipientNotFoundError(
            input.recipient,
            record.recipients.map((r) => r.address),
          )
      }
      if (input.type === 'clicked') {
        const urls = clickableUrls(record)
        if (!urls.includes(input.url?.trim() ?? ''))
          throw new UrlNotInMessageError(input.url ?? '', urls)
      }
      pending.get(id)?.skip.add(recipient)
      const entry: RecipientEventEntry = {
        recipient,
        type: input.type,
        at: new Date().toISOString(),
        ...(input.type === 'clicked' ? { url: input.url!.trim() } : {}),
        ...(input.type === 'bounced' ? { bounce: { type: 'hard' as const } } : {}),
        simulated: true,
      }
      const updated = await apply(id, [entry])
      if (!updated) throw new MessageNotFoundError(id)
      return updated
    },
    scheduled: () => pending.size,
    close() {
      closed = true
      stopListening()
      for (const p of pending.values()) if (p.timer) clearTimeout(p.timer)
      pending.clear()
    },
  }
}
