import type { H3 } from 'h3'
import { readJsonBody } from '../api/body.js'
import { isPlainObject } from '../api/validate.js'
import { apiError } from '../errors/index.js'
import type { AppContext } from '../server/context.js'
import { route } from '../server/routes.js'
import { FAULT_STATUSES, FaultLimitError, isFaultStatus, MAX_MATCH_LENGTH, type FaultInput } from './faults.js'

const FAULT_BODY_LIMIT = 64 * 1024

/** Validates a fault the way POST /_sandbox/api/faults and `sandbox.fail()` both take it. */
export function parseFaultInput(body: unknown): FaultInput {
  const problems: Array<{ field: string; code: string; message: string }> = []
  const input = isPlainObject(body) ? body : {}
  if (input !== body) problems.push({ field: '', code: 'invalid_type', message: 'The body must be a JSON object.' })
  if (!isFaultStatus(input.status)) problems.push({ field: 'status', code: 'invalid_value', message: `status must be one of ${FAULT_STATUSES.join(', ')}.` })
  const count = input.count ?? 1
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) problems.push({ field: 'count', code: 'invalid_value', message: 'count must be a whole number of at least 1.' })
  const retryAfter = input.retryAfter ?? 1
  if (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0) problems.push({ field: 'retryAfter', code: 'invalid_value', message: 'retryAfter must be a whole number of seconds.' })
  const match = (input.match ?? {}) as Record<string, unknown>
  if (typeof match !== 'object' || match === null || Array.isArray(match)) problems.push({ field: 'match', code: 'invalid_type', message: 'match must be an object with template and/or to.' })
  else {
    for (const key of ['template', 'to'] as const) {
      const value = match[key]
      if (value !== undefined && typeof value !== 'string') problems.push({ field: `match.${key}`, code: 'invalid_type', message: `match.${key} must be a string.` })
      else if (typeof value === 'string' && value.length > MAX_MATCH_LENGTH[key]) problems.push({ field: `match.${key}`, code: 'too_long', message: `match.${key} must be at most ${MAX_MATCH_LENGTH[key]} characters.` })
    }
    for (const key of Object.keys(match)) if (key !== 'template' && key !== 'to') problems.push({ field: `match.${key}`, code: 'unknown_field', message: `Unknown field "match.${key}"; match takes template and to.` })
  }
  for (const key of Object.keys(input)) {
    if (!['status', 'count', 'match', 'retryAfter'].includes(key)) problems.push({ field: key, code: 'unknown_field', message: `Unknown field "${key}"; a fault takes status, count, match and retryAfter.` })
  }
  if (problems.length) throw apiError(422, 'validation_failed', 'The fault is not valid.', { details: problems })
  const m = match as { template?: string; to?: string }
  return {
    status: input.status as FaultInput['status'],
    count: count as number,
    retryAfter: retryAfter as number,
    match: { ...(m.template !== undefined ? { template: m.template } : {}), ...(m.to !== undefined ? { to: m.to } : {}) },
  }
}

/** POST/GET/DELETE /_sandbox/api/faults (CONTRACT §6). */
export function registerFaultRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/faults', {
    GET: () => ({ faults: ctx.faults.list() }),
    POST: async (event) => {
      const input = parseFaultInput(await readJsonBody(event, FAULT_BODY_LIMIT))
      let fault
      try {
        fault = ctx.faults.arm(input)
      } catch (error) {
        if (error instanceof FaultLimitError) throw apiError(409, 'too_many_faults', error.message)
        throw error
      }
      return new Response(JSON.stringify(fault), { status: 201, headers: { 'content-type': 'application/json; charset=utf-8' } })
    },
    DELETE: () => {
      ctx.faults.clear()
      return new Response(null, { status: 204 })
    },
  })
}
