import { getRandomValues } from 'node:crypto'
import { monotonicFactory } from 'ulid'
import type { H3Event } from 'h3'
import { apiError } from '../errors/index.js'
import { faultFromToken, type FaultStatus } from '../inspector/faults.js'
import type { AppContext } from '../server/context.js'
import { formatAddress, noteRecordSize } from '../store/index.js'
import type { MessageRecord } from '../store/types.js'
import { authenticate } from './auth.js'
import { assertJsonContentType, parseJsonBody, readBodyText } from './body.js'
import { renderMessage } from './render.js'
import { validateSendRequest } from './validate.js'

// ulid's default PRNG asks the OS for one random byte per character; a pooled buffer keeps
// ids just as unpredictable at a fraction of the cost on the hot path.
const pool = new Uint8Array(4096)
let next = pool.length
function pooledRandom(): number {
  if (next >= pool.length) {
    getRandomValues(pool)
    next = 0
  }
  return pool[next++]! / 256
}
const ulid = monotonicFactory(pooledRandom)

/** Unique, and sorts by creation time (ULID, monotonic within a millisecond). */
export const newMessageId = () => `msg_${ulid()}`

export function simulatedFault(status: FaultStatus, retryAfter = 1) {
  return apiError(status, 'simulated_fault', `sendbox simulated a ${status} failure of the real service (fault injection); retry or handle it as your application would.`, {
    headers: status === 429 ? { 'retry-after': String(retryAfter) } : {},
  })
}

/**
 * POST /messages. The checks run in the contract's order and the first failure answers:
 * auth → media type and size → JSON → shape → template → variables → render.
 * Then the record is stored (201 only once its line reached the OS) and published.
 */
export async function sendMessage(event: H3Event, ctx: AppContext) {
  const { config } = ctx
  const caller = authenticate(event.req.headers.get('authorization'), config)
  const tokenFault = faultFromToken(caller.token)
  if (tokenFault) throw simulatedFault(tokenFault)
  assertJsonContentType(event)
  const text = await readBodyText(event, config.maxBody)
  const body = parseJsonBody(text)
  const request = validateSendRequest(body, { lenient: config.lenient })
  const to = request.to.map(formatAddress)
  const fault = ctx.faults.take({ template: request.template, to })
  if (fault) throw simulatedFault(fault.status, fault.retryAfter)
  const rendered = renderMessage(ctx.catalog, request.template, request.templateVariables, { lenient: config.lenient })

  const record: MessageRecord = {
    id: newMessageId(),
    status: 'sent',
    createdAt: new Date().toISOString(),
    project: caller.project,
    tokenHint: caller.tokenHint,
    template: request.template,
    from: request.from,
    to: request.to,
    subject: request.subject,
    templateVariables: request.templateVariables,
    html: rendered.html,
    text: rendered.text,
    warnings: [...request.warnings, ...rendered.warnings],
  }
  // Its weight for --max-log-bytes, without serialising it: the request carried its variables.
  noteRecordSize(record, 400 + text.length + rendered.html.length + rendered.text.length)
  await ctx.log.append(record)
  ctx.events.emit({ type: 'message', record })
  // A plain object (not a Response) lets h3 hand srvx a ready string: no web stream per send.
  event.res.status = 201
  event.res.headers.set('location', `/_sandbox/api/messages/${record.id}`)
  return {
    id: record.id,
    status: record.status,
    sandbox: true,
    createdAt: record.createdAt,
    template: record.template,
    to,
    subject: record.subject,
    warnings: record.warnings,
  }
}
