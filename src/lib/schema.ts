import type { FieldProblem, Parsed } from './problems.js'
import { isPlainObject, typeName } from './json.js'
import { nearest } from './suggest.js'

/**
 * A small typed schema kit for JSON inputs: each schema checks a value (every problem reported
 * with its field path, as `validation_failed` details list them) and describes itself as JSON
 * Schema 2020-12 for the OpenAPI document. One object, two uses, so the document and the
 * validation cannot say different things.
 *
 * The rules are strict on purpose: `null` is a value (never "absent"), unknown object keys are
 * refused with a "did you mean", and a wrong type is reported as such.
 *
 * @example
 * const Fault = object({ status: enumOf([429, 503] as const), count: optional(integer({ minimum: 1 })) })
 * parse(Fault, { status: 503, cont: 2 })
 * // { ok: false, problems: [{ field: 'cont', code: 'unknown_field', message: 'Unknown field "cont". Did you mean "count"?' }] }
 */

export type JsonSchema = Record<string, unknown>
export type Report = (problem: FieldProblem) => void

export interface Schema<T> {
  /** JSON Schema 2020-12 of what this accepts. */
  readonly json: JsonSchema
  /** The value as parsed, or undefined after reporting what is wrong with it at `field`. */
  check(value: unknown, field: string, report: Report): T | undefined
}

/** A schema whose key may be absent from its object (but not `null`). */
export interface OptionalSchema<T> extends Schema<T> {
  readonly optional: true
}

export type Infer<S> = S extends Schema<infer T> ? T : never

/** What every schema may say about itself in the document. */
export interface Meta {
  description?: string
  examples?: unknown[]
}

const meta = (m: Meta = {}): JsonSchema => ({
  ...(m.description ? { description: m.description } : {}),
  ...(m.examples ? { examples: m.examples } : {}),
})

/** `field` for a message: the root is "the body". */
const named = (field: string) => field || 'The body'

function wrongType(field: string, expected: string, value: unknown): FieldProblem {
  return {
    field,
    code: 'invalid_type',
    message: `${named(field)} must be ${expected}, not ${typeName(value)}.`,
  }
}

/** Every problem at once, or the value. */
export function parse<T>(schema: Schema<T>, value: unknown): Parsed<T> {
  const problems: FieldProblem[] = []
  const parsed = schema.check(value, '', (problem) => problems.push(problem))
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: parsed as T }
}

export interface StringOptions extends Meta {
  minLength?: number
  maxLength?: number
  /** Whole-string rule; its `source` goes into the document, so keep it ECMA and Python compatible. */
  pattern?: RegExp
  /** What a value must look like, for the message when `pattern` fails: "a slug (letters, …)". */
  patternHint?: string
  format?: string
  /** Values refused although they match (`not: { enum }` in the document). */
  not?: string[]
}

/**
 * A string. Length is counted in UTF-16 code units, like JavaScript's `length` (JSON Schema
 * counts code points; they differ only for characters outside the BMP, which no bounded field here allows).
 */
export function string(options: StringOptions = {}): Schema<string> {
  const { minLength, maxLength, pattern, patternHint, format, not } = options
  return {
    json: {
      type: 'string',
      ...(minLength !== undefined ? { minLength } : {}),
      ...(maxLength !== undefined ? { maxLength } : {}),
      ...(pattern ? { pattern: pattern.source } : {}),
      ...(format ? { format } : {}),
      ...(not?.length ? { not: { enum: not } } : {}),
      ...meta(options),
    },
    check(value, field, report) {
      if (typeof value !== 'string') return void report(wrongType(field, 'a string', value))
      if (minLength !== undefined && value.length < minLength) {
        return void report({
          field,
          code: minLength === 1 && value === '' ? 'required' : 'too_short',
          message:
            minLength === 1
              ? `${named(field)} must not be empty.`
              : `${named(field)} has ${value.length} characters; the minimum is ${minLength}.`,
        })
      }
      if (maxLength !== undefined && value.length > maxLength)
        return void report({
          field,
          code: 'too_long',
          message: `${named(field)} has ${value.length} characters; the limit is ${maxLength}.`,
        })
      if ((pattern && !pattern.test(value)) || not?.includes(value))
        return void report({
          field,
          code: 'invalid_value',
          message: `${named(field)} must be ${patternHint ?? `a string matching ${pattern?.source}`}; got ${JSON.stringify(value.slice(0, 140))}.`,
        })
      return value
    },
  }
}

/** One of a fixed set of strings or numbers. */
export function enumOf<const T extends string | number>(
  values: readonly T[],
  options: Meta = {},
): Schema<T> {
  const shown = values.map((v) => JSON.stringify(v)).join(', ')
  return {
    json: {
      ...(typeof values[0] === 'number' ? { type: 'integer' } : { type: 'string' }),
      enum: [...values],
      ...meta(options),
    },
    check(value, field, report) {
      if (values.includes(value as T)) return value as T
      report({
        field,
        code: 'invalid_value',
        message: `${named(field)} must be one of ${shown}; got ${JSON.stringify(value) ?? 'nothing'}.`,
      })
      return undefined
    },
  }
}

/** A whole number within bounds (a JSON number with no fraction). */
export function integer(
  options: Meta & { minimum?: number; maximum?: number } = {},
): Schema<number> {
  const { minimum, maximum } = options
  return {
    json: {
      type: 'integer',
      ...(minimum !== undefined ? { minimum } : {}),
      ...(maximum !== undefined ? { maximum } : {}),
      ...meta(options),
    },
    check(value, field, report) {
      if (typeof value !== 'number' || !Number.isInteger(value))
        return void report(wrongType(field, 'a whole number', value))
      if (
        (minimum !== undefined && value < minimum) ||
        (maximum !== undefined && value > maximum)
      ) {
        const range =
          maximum === undefined
            ? `at least ${minimum}`
            : minimum === undefined
              ? `at most ${maximum}`
              : `from ${minimum} to ${maximum}`
        return void report({
          field,
          code: 'invalid_value',
          message: `${named(field)} must be a whole number ${range}; got ${value}.`,
        })
      }
      return value
    },
  }
}

export function boolean(options: Meta = {}): Schema<boolean> {
  return {
    json: { type: 'boolean', ...meta(options) },
    check: (value, field, report) =>
      typeof value === 'boolean' ? value : void report(wrongType(field, 'true or false', value)),
  }
}

/** Any JSON object; its values are free JSON (`additionalProperties: true` in the document). */
export function jsonObject(options: Meta = {}): Schema<Record<string, unknown>> {
  return {
    json: { type: 'object', additionalProperties: true, ...meta(options) },
    check: (value, field, report) =>
      isPlainObject(value) ? value : void report(wrongType(field, 'an object', value)),
  }
}

/** Marks a field that may be left out. `null` is still a value, and still checked. */
export function optional<T>(schema: Schema<T>, defaultValue?: T): OptionalSchema<T> {
  return {
    json: { ...schema.json, ...(defaultValue !== undefined ? { default: defaultValue } : {}) },
    check: schema.check,
    optional: true,
  }
}

type Shape = Record<string, Schema<unknown>>
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends OptionalSchema<unknown> ? K : never
}[keyof S]
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & {
  [K in OptionalKeys<S>]?: Infer<S[K]>
}

const isOptional = (schema: Schema<unknown>): schema is OptionalSchema<unknown> =>
  (schema as Partial<OptionalSchema<unknown>>).optional === true

/**
 * An object with exactly these keys (`additionalProperties: false`). A missing required key is
 * `required`; an unknown one is `unknown_field`, with the nearest known key suggested.
 */
export function object<S extends Shape>(shape: S, options: Meta = {}): Schema<ObjectOf<S>> {
  const keys = Object.keys(shape)
  const required = keys.filter((key) => !isOptional(shape[key]!))
  return {
    json: {
      type: 'object',
      ...(required.length ? { required } : {}),
      properties: Object.fromEntries(keys.map((key) => [key, shape[key]!.json])),
      additionalProperties: false,
      ...meta(options),
    },
    check(value, field, report) {
      if (!isPlainObject(value))
        return void report(
          wrongType(field, `a JSON object${keys.length ? ` with ${keys.join(', ')}` : ''}`, value),
        )
      const at = (key: string) => (field ? `${field}.${key}` : key)
      const out: Record<string, unknown> = {}
      let ok = true
      for (const key of keys) {
        const schema = shape[key]!
        if (!Object.hasOwn(value, key)) {
          if (isOptional(schema)) continue
          ok = false
          report({ field: at(key), code: 'required', message: `${at(key)} is required.` })
          continue
        }
        let bad = false
        const parsed = schema.check(value[key], at(key), (problem) => {
          bad = true
          report(problem)
        })
        if (bad) ok = false
        else out[key] = parsed
      }
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(shape, key)) continue
        ok = false
        const [best] = nearest(key, keys, 1)
        const hint = best
          ? ` Did you mean "${best}"?`
          : keys.length
            ? ` Allowed: ${keys.join(', ')}.`
            : ''
        report({
          field: at(key),
          code: 'unknown_field',
          message: `Unknown field "${at(key)}".${hint}`,
        })
      }
      return ok ? (out as ObjectOf<S>) : undefined
    },
  }
}
