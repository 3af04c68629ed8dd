import { distance } from 'fastest-levenshtein'
import { apiError } from '../errors/index.js'
import type { Address, Warning } from '../store/types.js'
import { parseAddress } from './address.js'

/** Step 4 of the send checks: the shape of the body, every problem reported at once. */

export interface FieldProblem {
  field: string
  code: string
  message: string
}

export interface SendRequest {
  template: string
  from: Address
  to: Address[]
  subject: string
  templateVariables: Record<string, unknown>
  /** Soft problems found while validating (unknown fields under --lenient). */
  warnings: Warning[]
}

export const SEND_FIELDS = ['template', 'from', 'to', 'subject', 'templateVariables'] as const
export const MAX_RECIPIENTS = 50
export const MAX_SUBJECT = 998

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`
}

function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/** The allowed field a near miss meant: containment, then shared prefix, then edit distance. */
function didYouMean(field: string): string {
  const f = field.toLowerCase()
  const ranked = SEND_FIELDS.map((name) => {
    const n = name.toLowerCase()
    return { name, contains: n.includes(f) ? 1 : 0, prefix: commonPrefix(f, n), distance: distance(f, n) }
  }).sort((a, b) => b.contains - a.contains || b.prefix - a.prefix || a.distance - b.distance)
  const best = ranked[0]!
  const near = (best.contains && f.length >= 2) || best.prefix >= 3 || best.distance <= Math.max(2, Math.floor(best.name.length / 3))
  return near ? ` Did you mean "${best.name}"?` : ` Allowed fields: ${SEND_FIELDS.join(', ')}.`
}

export function validateSendRequest(body: unknown, options: { lenient: boolean }): SendRequest {
  if (!isPlainObject(body)) {
    throw apiError(422, 'validation_failed', `The body must be a JSON object, not ${typeName(body)}.`, {
      details: [{ field: '', code: 'invalid_type', message: `Expected a JSON object with ${SEND_FIELDS.join(', ')}.` }],
    })
  }
  const problems: FieldProblem[] = []
  const warnings: Warning[] = []
  const problem = (field: string, code: string, message: string) => problems.push({ field, code, message })

  const requiredString = (field: string): string | undefined => {
    const value = body[field]
    if (value === undefined) problem(field, 'required', `${field} is required.`)
    else if (typeof value !== 'string') problem(field, 'invalid_type', `${field} must be a string, not ${typeName(value)}.`)
    else return value
    return undefined
  }

  const template = requiredString('template')
  if (template !== undefined && template.trim() === '') problem('template', 'required', 'template must name a template slug, e.g. "welcome".')

  const address = (field: string, value: string): Address | undefined => {
    const parsed = parseAddress(value)
    if (!parsed) problem(field, 'invalid_address', `${field} must be an address like "Ada Lovelace <ada@example.com>" or "ada@example.com"; got ${JSON.stringify(value)}.`)
    return parsed ?? undefined
  }

  const fromRaw = requiredString('from')
  const from = fromRaw === undefined ? undefined : address('from', fromRaw)

  const to: Address[] = []
  const toRaw = body.to
  if (toRaw === undefined) problem('to', 'required', 'to is required: one address, or an array of 1 to 50.')
  else if (typeof toRaw === 'string') {
    const parsed = address('to', toRaw)
    if (parsed) to.push(parsed)
  } else if (Array.isArray(toRaw)) {
    if (toRaw.length === 0) problem('to', 'too_few', 'to needs at least one recipient.')
    if (toRaw.length > MAX_RECIPIENTS) problem('to', 'too_many', `to has ${toRaw.length} recipients; the limit is ${MAX_RECIPIENTS}.`)
    toRaw.forEach((item, i) => {
      if (typeof item !== 'string') return problem(`to[${i}]`, 'invalid_type', `to[${i}] must be a string, not ${typeName(item)}.`)
      const parsed = address(`to[${i}]`, item)
      if (parsed) to.push(parsed)
    })
  } else problem('to', 'invalid_type', `to must be a string or an array of strings, not ${typeName(toRaw)}.`)

  const subject = requiredString('subject')
  if (subject !== undefined) {
    if (subject.length === 0) problem('subject', 'too_short', 'subject must not be empty.')
    else if (subject.length > MAX_SUBJECT) problem('subject', 'too_long', `subject has ${subject.length} characters; the limit is ${MAX_SUBJECT}.`)
    if (/[\r\n]/.test(subject)) problem('subject', 'invalid_characters', 'subject must be one line: no CR or LF characters.')
  }

  const variables = body.templateVariables
  if (variables !== undefined && !isPlainObject(variables)) {
    problem('templateVariables', 'invalid_type', `templateVariables must be an object of variable names to values, not ${typeName(variables)}.`)
  }

  for (const field of Object.keys(body)) {
    if ((SEND_FIELDS as readonly string[]).includes(field)) continue
    if (options.lenient) warnings.push({ code: 'unknown_field', message: `Unknown field "${field}" was ignored.` })
    else problem(field, 'unknown_field', `Unknown field "${field}".${didYouMean(field)}`)
  }

  if (problems.length > 0) {
    const fields = [...new Set(problems.map((p) => p.field || 'body'))].join(', ')
    throw apiError(422, 'validation_failed', `The message is not valid: check ${fields}.`, { details: problems })
  }
  return {
    template: template!,
    from: from!,
    to,
    subject: subject!,
    templateVariables: (variables as Record<string, unknown> | undefined) ?? {},
    warnings,
  }
}
