import type { H3Event } from 'h3'
import type { JsonSchema } from '../lib/schema.js'
import { isTimeText, TIME_HINT } from '../lib/time.js'
import type { ErrorRef } from './error-catalog.js'
import { apiError } from './errors.js'

/**
 * Query, path and header parameters: each knows its JSON Schema and description (for the
 * OpenAPI document) and how to read its raw string (for the route). A value the parameter does
 * not take is `400 invalid_parameter` naming it, never served as if it were absent.
 */

export interface Param<T> {
  readonly description: string
  /** JSON Schema of the value. */
  readonly json: JsonSchema
  /** Path parameters are; query parameters never are here. */
  readonly required: boolean
  /** Errors other than `400 invalid_parameter` that a bad value gets. */
  readonly errors?: readonly ErrorRef[]
  /** The value, from the raw string (`null`: absent); throws a 400 naming `name`. */
  parse(raw: string | null, name: string, event: H3Event): T
}

export type ParamValues<P extends Record<string, Param<unknown>>> = {
  [K in keyof P]: P[K] extends Param<infer T> ? T : never
}

/**
 * `400 invalid_parameter` naming the parameter.
 *
 * @example
 * throw badParameter('limit', 'must be a whole number from 1 to 1000 (got "0")')
 */
export function badParameter(name: string, message: string) {
  return apiError(400, 'invalid_parameter', `The parameter "${name}" ${message}.`, {
    details: [{ parameter: name, message }],
  })
}

const withExamples = (schema: JsonSchema, examples?: unknown[]) =>
  examples ? { ...schema, examples } : schema

/** Free text; empty means absent (`?to=` filters nothing). */
export function textParam(
  description: string,
  options: { examples?: string[] } = {},
): Param<string | undefined> {
  return {
    description,
    json: withExamples({ type: 'string' }, options.examples),
    required: false,
    parse: (raw) => (raw === null || raw === '' ? undefined : raw),
  }
}

/** One of a fixed set of words; anything else (the empty string included) is refused. */
export function enumParam<const T extends string>(
  values: readonly T[],
  description: string,
  defaultValue?: T,
): Param<T | undefined> {
  return {
    description,
    json: {
      type: 'string',
      enum: [...values],
      ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    },
    required: false,
    parse(raw, name) {
      if (raw === null) return defaultValue
      if ((values as readonly string[]).includes(raw)) return raw as T
      throw badParameter(
        name,
        `must be ${values.map((v) => `"${v}"`).join(' or ')} (got ${JSON.stringify(raw.slice(0, 100))})`,
      )
    },
  }
}

const INTEGER = /^-?[0-9]{1,16}$/

/** A whole number in decimal digits, within bounds; `default` when absent. */
export function intParam(
  options: { minimum: number; maximum: number; default: number },
  description: string,
): Param<number> {
  const { minimum, maximum } = options
  return {
    description,
    json: { type: 'integer', minimum, maximum, default: options.default },
    required: false,
    parse(raw, name) {
      if (raw === null) return options.default
      const n = Number(raw)
      if (!INTEGER.test(raw) || n < minimum || n > maximum)
        throw badParameter(
          name,
          `must be a whole number from ${minimum} to ${maximum} (got ${JSON.stringify(raw.slice(0, 100))})`,
        )
      return n
    },
  }
}

/** RFC 3339: a date (`2026-11-21`) or a date and time with a zone (`2026-11-21T10:00:00Z`). */

/** An instant, as an RFC 3339 date-time or a date (midnight UTC); empty means absent. */
export function timeParam(description: string): Param<string | undefined> {
  return {
    description,
    json: {
      anyOf: [
        { type: 'string', format: 'date-time' },
        { type: 'string', format: 'date' },
      ],
      examples: ['2026-11-21T10:00:00Z'],
    },
    required: false,
    parse(raw, name) {
      if (raw === null || raw === '') return undefined
      if (!isTimeText(raw))
        throw badParameter(name, `must be ${TIME_HINT} (got ${JSON.stringify(raw.slice(0, 100))})`)
      return raw
    },
  }
}

/** A string matching `pattern` (whose source goes into the document); empty means absent. */
export function patternParam(
  pattern: RegExp,
  hint: string,
  description: string,
  options: { examples?: string[] } = {},
): Param<string | undefined> {
  return {
    description,
    json: withExamples({ type: 'string', pattern: pattern.source }, options.examples),
    required: false,
    parse(raw, name) {
      if (raw === null || raw === '') return undefined
      if (!pattern.test(raw))
        throw badParameter(name, `must be ${hint} (got ${JSON.stringify(raw.slice(0, 100))})`)
      return raw
    },
  }
}

/**
 * A path segment, percent-decoded, then read by `parse`, which refuses a malformed one with its
 * own error (a slug that is not one is `400 invalid_slug`), listed in `errors`.
 */
export function pathParam<T = string>(
  description: string,
  json: JsonSchema,
  parse: (value: string, event: H3Event) => T,
  errors: readonly ErrorRef[] = [],
): Param<T> {
  return {
    description,
    json,
    required: true,
    errors,
    parse(raw, _name, event) {
      let value = raw ?? ''
      try {
        value = decodeURIComponent(value)
      } catch {
        // Malformed escapes stay as sent; `parse` refuses them.
      }
      return parse(value, event)
    },
  }
}
