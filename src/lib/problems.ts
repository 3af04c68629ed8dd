/** What can be wrong with one field of an input: the `code` of a `validation_failed` detail. */
export const FIELD_PROBLEM_CODES = [
  'required',
  'invalid_type',
  'invalid_address',
  'too_few',
  'too_many',
  'too_short',
  'too_long',
  'invalid_characters',
  'unknown_field',
  'invalid_value',
] as const

export type FieldProblemCode = (typeof FIELD_PROBLEM_CODES)[number]

/** One thing wrong with an input, as the `details` of a `422 validation_failed` list it. */
export interface FieldProblem {
  field: string
  code: FieldProblemCode
  message: string
}

/** What a parser of untrusted input returns: the value, or every problem at once. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] }

/** What a soft problem can be: supplied but unused; with --lenient, missing, or not a field. */
export type WarningCode = 'unused_variable' | 'missing_variable' | 'unknown_field'

/** A soft problem with a send or a preview; it never stops one. */
export interface Warning {
  code: WarningCode
  message: string
  variable?: string
}
