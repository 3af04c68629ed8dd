import type { JsonSchema } from '../lib/schema.js'
import { SLUG_PATTERN } from '../templates/index.js'
import { ADDRESS_MAX_LENGTH, ADDRESS_PATTERN } from './address.js'

/**
 * The one definition of the emulated API's request shape. `validate.ts` reads its field list,
 * kinds, limits and examples from here, and the OpenAPI document (`GET /_sandbox/api/openapi.json`)
 * is generated from the same objects, so the two cannot drift: every string the document's
 * patterns and limits allow is accepted by the validation, and nothing else.
 */

/** How a send-request field is checked (validate.ts) and described (OpenAPI). */
export type SendFieldKind =
  /** A template slug (SLUG_PATTERN). */
  | 'slug'
  /** One `Display Name <address>` or bare address (ADDRESS_PATTERN). */
  | 'address'
  /** One address, or an array of `minItems` to `maxItems` of them. */
  | 'addresses'
  /** One line of `minLength` to `maxLength` characters (UTF-16 code units, like JavaScript's `length`). */
  | 'line'
  /** A JSON object; absent means `{}`. */
  | 'object'

export interface SendFieldDefinition {
  kind: SendFieldKind
  required: boolean
  description: string
  example: unknown
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
}

/** POST /messages body fields, in the order validation checks and reports them. */
export const SEND_REQUEST_FIELDS = {
  template: {
    kind: 'slug',
    required: true,
    description:
      'Slug of an existing template: the file name of templates/<slug>.liquid (or .html) without the extension.',
    example: 'welcome',
  },
  from: {
    kind: 'address',
    required: true,
    description:
      'The sender: "Display Name <sender@example.com>", or a bare address (RFC 5322, without comments; UTF-8 allowed).',
    example: 'Acme <hello@acme.test>',
    maxLength: ADDRESS_MAX_LENGTH,
  },
  to: {
    kind: 'addresses',
    required: true,
    description: 'One recipient, or an array of them, each like "from".',
    example: 'Ada Lovelace <ada@example.com>',
    maxLength: ADDRESS_MAX_LENGTH,
    minItems: 1,
    maxItems: 50,
  },
  subject: {
    kind: 'line',
    required: true,
    description: 'The subject, used as given (not rendered): one line, no CR or LF.',
    example: 'Welcome to Acme',
    minLength: 1,
    maxLength: 998,
  },
  templateVariables: {
    kind: 'object',
    required: false,
    description: "Values for the template's variables; any JSON. Defaults to {}.",
    example: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
  },
} as const satisfies Record<string, SendFieldDefinition>

export type SendField = keyof typeof SEND_REQUEST_FIELDS

/** Every allowed top-level field, in check order. */
export const SEND_FIELDS = Object.keys(SEND_REQUEST_FIELDS) as SendField[]
export const REQUIRED_SEND_FIELDS = SEND_FIELDS.filter((f) => SEND_REQUEST_FIELDS[f].required)
export const MAX_RECIPIENTS = SEND_REQUEST_FIELDS.to.maxItems

function fieldSchema(definition: SendFieldDefinition): JsonSchema {
  const base = { description: definition.description, examples: [definition.example] }
  const address = {
    type: 'string',
    maxLength: definition.maxLength,
    pattern: ADDRESS_PATTERN.source,
  }
  switch (definition.kind) {
    case 'slug':
      return { type: 'string', pattern: SLUG_PATTERN.source, ...base }
    case 'address':
      return { ...address, ...base }
    case 'addresses':
      return {
        oneOf: [
          address,
          {
            type: 'array',
            items: address,
            minItems: definition.minItems,
            maxItems: definition.maxItems,
          },
        ],
        ...base,
      }
    case 'line':
      return {
        type: 'string',
        minLength: definition.minLength,
        maxLength: definition.maxLength,
        pattern: '^[^\\r\\n]*$',
        ...base,
      }
    case 'object':
      return { type: 'object', additionalProperties: true, default: {}, ...base }
  }
}

/** JSON Schema (2020-12) of the POST /messages body, from SEND_REQUEST_FIELDS. */
export function sendRequestSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  for (const field of SEND_FIELDS) properties[field] = fieldSchema(SEND_REQUEST_FIELDS[field])
  return {
    type: 'object',
    description:
      'A message to send. Unknown top-level fields are 422 validation_failed (with a "did you mean" hint), unless the server runs with --lenient.',
    required: [...REQUIRED_SEND_FIELDS],
    properties,
    additionalProperties: false,
  }
}
