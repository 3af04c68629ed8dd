import type { H3Event } from 'h3'
import * as v from 'valibot'
import { NO_NUL, pipeOf, rule, type Schema } from '../lib/schema.js'
import { isTimeText, TIME_HINT } from '../lib/time.js'
import type { ErrorRef } from './error-catalog.js'

/**
 * Query, path and header parameters: each is a Valibot schema of the raw string (`undefined`
 * when absent) with a description, so the route's value, its type and the document's parameter
 * come from one definition. A value the parameter does not take is `400 invalid_parameter`
 * naming it, never served as if it were absent; a parameter's messages say what it must be
 * ("must be a whole number from 1 to 1000 (got "0")"), and the route names it.
 *
 * The constructors live here, apart from the reading (params.ts, which answers h3 errors), so
 * that `sendbox mcp` derives its tools' arguments from them without loading h3.
 */

export interface Param<T = unknown> {
  /** Reads the raw value (`undefined`: absent); its failures' messages are "must be …" phrases. */
  readonly schema: Schema<T>
  readonly description: string
  /**
   * The error a bad value answers when it is not `400 invalid_parameter` (a slug that is not
   * one: `400 invalid_slug`); its message is then the whole sentence.
   */
  readonly errors?: readonly ErrorRef[]
  /** The raw value, when it is not the router's (percent-decoded) or the query's. */
  read?(event: H3Event): string | undefined
}

export type ParamValues<P extends Record<string, Param>> = {
  [K in keyof P]: P[K] extends Param<infer T> ? T : never
}

/** What was sent, for a message: `(got "1e1")`. */
const got = (raw: unknown) =>
  `(got ${JSON.stringify(typeof raw === 'string' ? raw.slice(0, 100) : raw) ?? 'nothing'})`

/**
 * No NUL character in a parameter (lib/schema.ts's NO_NUL): a parameter taking any text pipes it.
 *
 * @example address: pathParam('An address.', v.pipe(v.string(), noNul))
 */
export const noNul = v.regex(
  NO_NUL.pattern,
  (issue: v.RegexIssue<string>) => `must be ${NO_NUL.hint} ${got(issue.input)}`,
)

const described = (description: string, examples?: string[]) => [
  v.description(description),
  ...(examples ? [v.examples(examples)] : []),
]

/**
 * Free text; empty means absent (`?to=` filters nothing).
 *
 * @example to: textParam('Only messages with a recipient containing this.', { examples: ['ada@'] })
 */
export function textParam(
  description: string,
  options: { examples?: string[] } = {},
): Param<string | undefined> {
  return {
    description,
    schema: v.optional(
      pipeOf<string, string | undefined>(v.string(), [
        noNul,
        ...described(description, options.examples),
        v.transform((raw: string) => (raw === '' ? undefined : raw)),
      ]),
    ),
  }
}

/**
 * One of a fixed set of words; anything else (the empty string included) is refused.
 *
 * @example images: enumParam(['on', 'off'], '`off` blocks images.', 'on')
 */
export function enumParam<const T extends string, const D extends T | undefined = undefined>(
  values: readonly T[],
  description: string,
  defaultValue?: D,
): Param<D extends T ? T : T | undefined> {
  const words = values.map((word) => `"${word}"`).join(' or ')
  const schema = pipeOf(
    v.picklist(values as T[], (issue) => `must be ${words} ${got(issue.input)}`),
    described(description),
  )
  return {
    description,
    schema: (defaultValue === undefined
      ? v.optional(schema)
      : v.optional(schema, defaultValue as T)) as unknown as Schema<
      D extends T ? T : T | undefined
    >,
  }
}

const INTEGER = /^-?[0-9]{1,16}$/

/**
 * A whole number in decimal digits, within bounds; `default` when absent.
 *
 * @example limit: intParam({ minimum: 1, maximum: 1000, default: 50 }, 'How many messages.')
 */
export function intParam(
  options: { minimum: number; maximum: number; default: number },
  description: string,
): Param<number> {
  const { minimum, maximum } = options
  const fits = (raw: string) =>
    INTEGER.test(raw) && Number(raw) >= minimum && Number(raw) <= maximum
  return {
    description,
    schema: v.optional(
      pipeOf<string, number>(v.string(), [
        rule(
          'invalid_value',
          fits,
          (issue) => `must be a whole number from ${minimum} to ${maximum} ${got(issue.input)}`,
        ),
        v.transform(Number),
        // What the document says of the value (the rule above has held it to this already).
        v.number(),
        v.integer(),
        v.minValue(minimum),
        v.maxValue(maximum),
        ...described(description),
      ]),
      String(options.default),
    ),
  }
}

/**
 * An instant, as an RFC 3339 date-time or a date (midnight UTC).
 *
 * @example since: timeParam('Only messages created at or after this time.')
 */
export function timeParam(description: string): Param<string | undefined> {
  return {
    description,
    schema: v.optional(
      pipeOf(v.string(), [
        rule('invalid_value', isTimeText, (issue) => `must be ${TIME_HINT} ${got(issue.input)}`),
        v.metadata({
          anyOf: [
            { type: 'string', format: 'date-time' },
            { type: 'string', format: 'date' },
          ],
        }),
        ...described(description, ['2026-11-21T10:00:00Z']),
      ]),
    ),
  }
}

/**
 * A string matching `pattern` (whose source goes into the document); empty is no match.
 *
 * @example case: patternParam(SLUG_PATTERN, 'a fixture case name', 'A fixture case.')
 */
export function patternParam(
  pattern: RegExp,
  hint: string,
  description: string,
  options: { examples?: string[] } = {},
): Param<string | undefined> {
  return {
    description,
    schema: v.optional(
      pipeOf(v.string(), [
        v.regex(pattern, (issue) => `must be ${hint} ${got(issue.input)}`),
        ...described(description, options.examples),
      ]),
    ),
  }
}

/**
 * A path segment, percent-decoded, read by `schema`. One that refuses a value with an error of
 * its own (a slug: `400 invalid_slug`) lists it in `errors` and words its messages in full.
 *
 * @example id: pathParam('A message id.', described(v.string(), '…', ['msg_01…']))
 */
export function pathParam<T>(
  description: string,
  schema: Schema<T>,
  options: Pick<Param<T>, 'errors' | 'read'> = {},
): Param<T> {
  return { description, schema: pipeOf(schema, described(description)), ...options }
}

/**
 * The `?v=` of an HTML answer a page loads in a frame: any value, ignored. A new one makes the
 * frame load again after a change on disk (the URL of a fixture's preview never changes).
 */
export const CACHE_QUERY = {
  v: textParam(
    'Ignored: any value. A page changes it to make a frame load the answer again (`?v=2`).',
    { examples: ['2'] },
  ),
}
