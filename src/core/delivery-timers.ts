import { isLogWriteError, isStoreUnavailable } from '../store/index.js'
import type { MessageRecord, MessageStore, RecipientEventType } from '../store/types.js'
import type { Logger } from './logger.js'
import { remainingSteps } from './outcomes.js'
import { planFor, stepEntries, type StepApplier } from './delivery-apply.js'

/** Where a message's automatic steps stand in this process. */
interface Pending {
  id: string
  /** Per recipient, the steps left; null until the first step decides them. */
  plans: RecipientEventType[][] | null
  step: number
  /** Recipients a simulated event took over. */
  skip: Set<number>
  timer: NodeJS.Timeout | null
}

/** The steps of the messages this process delivers itself, on timers (the JSON Lines log). */
export interface DeliveryTimers {
  /** Starts a newly accepted message's steps. */
  start(id: string): void
  /** Picks up the steps a previous run left unfinished in the log. */
  resume(): Promise<void>
  /** A simulated event took this recipient over: its remaining automatic steps are dropped. */
  takeOver(id: string, recipient: number): void
  scheduled(): number
  close(): void
}

type TimerContext = { log: MessageStore; logger: Logger; deliveryDelay: number }

/**
 * Each message's steps on a timer, `deliveryDelay` ms apart, in the process that accepted it:
 * the log is one process's, so there is no one else to hand them to.
 *
 * @example
 * const timers = createDeliveryTimers({ log, logger, deliveryDelay: 0 }, apply)
 * timers.start(record.id)
 */
export function createDeliveryTimers(ctx: TimerContext, apply: StepApplier): DeliveryTimers {
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
    }, ctx.deliveryDelay)
  }

  async function step(p: Pending): Promise<void> {
    const record = await ctx.log.get(p.id)
    if (closed || !record) return void pending.delete(p.id)
    p.plans ??= await Promise.all(record.recipients.map((r) => planFor(ctx.log, record, r.address)))
    const entries = stepEntries(p.plans, p.step, p.skip, new Date().toISOString())
    p.step++
    await apply(record, entries)
    const more = p.plans.some((plan, recipient) => !p.skip.has(recipient) && plan.length > p.step)
    if (more && !closed) schedule(p)
    else pending.delete(p.id)
  }

  function resumeOne(record: MessageRecord): void {
    const left = record.recipients.map(remainingSteps)
    if (left.every((steps) => steps !== null && steps.length === 0)) return
    const fresh = left.some((steps) => steps === null)
    schedule({
      id: record.id,
      plans: fresh ? null : (left as RecipientEventType[][]),
      step: 0,
      // Not started: those that did start are past their plan (a restart mid-message).
      skip: new Set(fresh ? left.flatMap((steps, i) => (steps !== null ? [i] : [])) : []),
      timer: null,
    })
  }

  return {
    start: (id) => schedule({ id, plans: null, step: 0, skip: new Set(), timer: null }),
    async resume() {
      const { messages } = await ctx.log.list()
      if (closed) return
      for (const record of messages.reverse()) resumeOne(record)
    },
    takeOver: (id, recipient) => void pending.get(id)?.skip.add(recipient),
    scheduled: () => pending.size,
    close() {
      closed = true
      for (const p of pending.values()) if (p.timer) clearTimeout(p.timer)
      pending.clear()
    },
  }
}
