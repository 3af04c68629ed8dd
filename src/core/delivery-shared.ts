import type {
  ClaimedWork,
  MessageRecord,
  MessageStore,
  WorkItem,
  WorkQueue,
} from '../store/types.js'
import { planFor, stepEntries, type StepApplier } from './delivery-apply.js'
import { remainingSteps } from './outcomes.js'
import { sentEvent } from './webhook-events.js'
import type { WebhookDispatcher } from './webhooks.js'
import type { WorkRunner } from './work-runner.js'

/** The kind of work a message's delivery is (one row per message, its key the message's id). */
export const DELIVERY_WORK = 'delivery'

/** What a delivery row carries: whether `message.sent` went to the webhooks yet. */
interface DeliveryPayload {
  sent?: boolean
}

type SharedContext = { log: MessageStore; work: WorkQueue; deliveryDelay: number }

/** One step's events, or null when every recipient is done. */
async function nextStep(log: MessageStore, record: MessageRecord) {
  const left = await Promise.all(
    record.recipients.map(
      async (r) => remainingSteps(r) ?? (await planFor(log, record, r.address)),
    ),
  )
  if (left.every((steps) => steps.length === 0)) return null
  const entries = stepEntries(left, 0, new Set(), new Date().toISOString())
  return { entries, more: left.some((steps) => steps.length > 1) }
}

/** A new message's delivery row, due now (`workOf` adds this process's lease to it). */
const firstRow = (record: MessageRecord) => ({
  kind: DELIVERY_WORK,
  key: record.id,
  dueAt: Date.now(),
  payload: {},
})

/**
 * Delivery on a store several processes share (docs/team.md): a message's steps are one row of
 * work, added with the message in one transaction, claimed by whichever process is free. At its
 * first claim it queues `message.sent`; then each claim applies one step (what is left is read
 * from the record's events, so a step redone after its process died is the next one, not the
 * same twice) and puts the row back `deliveryDelay` ms later, until nothing is left.
 *
 * @example
 * const shared = createSharedDelivery({ log, work, deliveryDelay: 0 }, apply, webhooks, runner)
 * await log.append(record, shared.workOf(record))
 */
export function createSharedDelivery(
  ctx: SharedContext,
  apply: StepApplier,
  webhooks: Pick<WebhookDispatcher, 'enqueue'>,
  runner: WorkRunner,
) {
  /** Messages this process just stored, whose delivery it runs itself: no need to read them. */
  const fresh = new Map<string, MessageRecord>()

  async function handle(item: ClaimedWork): Promise<void> {
    const payload = item.payload as DeliveryPayload
    const held = fresh.get(item.key)
    fresh.delete(item.key)
    const record = held ?? (await ctx.log.get(item.key))
    if (!record) return void (await ctx.work.done(item))
    if (!payload.sent) {
      // Its id made of the message's: queued again after a crash, it is the same event, kept once.
      await webhooks.enqueue(sentEvent(record), record.id, `evt_${record.id.slice(4)}`)
      if (ctx.deliveryDelay > 0)
        return ctx.work.later(item, Date.now() + ctx.deliveryDelay, { sent: true })
    }
    const step = await nextStep(ctx.log, record)
    if (step) await apply(record, step.entries)
    if (step?.more) await ctx.work.later(item, Date.now() + ctx.deliveryDelay, { sent: true })
    else await ctx.work.done(item)
  }

  runner.handle(DELIVERY_WORK, handle)

  return {
    /**
     * The row a newly accepted message's delivery is: due now (`message.sent` goes at once),
     * leased to this process, which starts it as soon as the message is stored (`start`). A
     * claim by another would cost it a claim and a read of the message it has in hand; when this
     * process dies first, another claims the row once the lease has run out.
     */
    workOf: (record: MessageRecord): WorkItem[] => [
      { ...firstRow(record), leaseMs: runner.leaseMs },
    ],
    /** Runs the delivery of a message this process has just stored, from the record in hand. */
    start(record: MessageRecord): void {
      fresh.set(record.id, record)
      runner.run({ ...firstRow(record), attempts: 0 })
    },
  }
}
