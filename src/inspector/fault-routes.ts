import type { H3 } from 'h3'
import type { AppContext } from '../core/context.js'
import { FaultLimitError, parseFaultInput } from '../core/faults.js'
import { readJsonBody } from '../http/body.js'
import { apiError } from '../http/errors.js'
import { route } from '../http/route.js'

const FAULT_BODY_LIMIT = 64 * 1024

/** POST/GET/DELETE /_sandbox/api/faults (CONTRACT §6). */
export function registerFaultRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/faults', {
    GET: () => ({ faults: ctx.faults.list() }),
    POST: async (event) => {
      const parsed = parseFaultInput(await readJsonBody(event, FAULT_BODY_LIMIT))
      if (!parsed.ok) throw apiError(422, 'validation_failed', 'The fault is not valid.', { details: parsed.problems })
      let fault
      try {
        fault = ctx.faults.arm(parsed.value)
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
