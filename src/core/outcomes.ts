import type { Recipient, RecipientEventType } from '../store/types.js'

/**
 * Outcome by recipient (docs/delivery.md): the address's local part, or any one of its `+` tags,
 * names what happens to it, the way the SES mailbox simulator and Resend's test addresses do.
 *
 *   anything else                        delivered
 *   bounce, bounced, hardbounce          bounced (hard); the address is suppressed
 *   softbounce, deferred, delay          deferred, then delivered
 *   complaint, complained, spam          delivered, then complained; the address is suppressed
 *   an address on the suppression list   suppressed
 */

export type Outcome = 'delivered' | 'bounced' | 'deferred' | 'complained' | 'suppressed'

const NAMED: Record<string, Outcome> = {
  bounce: 'bounced',
  bounced: 'bounced',
  hardbounce: 'bounced',
  softbounce: 'deferred',
  deferred: 'deferred',
  delay: 'deferred',
  complaint: 'complained',
  complained: 'complained',
  spam: 'complained',
}

/** The states a recipient goes through, one per step, `--delivery-delay` apart. */
const STEPS: Record<Outcome, RecipientEventType[]> = {
  delivered: ['delivered'],
  bounced: ['bounced'],
  deferred: ['deferred', 'delivered'],
  complained: ['delivered', 'complained'],
  suppressed: ['suppressed'],
}

/**
 * The outcome an address names, case-insensitively: the first of its `+` tags that names one,
 * else its local part. A test combines an outcome with tags of its own, before or after it
 * (`ada+t42+bounce@`, `ada+bounce+t42@`).
 *
 * @example
 * outcomeOf('ada@example.com')            // 'delivered'
 * outcomeOf('Ada+Bounce@example.com')     // 'bounced'
 * outcomeOf('ada+t42+bounce@example.com') // 'bounced'
 * outcomeOf('spam@example.com')           // 'complained'
 * outcomeOf('delay+x@example.com')        // 'deferred'
 */
export function outcomeOf(address: string): Exclude<Outcome, 'suppressed'> {
  const at = address.lastIndexOf('@')
  const [base = '', ...tags] = (at === -1 ? address : address.slice(0, at)).toLowerCase().split('+')
  // Own keys only: `constructor@example.com` names nothing (NAMED's prototype is Object's).
  const named = [...tags, base].find((part) => Object.hasOwn(NAMED, part))
  return (named === undefined ? 'delivered' : NAMED[named]) as Exclude<Outcome, 'suppressed'>
}

/**
 * The events a recipient goes through, from the start.
 *
 * @example
 * stepsFor('deferred') // ['deferred', 'delivered']
 */
export const stepsFor = (outcome: Outcome): RecipientEventType[] => STEPS[outcome].slice()

/** Whether this event puts the address on the project's suppression list. */
export const suppresses = (type: RecipientEventType): type is 'bounced' | 'complained' =>
  type === 'bounced' || type === 'complained'

/**
 * What is left of a recipient's automatic steps, from what its events say already happened
 * (after a restart). Nothing once a simulated event took it over, or once its events left the
 * plan; `null` when it has not started (its outcome is decided when it does: the suppression
 * list may change until then).
 *
 * @example
 * remainingSteps({ address: 'x+softbounce@example.com', status: 'deferred', events: [sent, deferred] }) // ['delivered']
 */
export function remainingSteps(recipient: Recipient): RecipientEventType[] | null {
  const done = recipient.events.filter((e) => e.type !== 'sent')
  if (done.length === 0) return null
  if (done.some((e) => e.simulated)) return []
  const plan =
    done[0]!.type === 'suppressed' ? STEPS.suppressed : STEPS[outcomeOf(recipient.address)]
  for (let i = 0; i < done.length; i++) if (plan[i] !== done[i]!.type) return []
  return plan.slice(done.length)
}
