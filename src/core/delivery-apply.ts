import type {
  MessageRecord,
  MessageStore,
  RecipientEventEntry,
  RecipientEventType,
  Suppression,
} from '../store/types.js'
import type { EventBus } from './events.js'
import { outcomeOf, stepsFor, suppresses } from './outcomes.js'
import { recipientEvent } from './webhook-events.js'
import type { WebhookDispatcher } from './webhooks.js'

type ApplyContext = { log: MessageStore; events: EventBus }

/**
 * Applies recipient events to a message; what delivery steps and simulated events share. The
 * caller has just read the message: its project and its recipients' addresses, which never
 * change, are taken from it rather than read again (a query per step on PostgreSQL).
 */
export type StepApplier = (
  message: MessageRecord,
  entries: RecipientEventEntry[],
) => Promise<MessageRecord | undefined>

/**
 * Logs the suppressions the events cause, then the events, then publishes them: the status
 * events, their webhooks, the suppression events. The suppressions are written first, so whoever
 * sees a bounced recipient (a wait, a read, another process) also finds its address on the list:
 * on PostgreSQL the two are separate statements, and written side by side a wait under load saw
 * the bounce before the suppression. Resolves once the webhooks are queued (on a shared store:
 * written, so a step done is a step whose webhooks will go out).
 *
 * @example
 * const apply = createStepApplier(ctx, webhooks, () => closed)
 * await apply(record, [{ recipient: 0, type: 'delivered', at }])
 */
export function createStepApplier(
  ctx: ApplyContext,
  webhooks: Pick<WebhookDispatcher, 'enqueue'>,
  isClosed: () => boolean,
): StepApplier {
  return async (before, entries) => {
    const { id } = before
    if (entries.length === 0) return before
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
    // One await over all of them: on the log they share one write, so when it fails they all
    // reject at once, and one awaited alone would leave the others unobserved (Node ends the
    // process).
    if (suppressions.length) await Promise.all(suppressions.map((entry) => ctx.log.suppress(entry)))
    const record = await ctx.log.addEvents(id, entries, before)
    if (!record || isClosed()) return record
    const queued: Promise<void>[] = []
    for (const { recipient, ...event } of entries) {
      ctx.events.emit({ type: 'status', record, recipient, event })
      const webhook = recipientEvent(record, recipient, event)
      if (webhook) queued.push(webhooks.enqueue(webhook, record.id))
    }
    if (suppressions.length) ctx.events.emit({ type: 'suppression', change: 'added', suppressions })
    await Promise.all(queued)
    return record
  }
}

/**
 * The steps a recipient goes through, decided at its first: an address on the project's
 * suppression list is suppressed; otherwise its outcome decides.
 *
 * @example
 * await planFor(log, record, 'ada+bounce@example.com') // ['bounced']
 */
export async function planFor(
  log: Pick<MessageStore, 'suppression'>,
  record: MessageRecord,
  address: string,
): Promise<RecipientEventType[]> {
  return stepsFor(
    (await log.suppression(record.project, address)) ? 'suppressed' : outcomeOf(address),
  )
}

/**
 * One automatic step's events, all at `at`: the type each recipient's plan has at `step`,
 * skipping the recipients in `skip` (a simulated event took them over).
 *
 * @example
 * stepEntries([['delivered'], ['deferred', 'delivered']], 0, new Set(), at) // [{ recipient: 0, type: 'delivered', at }, { recipient: 1, type: 'deferred', at }]
 */
export function stepEntries(
  plans: readonly RecipientEventType[][],
  step: number,
  skip: ReadonlySet<number>,
  at: string,
): RecipientEventEntry[] {
  const entries: RecipientEventEntry[] = []
  plans.forEach((plan, recipient) => {
    const type = plan[step]
    if (type && !skip.has(recipient))
      entries.push({
        recipient,
        type,
        at,
        ...(type === 'bounced' ? { bounce: { type: 'hard' as const } } : {}),
      })
  })
  return entries
}
