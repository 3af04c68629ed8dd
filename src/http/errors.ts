import { HTTPError } from 'h3'
import { isLogClosed, isLogWriteError, isStoreUnavailable } from '../store/index.js'
import type { ErrorCode } from './error-catalog.js'

import { errorBody, JSON_CONTENT_TYPE } from './error-body.js'

export { errorBody, JSON_CONTENT_TYPE, type ErrorBody } from './error-body.js'

/**
 * The one error model. Every route throws `apiError(...)`; `toErrorResponse` turns anything
 * thrown (ours, h3's, or a bug) into the contract's JSON shape:
 *
 *   { "error": { "code": "snake_case", "message": "A sentence.", "details": [] } }
 */

export interface ApiErrorData {
  code: ErrorCode
  details: unknown[]
}

export interface ApiErrorInit {
  details?: unknown[]
  headers?: Record<string, string>
  cause?: unknown
}

/** An error a client caused or should see, with its contract code. */
export function apiError(
  status: number,
  code: ErrorCode,
  message: string,
  init: ApiErrorInit = {},
): HTTPError<ApiErrorData> {
  return new HTTPError<ApiErrorData>({
    status,
    message,
    data: { code, details: init.details ?? [] },
    ...(init.headers ? { headers: init.headers } : {}),
    ...(init.cause !== undefined ? { cause: init.cause } : {}),
  })
}

/**
 * A failed write of the message log as the error a client sees: `507 log_write_failed`, naming
 * the file and the reason (docs/log-faults.md, "Faults"), never a bare 500 with a stack in the console
 * (the log says it once, plainly). Anything else is returned as it is.
 *
 * @example throw asLogWriteFailure(error) // in a catch around a write of the log
 */
export function asLogWriteFailure(error: unknown): unknown {
  // A shared store's database away: 503, with when to try again (docs/team.md).
  if (isStoreUnavailable(error))
    return apiError(503, 'store_unavailable', error.message, {
      details: [{ store: error.store, reason: error.reason }],
      headers: { 'retry-after': '1' },
      cause: error,
    })
  // The sandbox stopping under a request still writing: 503, as a wait the stop ends.
  if (isLogClosed(error))
    return apiError(503, 'shutting_down', error.message, {
      headers: { 'retry-after': '1' },
      cause: error,
    })
  if (!isLogWriteError(error)) return error
  return apiError(507, 'log_write_failed', error.message, {
    details: [{ file: error.file, reason: error.reason }],
    cause: error,
  })
}

/** Codes for errors h3 itself raises before our handlers run (no route, malformed URL, …). */
const codeForStatus: Record<number, [code: ErrorCode, message: string]> = {
  400: ['bad_request', 'The request could not be understood; check the URL and headers.'],
  404: [
    'not_found',
    'No such route. The API serves POST /messages and GET /templates/:slug; the inspector lives under /_sandbox/api.',
  ],
  405: ['method_not_allowed', 'This route does not accept that method.'],
  413: ['payload_too_large', 'The request body is too large.'],
  415: ['unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.'],
}

function isApiErrorData(data: unknown): data is ApiErrorData {
  return (
    typeof data === 'object' && data !== null && typeof (data as ApiErrorData).code === 'string'
  )
}

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, 'x-content-type-options': 'nosniff', ...headers },
  })
}

/**
 * Anything thrown → the contract's error response. Unexpected errors become a bare 500 (the
 * stack goes to `report`, never to the client).
 */
export function toErrorResponse(error: unknown, report: (error: unknown) => void): Response {
  error = asLogWriteFailure(error)
  if (HTTPError.isError(error) && !error.unhandled) {
    const headers: Record<string, string> = {}
    error.headers?.forEach((value, key) => {
      headers[key] = value
    })
    if (isApiErrorData(error.data)) {
      return jsonResponse(
        error.status,
        errorBody(error.data.code, error.message, error.data.details),
        headers,
      )
    }
    const known = codeForStatus[error.status]
    if (known) return jsonResponse(error.status, errorBody(known[0], known[1]), headers)
  }
  report(HTTPError.isError(error) ? (error.cause ?? error) : error)
  return jsonResponse(
    500,
    errorBody('internal_error', 'sendbox hit an unexpected error; the details are in its console.'),
  )
}

/**
 * The status, code, message and details the answer to `error` carries (what `toErrorResponse` puts in the body), for
 * the request log and the rejected-sends log.
 *
 * @example
 * errorAnswerOf(apiError(422, "missing_variables", "…")).code // "missing_variables"
 * errorAnswerOf(new Error("bug")).code                         // "internal_error"
 */
export function errorAnswerOf(error: unknown): {
  status: number
  code: string
  message: string
  details: unknown[]
} {
  error = asLogWriteFailure(error)
  if (HTTPError.isError(error) && !error.unhandled) {
    if (isApiErrorData(error.data))
      return {
        status: error.status,
        code: error.data.code,
        message: error.message,
        details: error.data.details,
      }
    const known = codeForStatus[error.status]
    if (known) return { status: error.status, code: known[0], message: known[1], details: [] }
  }
  return {
    status: 500,
    code: 'internal_error',
    message: 'sendbox hit an unexpected error; the details are in its console.',
    details: [],
  }
}
