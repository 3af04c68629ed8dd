import type { H3Event } from 'h3'
import type { AppContext } from '../core/context.js'
import { faultFromToken, type FaultStatus } from '../core/faults.js'
import { storeMessage } from '../core/messages.js'
import { assertJsonContentType, parseJsonBody, readBodyText } from '../http/body.js'
import { apiError, errorAnswerOf } from '../http/errors.js'
import { templateError } from '../http/template-errors.js'
import { formatAddress } from '../store/index.js'
import { renderMessage } from '../templates/index.js'
import { authenticate } from './auth.js'
import { recordRejection, recipientsOf, type RejectionInput } from '../core/rejections.js'
import { noteRequest } from '../http/request-log.js'
import { isPlainObject } from '../lib/json.js'
import { validateSendRequest } from './validate.js'

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
  // What is known of the request so far, for the trace a rejection leaves (never the token).
  const seen: Omit<RejectionInput, 'status' | 'code' | 'message' | 'details'> = { template: null, from: null, to: null, subject: null, project: null, tokenHint: null }
  try {
    return await send(event, ctx, seen)
  } catch (error) {
    const answer = errorAnswerOf(error)
    noteRequest(event, { code: answer.code })
    recordRejection(ctx, { ...answer, ...seen })
    throw error
  }
}

/** What a body that may not validate says about itself: enough to recognise the send later. */
function glimpse(body: unknown, seen: Omit<RejectionInput, 'status' | 'code' | 'message' | 'details'>, event: H3Event): void {
  if (!isPlainObject(body)) return
  if (typeof body.template === 'string') seen.template = body.template
  if (typeof body.from === 'string') seen.from = body.from
  if (typeof body.subject === 'string') seen.subject = body.subject
  seen.to = recipientsOf(body.to)
  noteRequest(event, { ...(seen.template ? { template: seen.template } : {}), ...(seen.to ? { to: seen.to } : {}) })
}

async function send(event: H3Event, ctx: AppContext, seen: Omit<RejectionInput, 'status' | 'code' | 'message' | 'details'>) {
  const { config } = ctx
  const caller = authenticate(event.req.headers.get('authorization'), config)
  seen.project = caller.project
  seen.tokenHint = caller.tokenHint
  const tokenFault = faultFromToken(caller.token)
  if (tokenFault) throw simulatedFault(tokenFault)
  assertJsonContentType(event)
  const body = parseJsonBody(await readBodyText(event, config.maxBody))
  glimpse(body, seen, event)
  const request = validateSendRequest(body, { lenient: config.lenient })
  const to = request.to.map(formatAddress)
  noteRequest(event, { to: request.to.map((a) => a.address) })
  const fault = ctx.faults.take({ template: request.template, to })
  if (fault) throw simulatedFault(fault.status, fault.retryAfter)
  const outcome = renderMessage(ctx.catalog, request.template, request.templateVariables, { lenient: config.lenient })
  if (!outcome.ok) throw templateError(outcome.failure)

  const record = await storeMessage(ctx, { ...request, caller, rendered: outcome.rendered })
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
