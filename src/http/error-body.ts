/**
 * The error model's body and media type, apart from `errors.ts` (which builds on h3): the
 * listener answers a malformed request with them before the app, and h3 with it, is loaded.
 */
import type { ErrorCode } from './error-catalog.js'

/** The one JSON media type, on every answer (h3's own is `application/json;charset=UTF-8`). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

export interface ErrorBody {
  error: { code: string; message: string; details: unknown[] }
}

/**
 * The one error model's body: `{ error: { code, message, details } }`.
 *
 * @example
 * JSON.stringify(errorBody('bad_request', 'The request line is malformed.'))
 */
export function errorBody(code: ErrorCode, message: string, details: unknown[] = []): ErrorBody {
  return { error: { code, message, details } }
}
