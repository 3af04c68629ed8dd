/** One thing wrong with an input, as the `details` of a `422 validation_failed` list it. */
export interface FieldProblem {
  field: string
  code: string
  message: string
}

/** What a parser of untrusted input returns: the value, or every problem at once. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] }

/** A soft problem with a send or a preview; it never stops one. */
export interface Warning {
  /** e.g. `unused_variable`, `missing_variable` (with --lenient). */
  code: string
  message: string
  variable?: string
}
