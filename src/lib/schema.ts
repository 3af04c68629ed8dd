import * as v from 'valibot'
import { isPlainObject, typeName } from './json.js'
import {
  FIELD_PROBLEM_CODES,
  type FieldProblem,
  type FieldProblemCode,
  type Parsed,
} from './problems.js'
import { nearest } from './suggest.js'

/**
 * The schema kit every input is checked with: Valibot schemas (so each one gives the TypeScript
 * type, the validation, and through @valibot/to-json-schema the JSON Schema of the document),
 * built with the messages sendbox answers, and `parse`, which turns Valibot's issues into the
 * one error shape: a `validation_failed` detail per problem, every problem at once, each naming
 * its field (`to[1]`, `match.template`) with a code and a sentence, an unknown field with the
 * nearest known one ("did you mean").
 *
 * The rules are strict on purpose: `null` is a value (never "absent"), unknown object keys are
 * refused, a wrong type is reported as such, and each field reports its first problem only.
 *
 * @example
 * const Fault = object({ status: enumOf([429, 503] as const), count: optional(integer({ minimum: 1 })) })
 * parse(Fault, { status: 503, cont: 2 })
 * // { ok: false, problems: [{ field: 'cont', code: 'unknown_field', message: 'Unknown field "cont". Did you mean "count"?' }] }
 */

/** Any schema of the kit (any Valibot schema). */
export type Schema<T = unknown> = v.GenericSchema<unknown, T>
export type Infer<S extends v.GenericSchema> = v.InferOutput<S>
export type JsonSchema = Record<string, unknown>

/**
 * Messages are written with `{field}` where the field's path goes (`to[1]`; "The body" for the
 * whole input): a schema does not know where it sits, `parse` does.
 */
export const FIELD = '{field}'
type Message<I extends v.BaseIssue<unknown>> = string | ((issue: I) => string)

/** "{field} must be a string, not a number." */
const mustBe =
  (expected: string) =>
  (issue: v.BaseIssue<unknown>): string =>
    `${FIELD} must be ${expected}, not ${typeName(issue.input)}.`

/** A value as a message quotes it, cut to a length a message can hold. */
export const shown = (value: unknown, max = 140): string =>
  typeof value === 'string'
    ? JSON.stringify(value.slice(0, max))
    : (JSON.stringify(value) ?? 'nothing')

/**
 * A check whose failure has a code of its own (`invalid_address`, `invalid_characters`,
 * `required`): Valibot's `check`, reporting its issue under that code.
 *
 * @example rule('invalid_characters', (s: string) => !/[\r\n]/.test(s), '{field} must be one line.')
 */
export function rule<T>(
  code: FieldProblemCode,
  requirement: (value: T) => boolean,
  message: Message<v.CheckIssue<T>>,
): v.CheckAction<T, Message<v.CheckIssue<T>>> {
  // The issue's `type` is the action's: a check typed with the code reports the code.
  return { ...v.check(requirement, message), type: code } as unknown as v.CheckAction<
    T,
    Message<v.CheckIssue<T>>
  >
}

/**
 * A transformation that can fail (an address read into its parts), reporting a value it cannot
 * read under a code of its own, like `rule`.
 *
 * @example convert('invalid_address', parseAddress, (raw) => `{field} must be an address; got ${shown(raw)}.`)
 */
export function convert<I, O>(
  code: FieldProblemCode,
  read: (value: I) => O | null | undefined,
  message: (value: I) => string,
): v.RawTransformAction<I, O> {
  const action = v.rawTransform<I, O>(({ dataset, addIssue, NEVER }) => {
    const value = read(dataset.value)
    if (value !== null && value !== undefined) return value
    addIssue({ message: message(dataset.value) })
    return NEVER
  })
  return { ...action, type: code } as unknown as v.RawTransformAction<I, O>
}

/**
 * A rule between fields of an object, checked once those fields are read (the others may be
 * wrong), reported at one of them under a code of its own.
 *
 * @example relation('required', ['type', 'url'], 'url', (e) => e.type !== 'clicked' || e.url !== undefined, 'A click needs a url.')
 */
export function relation<T extends object>(
  code: FieldProblemCode,
  fields: readonly (keyof T & string)[],
  at: keyof T & string,
  requirement: (value: T) => boolean,
  message: string | ((value: T) => string),
): v.GenericValidation<T> {
  const check = (v.partialCheck as unknown as (...args: unknown[]) => object)(
    fields.map((field) => [field]),
    requirement,
    typeof message === 'string' ? message : (issue: v.BaseIssue<T>) => message(issue.input),
  )
  return (v.forward as unknown as (...args: unknown[]) => v.GenericValidation<T>)(
    { ...check, type: code },
    [at],
  )
}

/** Pipes a schema through actions chosen at run time (Valibot's `pipe` types a fixed list). */
export function pipeOf<T, O = T>(
  schema: v.GenericSchema<unknown, T>,
  actions: unknown[],
): Schema<O> {
  return (v.pipe as unknown as (...items: unknown[]) => Schema<O>)(schema, ...actions)
}

/** What every schema may say about itself in the document. */
export interface Meta {
  description?: string
  examples?: unknown[]
}

const metaActions = (meta: Meta): unknown[] => [
  ...(meta.description ? [v.description(meta.description)] : []),
  ...(meta.examples ? [v.examples(meta.examples)] : []),
]

/**
 * A schema with a description and examples for the document.
 *
 * @example described(v.string(), 'The subject, as sent.', ['Welcome'])
 */
export function described<T>(
  schema: v.GenericSchema<unknown, T>,
  description: string,
  examples?: unknown[],
): Schema<T> {
  return pipeOf(schema, metaActions({ description, ...(examples ? { examples } : {}) }))
}

/**
 * A schema the document names: `#/components/schemas/<name>`. The title is the name; the
 * document generator refers to every titled schema by it instead of repeating it.
 *
 * @example export const ADDRESS = component('Address', v.object({ … }))
 */
export function component<S extends v.GenericSchema>(name: string, schema: S) {
  return v.pipe(schema, v.title(name))
}

export interface StringOptions extends Meta {
  minLength?: number
  maxLength?: number
  /** Whole-string rule; its `source` goes into the document, so keep it ECMA and Python compatible. */
  pattern?: RegExp
  /** What a value must look like, for the message when `pattern` fails: "a slug (letters, …)". */
  patternHint?: string
  /** Values refused although they match (`not: { enum }` in the document). */
  not?: string[]
}

/**
 * A string. Length is counted in UTF-16 code units, like JavaScript's `length` (JSON Schema
 * counts code points; they differ only for characters outside the BMP, which no bounded field here allows).
 *
 * @example string({ maxLength: 320, description: 'Only sends with a recipient containing this.' })
 */
/**
 * Text without a NUL character (U+0000): what a filter, an address or an id can hold. PostgreSQL
 * refuses a NUL in text and in JSONB (`invalid byte sequence for encoding "UTF8": 0x00`), which a
 * filter would have met as a 500; the document states it as this pattern.
 */
export const NO_NUL = {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the one character it refuses
  pattern: /^[^\u0000]*$/,
  hint: 'text without a NUL character (U+0000)',
}

export function string(options: StringOptions = {}): Schema<string> {
  const { minLength, maxLength, pattern, patternHint, not } = options
  const refused = (issue: v.BaseIssue<unknown>) =>
    `${FIELD} must be ${patternHint ?? `a string matching ${pattern?.source}`}; got ${shown(issue.input)}.`
  return pipeOf(v.string(mustBe('a string')), [
    ...(minLength !== undefined
      ? [
          v.minLength(minLength, (issue: v.MinLengthIssue<v.LengthInput, number>) =>
            minLength === 1
              ? `${FIELD} must not be empty.`
              : `${FIELD} has ${issue.input.length} characters; the minimum is ${minLength}.`,
          ),
        ]
      : []),
    ...(maxLength !== undefined
      ? [
          v.maxLength(
            maxLength,
            (issue: v.MaxLengthIssue<v.LengthInput, number>) =>
              `${FIELD} has ${issue.input.length} characters; the limit is ${maxLength}.`,
          ),
        ]
      : []),
    ...(pattern ? [v.regex(pattern, refused)] : []),
    ...(not?.length ? [v.notValues(not, refused)] : []),
    ...metaActions(options),
  ])
}

/**
 * One of a fixed set of strings or numbers.
 *
 * @example enumOf(['opened', 'clicked'] as const)
 */
export function enumOf<const T extends string | number>(
  values: readonly T[],
  meta: Meta = {},
): Schema<T> {
  const list = values.map((value) => JSON.stringify(value)).join(', ')
  const schema = v.picklist(
    values as T[],
    (issue) => `${FIELD} must be one of ${list}; got ${shown(issue.input)}.`,
  )
  // Whole numbers are integers in the document (the converter says "number").
  const integers = values.every((value) => Number.isInteger(value))
  return pipeOf(schema, [
    ...(integers ? [v.metadata({ type: 'integer' })] : []),
    ...metaActions(meta),
  ])
}

/**
 * A whole number within bounds (a JSON number with no fraction).
 *
 * @example integer({ minimum: 1, description: 'How many matching sends fail.' })
 */
export function integer(
  options: Meta & { minimum?: number; maximum?: number } = {},
): Schema<number> {
  const { minimum, maximum } = options
  const range =
    maximum === undefined
      ? `at least ${minimum}`
      : minimum === undefined
        ? `at most ${maximum}`
        : `from ${minimum} to ${maximum}`
  const outside = (issue: v.BaseIssue<unknown>) =>
    `${FIELD} must be a whole number ${range}; got ${shown(issue.input)}.`
  return pipeOf(v.number(mustBe('a whole number')), [
    v.integer(mustBe('a whole number')),
    ...(minimum !== undefined ? [v.minValue(minimum, outside)] : []),
    ...(maximum !== undefined ? [v.maxValue(maximum, outside)] : []),
    ...metaActions(options),
  ])
}

export function boolean(meta: Meta = {}): Schema<boolean> {
  return pipeOf(v.boolean(mustBe('true or false')), metaActions(meta))
}

/**
 * Any JSON object; its values are free JSON (`additionalProperties: true` in the document). An
 * array is not an object here.
 *
 * @example templateVariables: optional(jsonObject({ description: 'Values for the variables.' }))
 */
export function jsonObject(
  meta: Meta & { expected?: string } = {},
): Schema<Record<string, unknown>> {
  // Valibot's record reads an array as an object of its indices: a plain object is checked for.
  return pipeOf(
    v.custom<Record<string, unknown>>(isPlainObject, mustBe(meta.expected ?? 'an object')),
    [v.metadata({ type: 'object', additionalProperties: true }), ...metaActions(meta)],
  )
}

/** Marks a field that may be left out. `null` is still a value, and still checked. */
export function optional<const S extends v.GenericSchema, const D extends v.Default<S, undefined>>(
  schema: S,
  defaultValue?: D,
): v.OptionalSchema<S, D> {
  return defaultValue === undefined
    ? (v.optional(schema) as v.OptionalSchema<S, D>)
    : v.optional(schema, defaultValue)
}

export interface ObjectOptions<K extends string> extends Meta {
  /** Added to "{field} is required" for a missing key: ": one address, or an array of 1 to 50". */
  requiredHints?: Partial<Record<K, string>>
  /** The sentence for an unknown key (default: `Unknown field "x". Did you mean "y"?`). */
  unknownField?: (near: string | undefined, keys: readonly string[]) => string
}

/**
 * An object with exactly these keys (`additionalProperties: false`). A missing required key is
 * `required`; an unknown one is `unknown_field`, with the nearest known key suggested.
 *
 * @example object({ variables: optional(jsonObject()) }, { description: 'What to render.' })
 */
export function object<const E extends v.ObjectEntries>(
  entries: E,
  options: ObjectOptions<Extract<keyof E, string>> = {},
) {
  return v.pipe(
    everyUnknownKey(v.strictObject(entries, objectMessage(entries, options))),
    ...(metaActions(options) as []),
  )
}

/**
 * Valibot's strict object reports the first unknown key only; this one reports each (every
 * problem at once), the first as Valibot does, the others the same way after it.
 */
function everyUnknownKey<
  S extends v.StrictObjectSchema<v.ObjectEntries, v.ErrorMessage<v.StrictObjectIssue>>,
>(base: S): S {
  return v._standardSchema({
    ...base,
    '~run'(dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) {
      const input = dataset.value
      const output = base['~run'](dataset, config)
      if (!isPlainObject(input)) return output
      const unknown = Object.keys(input).filter((key) => !Object.hasOwn(base.entries, key))
      for (const key of unknown.slice(1))
        (v._addIssue as (...args: unknown[]) => void)(base, 'key', output, config, {
          input: key,
          expected: 'never',
          path: [{ type: 'object', origin: 'key', input, key, value: input[key] }],
        })
      if (unknown.length > 1) output.typed = false
      return output
    },
  } as unknown as S)
}

/**
 * An object with these keys and any others (kept as they are): what `--lenient` takes where
 * `object` refuses unknown keys.
 *
 * @example looseObject(SEND_ENTRIES) // the lenient send
 */
export function looseObject<const E extends v.ObjectEntries>(
  entries: E,
  options: ObjectOptions<Extract<keyof E, string>> = {},
) {
  return v.pipe(
    v.looseObject(entries, objectMessage(entries, options)),
    ...(metaActions(options) as []),
  )
}

/** The messages of an object's own issues: not an object, a key missing, a key unknown. */
function objectMessage<K extends string>(entries: v.ObjectEntries, options: ObjectOptions<K>) {
  const keys = Object.keys(entries)
  const expected = `a JSON object${keys.length ? ` with ${keys.join(', ')}` : ''}`
  return (issue: v.StrictObjectIssue | v.LooseObjectIssue): string => {
    const key = issue.path?.at(-1)
    // An array is taken for an object by Valibot: its own issues then say it is the wrong type.
    const input = key ? key.input : issue.input
    if (!isPlainObject(input)) return mustBe(expected)({ ...issue, input } as v.BaseIssue<unknown>)
    const name = String(key?.key)
    if (issue.expected === 'never') {
      const [near] = nearest(name, keys, 1)
      if (options.unknownField) return options.unknownField(near, keys)
      const hint = near
        ? ` Did you mean "${near}"?`
        : keys.length
          ? ` Allowed: ${keys.join(', ')}.`
          : ''
      return `Unknown field "${FIELD}".${hint}`
    }
    return `${FIELD} is required${options.requiredHints?.[name as K] ?? ''}.`
  }
}

// ---- issues → problems ----------------------------------------------------------------

/** `to[1]`, `match.template`; "" for the input itself. */
function pathOf(items: readonly v.IssuePathItem[] | undefined): string {
  let out = ''
  for (const item of items ?? [])
    out +=
      item.type === 'array' || typeof item.key === 'number'
        ? `[${String(item.key)}]`
        : `${out ? '.' : ''}${String(item.key)}`
  return out
}

const OBJECTS: ReadonlySet<string> = new Set(['strict_object', 'object', 'loose_object'])
const SAME_CODE: ReadonlySet<string> = new Set(FIELD_PROBLEM_CODES)

/** The problem's code from the issue's type (a `rule` reports its own code). */
function codeOf(issue: v.BaseIssue<unknown>): FieldProblemCode {
  if (SAME_CODE.has(issue.type)) return issue.type as FieldProblemCode
  const array = Array.isArray(issue.input)
  switch (issue.type) {
    case 'min_length':
      return array ? 'too_few' : 'too_short'
    case 'max_length':
      return array ? 'too_many' : 'too_long'
    case 'integer':
      return 'invalid_type'
    case 'min_value':
    case 'max_value':
    case 'regex':
    case 'not_values':
    case 'picklist':
    case 'literal':
    case 'check':
      return 'invalid_value'
  }
  if (OBJECTS.has(issue.type) && issue.path?.at(-1)?.origin === 'key')
    return issue.expected === 'never' ? 'unknown_field' : 'required'
  return 'invalid_type'
}

/**
 * What to report of an issue: itself, or, for a union none of whose options took the value,
 * what is wrong under the options whose type fits it (for `to: ["a@b.c", "nope"]`, that
 * `to[1]` is no address, rather than that `to` is neither a string nor a list of addresses).
 */
function reported(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown>[] {
  if (issue.type !== 'union' || !issue.issues) return [issue]
  const fitting = issue.issues.filter((sub) => sub.kind !== 'schema' || (sub.path?.length ?? 0) > 0)
  if (fitting.length === 0) return [issue]
  return fitting.flatMap((sub) =>
    reported({
      ...sub,
      path: [...(issue.path ?? []), ...(sub.path ?? [])],
    } as v.BaseIssue<unknown>),
  )
}

/**
 * Valibot's issues as problems: each field once (its first problem), the root called "the body".
 *
 * @example problemsOf(v.safeParse(schema, input).issues ?? [])
 */
export function problemsOf(issues: readonly v.BaseIssue<unknown>[]): FieldProblem[] {
  const problems: FieldProblem[] = []
  const seen = new Set<string>()
  for (const issue of issues.flatMap(reported)) {
    const last = issue.path?.at(-1)
    // An array given for an object: one problem for the object, not one per key it lacks.
    const notObject =
      OBJECTS.has(issue.type) && last?.origin === 'key' && !isPlainObject(last.input)
    const field = pathOf(notObject ? issue.path?.slice(0, -1) : issue.path)
    if (seen.has(field)) continue
    seen.add(field)
    problems.push({
      field,
      code: notObject ? 'invalid_type' : codeOf(issue),
      message: issue.message.replaceAll(FIELD, field || 'The body'),
    })
  }
  return problems
}

/**
 * Every problem at once, or the value. A pipe stops at its first failing check, so a field
 * reports one problem (an empty subject is "empty", not also "too short" and "no match").
 *
 * @example
 * parse(object({ n: integer() }), { n: 'x' })
 * // { ok: false, problems: [{ field: 'n', code: 'invalid_type', message: 'n must be a whole number, not a string.' }] }
 */
export function parse<S extends v.GenericSchema>(schema: S, value: unknown): Parsed<Infer<S>> {
  const result = v.safeParse(schema, value, { abortPipeEarly: true })
  return result.success
    ? { ok: true, value: result.output }
    : { ok: false, problems: problemsOf(result.issues) }
}
