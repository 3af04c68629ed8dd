import * as v from 'valibot'
import { problemsOf } from '../lib/schema.js'
import { apiError } from './errors.js'
import type { Param } from './param-schemas.js'

/** Reading a parameter's raw value with its schema, or the error a bad one answers. */

export * from './param-schemas.js'

/**
 * `400 invalid_parameter` naming the parameter.
 *
 * @example
 * throw badParameter('limit', 'must be a whole number from 1 to 1000 (got "0")')
 */
export function badParameter(name: string, message: string, more: unknown[] = []) {
  return apiError(400, 'invalid_parameter', `The parameter "${name}" ${message}.`, {
    details: [{ parameter: name, message }, ...more],
  })
}

/**
 * A parameter's value read from its raw string (`undefined`: absent), or the error a bad one
 * answers: its own (`400 invalid_slug`) when it names one, else `400 invalid_parameter`.
 *
 * @example const status = readParam(PREFER, 'Prefer', event.req.headers.get('prefer') ?? undefined)
 */
export function readParam<T>(param: Param<T>, name: string, raw: string | undefined): T {
  const result = v.safeParse(param.schema, raw, { abortPipeEarly: true })
  if (result.success) return result.output
  const [problem] = problemsOf(result.issues)
  const [own] = param.errors ?? []
  if (own) throw apiError(own[0], own[1], problem!.message)
  throw badParameter(name, problem!.message)
}
