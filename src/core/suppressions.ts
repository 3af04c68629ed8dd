import type { MessageStore, Suppression, SuppressionFilter } from '../store/types.js'
import type { EventBus } from './events.js'

/**
 * The suppression list, per project (docs/delivery.md): a hard bounce or a complaint puts the
 * address on it (core/delivery.ts); later sends of that project to it are accepted (201) and end `suppressed`.
 * It lives in the log, so it outlasts a restart; clearing messages leaves it alone.
 */

/** What the suppression rules need of a sandbox: its store and its event bus. */
type Ctx = { log: MessageStore; events: EventBus }

/**
 * Removes the matching suppressions (all of them with no filter) and tells the event stream.
 *
 * @example
 * await removeSuppressions(ctx, { address: 'ada@example.com' }) // → the removed entries
 */
export async function removeSuppressions(
  ctx: Ctx,
  filter: SuppressionFilter = {},
): Promise<Suppression[]> {
  const removed = await ctx.log.unsuppress(filter)
  if (removed.length)
    ctx.events.emit({ type: 'suppression', change: 'removed', suppressions: removed })
  return removed
}

/** The list, newest first. */
export const listSuppressions = (
  ctx: Pick<Ctx, 'log'>,
  filter: SuppressionFilter = {},
): Promise<Suppression[]> => Promise.resolve(ctx.log.suppressions(filter))
