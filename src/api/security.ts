import type { H3Event } from 'h3'
import * as v from 'valibot'
import type { AppContext } from '../http/context.js'
import { FAULT_STATUSES, faultFromToken, isFaultStatus, type FaultStatus } from '../core/faults.js'
import type { ErrorRef, Security } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { readParam, type Param } from '../http/params.js'
import { authenticate, type Caller } from './auth.js'

/**
 * Step 1 of every emulated request: the token (docs/api.md#the-api), then what answers right after it:
 * a fault token (`sandbox_fault_503…`, sends only) and a `Prefer: code=<status>` header.
 */

/**
 * A simulated failure of the real service: JSON like any error, code `simulated_fault`; a 429
 * carries `Retry-After`.
 *
 * @example
 * throw simulatedFault(503)
 */
export function simulatedFault(status: FaultStatus, retryAfter = 1) {
  return apiError(
    status,
    'simulated_fault',
    `sendbox simulated a ${status} failure of the real service (fault injection); retry or handle it as your application would.`,
    {
      headers: status === 429 ? { 'retry-after': String(retryAfter) } : {},
    },
  )
}

/** The `code` preference of a Prefer header (RFC 7240: `name[=value][; params]`, comma-separated). */
function preferredCode(header: string): string | undefined {
  for (const preference of header.split(',')) {
    const [name, ...value] = preference.split(';')[0]!.split('=')
    if (name!.trim().toLowerCase() === 'code')
      return value
        .join('=')
        .trim()
        .replace(/^"(.*)"$/, '$1')
  }
  return undefined
}

const PREFER_HINT = `code=${FAULT_STATUSES.join(', code=')}`

/**
 * `Prefer: code=503`, as Prism takes it: this one request fails with that fault status. Other
 * preferences are ignored (RFC 7240 §2); a code that is not a fault status is a 400.
 */
export const PREFER: Param<FaultStatus | undefined> = {
  description: `\`code=<status>\` makes this one request fail with a simulated fault of that status (${FAULT_STATUSES.join(', ')}), right after authentication, as armed faults do; any other code is 400 invalid_parameter. Other preferences are ignored.`,
  schema: v.optional(
    v.pipe(
      v.string(),
      v.examples(['code=503']),
      v.rawTransform<string, FaultStatus | undefined>(({ dataset, addIssue, NEVER }) => {
        const code = preferredCode(dataset.value)
        if (code === undefined) return undefined
        const status = /^[0-9]{3}$/.test(code) ? Number(code) : NaN
        if (isFaultStatus(status)) return status
        addIssue({
          message: `takes ${PREFER_HINT} (got ${JSON.stringify(`code=${code}`.slice(0, 100))})`,
        })
        return NEVER
      }),
    ),
  ),
}

const FAULT_ERRORS: ErrorRef[] = FAULT_STATUSES.map(
  (status) => [status, 'simulated_fault'] as const,
)

function authenticated(event: H3Event, ctx: AppContext, tokenFaults: boolean): Caller {
  const caller = authenticate(event.req.headers.get('authorization'), ctx.config)
  const tokenFault = tokenFaults ? faultFromToken(caller.token) : undefined
  if (tokenFault) throw simulatedFault(tokenFault)
  const preferred = readParam(PREFER, 'Prefer', event.req.headers.get('prefer') ?? undefined)
  if (preferred) throw simulatedFault(preferred)
  return caller
}

const AUTH_ERRORS: ErrorRef[] = [
  [401, 'unauthorized'],
  [403, 'sandbox_token_required'],
  [400, 'invalid_parameter'],
  ...FAULT_ERRORS,
]

/** `Authorization: token <API_TOKEN>`, then `Prefer: code=…`. */
export const TOKEN: Security<Caller> = {
  scheme: 'token',
  check: (event, ctx) => authenticated(event, ctx, false),
  errors: AUTH_ERRORS,
  headers: { Prefer: PREFER },
}

/** As TOKEN, and a fault token (`sandbox_fault_<status>…`) fails every send made with it. */
export const SEND_TOKEN: Security<Caller> = {
  ...TOKEN,
  check: (event, ctx) => authenticated(event, ctx, true),
}
