import { isPlainObject, typeName } from '../lib/json.js'
import { nearest } from '../lib/suggest.js'
import { apiError } from '../http/errors.js'
import type { Address, Warning } from '../store/types.js'
import { ADDRESS_MAX_LENGTH, parseAddress } from './address.js'
import { isValidSlug, SLUG_HINT } from '../templates/index.js'
import {
  SEND_FIELDS,
  SEND_REQUEST_FIELDS,
  type SendField,
  type SendFieldDefinition,
} from './schema.js'

/** Step 4 of the send checks: the shape of the body, every problem reported at once. */

import type { FieldProblem } from '../lib/problems.js'

export interface SendRequest {
  template: string
  from: Address
  to: Address[]
  subject: string
  templateVariables: Record<string, unknown>
  /** Soft problems found while validating (unknown fields under --lenient). */
  warnings: Warning[]
}

/** The allowed field a near miss meant (the one did-you-mean rule), else the list of fields. */
function didYouMean(field: string): string {
  const [best] = nearest(field, SEND_FIELDS, 1)
  return best ? ` Did you mean "${best}"?` : ` Allowed fields: ${SEND_FIELDS.join(', ')}.`
}

type Problem = (field: string, code: string, message: string) => void

const ADDRESS_HINT = '"Ada Lovelace <ada@example.com>" or "ada@example.com"'

function addressOf(field: string, raw: string, problem: Problem): Address | undefined {
  if (raw.length > ADDRESS_MAX_LENGTH) {
    problem(
      field,
      'too_long',
      `${field} has ${raw.length} characters; the limit is ${ADDRESS_MAX_LENGTH}.`,
    )
    return undefined
  }
  const parsed = parseAddress(raw)
  if (!parsed)
    problem(
      field,
      'invalid_address',
      `${field} must be an address like ${ADDRESS_HINT}; got ${JSON.stringify(raw)}.`,
    )
  return parsed ?? undefined
}

function stringOf(field: string, value: unknown, problem: Problem): string | undefined {
  if (typeof value === 'string') return value
  problem(field, 'invalid_type', `${field} must be a string, not ${typeName(value)}.`)
  return undefined
}

/**
 * One field checked by its kind, required flag and limits from SEND_REQUEST_FIELDS. Returns the
 * parsed value, or undefined after reporting what is wrong (or when an optional field is absent).
 */
function checkField(
  field: string,
  definition: SendFieldDefinition,
  value: unknown,
  problem: Problem,
): unknown {
  if (value === undefined) {
    if (!definition.required) return undefined
    const hint =
      definition.kind === 'addresses'
        ? `: one address, or an array of ${definition.minItems ?? 1} to ${definition.maxItems}`
        : ''
    return problem(field, 'required', `${field} is required${hint}.`)
  }
  switch (definition.kind) {
    case 'slug': {
      const slug = stringOf(field, value, problem)
      if (slug !== undefined && slug.trim() === '')
        problem(
          field,
          'required',
          `${field} must name a template slug, e.g. ${JSON.stringify(definition.example)}.`,
        )
      else if (slug !== undefined && !isValidSlug(slug))
        problem(
          field,
          'invalid_value',
          `${field} must be ${SLUG_HINT}; got ${JSON.stringify(slug.slice(0, 140))}.`,
        )
      return slug
    }
    case 'address': {
      const raw = stringOf(field, value, problem)
      return raw === undefined ? undefined : addressOf(field, raw, problem)
    }
    case 'addresses': {
      const min = definition.minItems ?? 1
      const max = definition.maxItems ?? Infinity
      if (typeof value === 'string') {
        const parsed = addressOf(field, value, problem)
        return parsed ? [parsed] : []
      }
      if (!Array.isArray(value))
        return problem(
          field,
          'invalid_type',
          `${field} must be a string or an array of strings, not ${typeName(value)}.`,
        )
      if (value.length < min)
        problem(
          field,
          'too_few',
          min === 1
            ? `${field} needs at least one recipient.`
            : `${field} needs at least ${min} recipients.`,
        )
      if (value.length > max)
        problem(field, 'too_many', `${field} has ${value.length} recipients; the limit is ${max}.`)
      const list: Address[] = []
      value.forEach((item, i) => {
        if (typeof item !== 'string')
          return problem(
            `${field}[${i}]`,
            'invalid_type',
            `${field}[${i}] must be a string, not ${typeName(item)}.`,
          )
        const parsed = addressOf(`${field}[${i}]`, item, problem)
        if (parsed) list.push(parsed)
      })
      return list
    }
    case 'line': {
      const line = stringOf(field, value, problem)
      if (line === undefined) return undefined
      const min = definition.minLength ?? 0
      const max = definition.maxLength ?? Infinity
      if (line.length < min)
        problem(
          field,
          'too_short',
          min === 1
            ? `${field} must not be empty.`
            : `${field} has ${line.length} characters; the minimum is ${min}.`,
        )
      else if (line.length > max)
        problem(field, 'too_long', `${field} has ${line.length} characters; the limit is ${max}.`)
      if (/[\r\n]/.test(line))
        problem(field, 'invalid_characters', `${field} must be one line: no CR or LF characters.`)
      return line
    }
    case 'object': {
      if (!isPlainObject(value))
        return problem(
          field,
          'invalid_type',
          `${field} must be an object of variable names to values, not ${typeName(value)}.`,
        )
      return value
    }
  }
}

export function validateSendRequest(body: unknown, options: { lenient: boolean }): SendRequest {
  if (!isPlainObject(body)) {
    throw apiError(
      422,
      'validation_failed',
      `The body must be a JSON object, not ${typeName(body)}.`,
      {
        details: [
          {
            field: '',
            code: 'invalid_type',
            message: `Expected a JSON object with ${SEND_FIELDS.join(', ')}.`,
          },
        ],
      },
    )
  }
  const problems: FieldProblem[] = []
  const warnings: Warning[] = []
  const problem: Problem = (field, code, message) => {
    problems.push({ field, code, message })
  }

  const values: Partial<Record<SendField, unknown>> = {}
  for (const field of SEND_FIELDS)
    values[field] = checkField(field, SEND_REQUEST_FIELDS[field], body[field], problem)

  for (const field of Object.keys(body)) {
    if ((SEND_FIELDS as readonly string[]).includes(field)) continue
    if (options.lenient)
      warnings.push({ code: 'unknown_field', message: `Unknown field "${field}" was ignored.` })
    else problem(field, 'unknown_field', `Unknown field "${field}".${didYouMean(field)}`)
  }

  if (problems.length > 0) {
    const fields = [...new Set(problems.map((p) => p.field || 'body'))].join(', ')
    throw apiError(422, 'validation_failed', `The message is not valid: check ${fields}.`, {
      details: problems,
    })
  }
  return {
    template: values.template as string,
    from: values.from as Address,
    to: values.to as Address[],
    subject: values.subject as string,
    templateVariables: (values.templateVariables as Record<string, unknown> | undefined) ?? {},
    warnings,
  }
}
