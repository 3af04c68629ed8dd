import { bareAddress } from '../store/index.js'
import type { Awaitable, MessageFilter, RejectionTable } from '../store/types.js'
import type { EventBus } from './events.js'
import type { Rejection, RejectionInput } from './rejection-types.js'
import { newMessageId } from './messages.js'

/**
 * Recent rejected sends: a POST /messages that did not answer 201 leaves a small trace here, so
 * an application that ignored a 422 (or sent with the wrong token) shows up in the inspector and
 * in the message of a wait that timed out. Bounded (the newest 100 of each project, those
 * without a valid token apart), kept in memory (in the database on a shared store), and
 * never holding the token or the request body: what was read of the request (template,
 * recipients, subject), the status, the error code and its message.
 */

export type { Rejection, RejectionInput } from './rejection-types.js'

export interface RejectionLog {
  /** Keeps it; resolves once kept (on a store several processes share: written). */
  record(input: RejectionInput): Promise<Rejection>
  /** Newest first; filters as for messages (a field the request never got to counts as a match). */
  list(filter?: MessageFilter): Awaitable<Rejection[]>
  /** Forgets all, or with `project` that project's; returns how many went. */
  clear(project?: string): Awaitable<number>
}

export const MAX_REJECTIONS = 100
const MAX_TEXT = 500
const MAX_DETAILS = 10
const MAX_RECIPIENTS = 50

const cut = (text: string, max = MAX_TEXT) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text

/** A detail cut down to size: its string fields shortened, anything deeper left out. */
function smallDetail(detail: unknown): unknown {
  if (typeof detail === 'string') return cut(detail, 300)
  if (!detail || typeof detail !== 'object' || Array.isArray(detail))
    return typeof detail === 'number' || typeof detail === 'boolean' ? detail : null
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(detail).slice(0, 8)) {
    if (typeof value === 'string') out[key] = cut(value, 300)
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null)
      out[key] = value
  }
  return out
}

/** A rejection as kept: an id and a time, every text cut to size. */
function rejectionOf(input: RejectionInput): Rejection {
  return {
    id: newMessageId().replace(/^msg_/, 'rej_'),
    at: new Date().toISOString(),
    ...input,
    message: cut(input.message),
    details: input.details.slice(0, MAX_DETAILS).map(smallDetail),
    template: input.template === null ? null : cut(input.template, 200),
    from: input.from === null ? null : cut(input.from, 320),
    to: input.to === null ? null : input.to.slice(0, MAX_RECIPIENTS).map((to) => cut(to, 320)),
    subject: input.subject === null ? null : cut(input.subject, 200),
  }
}

/**
 * The recent rejected sends of a sandbox, over the table its store keeps them in: in memory for
 * the JSON Lines log, in the database for processes that share one, so that every process lists
 * the same (the newest `max`).
 *
 * @example
 * const rejections = createRejectionLog(store.rejections ?? createMemoryRejectionTable(MAX_REJECTIONS))
 * await rejections.record({ status: 422, code: 'missing_variables', message: '…', details: [], template: 'welcome', from: null, to: ['ada@example.com'], subject: null, project: null, tokenHint: null })
 * await rejections.list({ to: 'ada@' }) // → [that one]
 */
export function createRejectionLog(table: RejectionTable, max = MAX_REJECTIONS): RejectionLog {
  return {
    async record(input) {
      const rejection = rejectionOf(input)
      await table.add(rejection as unknown as Rejection & { [key: string]: unknown })
      return rejection
    },
    async list(filter = {}) {
      const newest = (await table.list(max)) as unknown as Rejection[]
      return newest.filter((r) => rejectionMatches(r, filter))
    },
    clear: (project) => table.clear(project),
  }
}

const has = (value: string | null, needle: string | undefined) =>
  needle === undefined ||
  needle === '' ||
  value === null ||
  value.toLowerCase().includes(needle.toLowerCase())

/**
 * Whether a rejection may be the send a filter looks for. A field the request never got to (a
 * 401 has no recipients yet) does not rule it out: such a rejection may well be the one.
 */
export function rejectionMatches(r: Rejection, filter: MessageFilter): boolean {
  if (filter.project && r.project !== null && r.project !== filter.project) return false
  if (
    filter.since &&
    !Number.isNaN(Date.parse(filter.since)) &&
    Date.parse(r.at) < Date.parse(filter.since)
  )
    return false
  return (
    has(r.template, filter.template) &&
    has(r.subject, filter.subject) &&
    has(r.from, filter.from) &&
    (r.to === null || !filter.to || r.to.some((to) => has(to, filter.to))) &&
    (r.to === null ||
      !filter.recipient ||
      r.to.some((to) => bareAddress(to) === bareAddress(filter.recipient!)))
  )
}

/**
 * The sentence a timed-out wait adds about rejected sends that match its filter, or nothing.
 *
 * @example
 * await rejectionHint(ctx, { to: 'ada@example.com' })
 * // → ['2 sends to ada@example.com were rejected: 422 missing_variables (×2): The template "welcome" needs dashboardUrl; …']
 */
export async function rejectionHint(
  ctx: { rejections: RejectionLog },
  filter: MessageFilter,
): Promise<string[]> {
  const matching = await ctx.rejections.list(filter)
  if (matching.length === 0) return []
  const groups = new Map<string, { count: number; status: number; code: string; message: string }>()
  for (const r of matching) {
    const key = `${r.status} ${r.code} ${r.message}`
    const group = groups.get(key)
    if (group) group.count++
    else groups.set(key, { count: 1, status: r.status, code: r.code, message: r.message })
  }
  const shown = [...groups.values()]
    .slice(0, 3)
    .map(
      (g) =>
        `${g.status} ${g.code}${g.count > 1 ? ` (×${g.count})` : ''}: ${cut(g.message, 160).replace(/\.$/, '')}`,
    )
  const more =
    groups.size > 3
      ? ` And ${groups.size - 3} other kind${groups.size - 3 === 1 ? '' : 's'} of rejection.`
      : ''
  const n = matching.length
  const to = filter.recipient ? ` to ${filter.recipient}` : filter.to ? ` to ${filter.to}` : ''
  return [
    `${n} send${n === 1 ? '' : 's'}${to} ${n === 1 ? 'was' : 'were'} rejected recently: ${shown.join('; ')}.${more} GET /_sandbox/api/rejections lists them.`,
  ]
}

/**
 * Keeps a rejected send and tells the event stream (`rejected`).
 *
 * @example
 * await recordRejection(ctx, { status: 403, code: 'sandbox_token_required', message: '…', details: [], template: null, from: null, to: null, subject: null, project: null, tokenHint: null })
 */
export async function recordRejection(
  ctx: { rejections: RejectionLog; events: EventBus },
  input: RejectionInput,
): Promise<Rejection> {
  const rejection = await ctx.rejections.record(input)
  ctx.events.emit({ type: 'rejected', rejection })
  return rejection
}

/** The recipients of a send request as written, for a rejection: addresses, or null when unreadable. */
export function recipientsOf(to: unknown): string[] | null {
  if (typeof to === 'string') return [to]
  if (Array.isArray(to) && to.every((t) => typeof t === 'string')) return to as string[]
  return null
}
