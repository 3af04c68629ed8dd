import { newId } from '../lib/ids.js'
import type { RenderedMessage } from '../templates/index.js'
import { initialRecipients } from '../store/index.js'
import type {
  Address,
  Awaitable,
  MessageFilter,
  MessageRecord,
  MessageStore,
  Warning,
  WorkItem,
} from '../store/types.js'
import { isEmptyFilter } from '../store/index.js'
import type { EventBus } from './events.js'

/**
 * What storing and deleting need: the log, the bus that tells the inbox and the waits, and the
 * delivery engine's work for a new message (stored with it on a store several processes share).
 */
type MessageContext = {
  log: MessageStore
  events: EventBus
  delivery?: { workOf(record: MessageRecord): WorkItem[] }
}

/**
 * The message operations of the sandbox, free of HTTP: what POST /messages, the inspector's
 * deletes and the programmatic API all call. Each changes the log, then tells the event bus.
 */

/** Unique, and sorts by creation time (ULID, monotonic within a millisecond). */
export const newMessageId = () => newId('msg_')

/** A validated send: who sent it (never the token itself), to whom, and what rendered. */
export interface AcceptedSend {
  caller: { project: string; tokenHint: string }
  template: string
  from: Address
  to: Address[]
  subject: string
  templateVariables: Record<string, unknown>
  rendered: RenderedMessage
  /** Soft problems found while validating, before the render's own. */
  warnings: Warning[]
}

/**
 * Stores an accepted send as a message record and publishes it. Resolves once its line was
 * handed to the operating system, so the caller may acknowledge it. Rejects with a
 * `LogWriteError` when the line could not be written (nothing is stored then).
 *
 * @example
 * const record = await storeMessage(ctx, { caller, template: 'welcome', from, to, subject, templateVariables, rendered, warnings: [] })
 */
export async function storeMessage(
  ctx: MessageContext,
  send: AcceptedSend,
): Promise<MessageRecord> {
  const createdAt = new Date().toISOString()
  const record: MessageRecord = {
    id: newMessageId(),
    status: 'sent',
    createdAt,
    project: send.caller.project,
    tokenHint: send.caller.tokenHint,
    template: send.template,
    from: send.from,
    to: send.to,
    subject: send.subject,
    templateVariables: send.templateVariables,
    html: send.rendered.html,
    text: send.rendered.text,
    warnings: [...send.warnings, ...send.rendered.warnings],
    recipients: initialRecipients(send.to, createdAt),
  }
  const work = ctx.delivery?.workOf(record) ?? []
  const stored = await (work.length ? ctx.log.append(record, work) : ctx.log.append(record))
  // A clear (or delete) made while the line was being written removed it already: telling the
  // inbox and the waits of it now would show a ghost row, and a wait would return a deleted message.
  if (stored) ctx.events.emit({ type: 'message', record })
  return record
}

/**
 * Clears the log, or only the messages matching `filter`, and tells the event stream.
 *
 * @example
 * await clearMessages(ctx, { template: 'welcome' }) // → how many were removed
 */
export async function clearMessages(
  ctx: MessageContext & { rejections?: { clear(): Awaitable<number> } },
  filter?: MessageFilter,
): Promise<number> {
  const { count, byProject } = await ctx.log.clear(filter)
  // A clean slate clears the recent rejected sends too, so they do not explain a later test's wait.
  if (isEmptyFilter(filter)) await ctx.rejections?.clear()
  ctx.events.emit({
    type: 'cleared',
    count,
    // A clear of one project's is that project's; one of several, each hears its own count.
    ...(filter?.project === undefined ? { byProject } : { project: filter.project }),
  })
  return count
}

/** Deletes one message; false when there is none with that id. */
export async function deleteMessage(ctx: MessageContext, id: string): Promise<boolean> {
  const record = await ctx.log.get(id)
  if (!record) return false
  await ctx.log.delete(id)
  ctx.events.emit({ type: 'deleted', id, project: record.project })
  return true
}
