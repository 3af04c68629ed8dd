import { FAULT_STATUSES } from '../core/faults.js'

/**
 * The one definition of the emulated API's request shape and error codes. `validate.ts` reads
 * its field list, kinds, limits and examples from here, and the OpenAPI document
 * (`GET /_sandbox/api/openapi.json`) is generated from the same objects, so the two cannot drift.
 */

/** How a send-request field is checked (validate.ts) and described (OpenAPI). */
export type SendFieldKind =
  /** A non-blank string naming a template. */
  | 'slug'
  /** One `Display Name <address>` or bare address. */
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
    description: 'Slug of an existing template: the file name of templates/<slug>.liquid (or .html) without the extension.',
    example: 'welcome',
  },
  from: {
    kind: 'address',
    required: true,
    description: 'The sender: "Display Name <sender@example.com>", or a bare address.',
    example: 'Acme <hello@acme.test>',
  },
  to: {
    kind: 'addresses',
    required: true,
    description: 'One recipient, or an array of them, each like "from".',
    example: 'Ada Lovelace <ada@example.com>',
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
    description: 'Values for the template\'s variables; any JSON. Defaults to {}.',
    example: { name: 'Ada' },
  },
} as const satisfies Record<string, SendFieldDefinition>

export type SendField = keyof typeof SEND_REQUEST_FIELDS

/** Every allowed top-level field, in check order. */
export const SEND_FIELDS = Object.keys(SEND_REQUEST_FIELDS) as SendField[]
export const REQUIRED_SEND_FIELDS = SEND_FIELDS.filter((f) => SEND_REQUEST_FIELDS[f].required)
export const MIN_RECIPIENTS = SEND_REQUEST_FIELDS.to.minItems
export const MAX_RECIPIENTS = SEND_REQUEST_FIELDS.to.maxItems
export const MIN_SUBJECT = SEND_REQUEST_FIELDS.subject.minLength
export const MAX_SUBJECT = SEND_REQUEST_FIELDS.subject.maxLength

/** `code` values of `validation_failed` details. */
export const FIELD_PROBLEM_CODES = ['required', 'invalid_type', 'invalid_address', 'too_few', 'too_many', 'too_short', 'too_long', 'invalid_characters', 'unknown_field', 'invalid_value'] as const

type JsonSchema = Record<string, unknown>

function fieldSchema(definition: SendFieldDefinition): JsonSchema {
  const base = { description: definition.description, examples: [definition.example] }
  switch (definition.kind) {
    case 'slug':
      return { type: 'string', minLength: 1, pattern: '\\S', ...base }
    case 'address':
      return { type: 'string', minLength: 3, ...base }
    case 'addresses':
      return {
        oneOf: [
          { type: 'string', minLength: 3 },
          { type: 'array', items: { type: 'string', minLength: 3 }, minItems: definition.minItems, maxItems: definition.maxItems },
        ],
        ...base,
      }
    case 'line':
      return { type: 'string', minLength: definition.minLength, maxLength: definition.maxLength, pattern: '^[^\\r\\n]*$', ...base }
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
    description: 'A message to send. Unknown top-level fields are 422 validation_failed (with a "did you mean" hint), unless the server runs with --lenient.',
    required: [...REQUIRED_SEND_FIELDS],
    properties,
    additionalProperties: false,
  }
}

/** Every error code sendbox answers with, by status. Routes and the OpenAPI document use this list. */
export interface ErrorDefinition {
  status: number
  code: string
  description: string
}

export const API_ERRORS = [
  { status: 400, code: 'invalid_json', description: 'The body is not valid JSON; the message and details give line, column and position.' },
  { status: 400, code: 'invalid_slug', description: 'Not a template slug (letters, digits, "-", "_", "."; at most 128 characters).' },
  { status: 400, code: 'invalid_parameter', description: 'A query parameter has a bad value; details name it.' },
  { status: 400, code: 'bad_request', description: 'The request could not be parsed as HTTP.' },
  { status: 401, code: 'unauthorized', description: 'No "Authorization: token <API_TOKEN>" header (sent with WWW-Authenticate: Token).' },
  { status: 403, code: 'sandbox_token_required', description: 'The token is not a sandbox token.' },
  { status: 404, code: 'not_found', description: 'No such route.' },
  { status: 404, code: 'template_not_found', description: 'No such template (GET /templates/:slug and previews); details suggest the nearest slugs.' },
  { status: 404, code: 'message_not_found', description: 'No such message.' },
  { status: 404, code: 'fixture_not_found', description: 'The template has no fixture case of that name.' },
  { status: 404, code: 'preview_not_found', description: 'The live preview expired (only the newest 50 are kept).' },
  { status: 409, code: 'fixture_exists', description: 'A fixture case of that name exists; send "overwrite": true to replace it.' },
  { status: 404, code: 'wait_timeout', description: 'No matching message arrived before the timeout.' },
  { status: 503, code: 'shutting_down', description: 'The sandbox closed while this wait was pending.' },
  { status: 405, code: 'method_not_allowed', description: 'The route does not take this method; Allow lists those it does.' },
  { status: 413, code: 'payload_too_large', description: 'The body is over the limit (--max-body).' },
  { status: 415, code: 'unsupported_media_type', description: 'The body is not sent as Content-Type: application/json.' },
  { status: 422, code: 'validation_failed', description: 'The body has the wrong shape; details list every bad field: { field, code, message }.' },
  { status: 422, code: 'template_not_found', description: 'POST /messages names a template that does not exist; details suggest the nearest slugs.' },
  { status: 422, code: 'template_invalid', description: 'The template does not parse; details give file, line, column.' },
  { status: 422, code: 'missing_variables', description: 'templateVariables lacks variables the template needs; details: { variable, message }.' },
  { status: 422, code: 'render_failed', description: 'Rendering failed (limits, bad filter argument); details give file, line, column.' },
  { status: 422, code: 'fixture_invalid', description: 'The fixture case is not a JSON object of variables.' },
  { status: 422, code: 'recipient_not_found', description: 'A simulated event names an address that is not one of the message\'s recipients; details list them.' },
  { status: 422, code: 'url_not_in_message', description: 'A simulated click names a url that does not occur in the message\'s HTML; details list its links.' },
  { status: 404, code: 'webhook_delivery_not_found', description: 'No such webhook delivery (only the newest 1000 attempts are kept).' },
  { status: 404, code: 'suppression_not_found', description: 'The address is not on the suppression list.' },
  ...FAULT_STATUSES.map((status) => ({
    status,
    code: 'simulated_fault',
    description: `A simulated ${status} of the real service (fault injection)${status === 429 ? '; carries Retry-After' : ''}.`,
  })),
  { status: 503, code: 'inbox_not_built', description: 'The inbox page\'s script is missing from dist/ (an unbuilt checkout); run npm run build.' },
  { status: 500, code: 'internal_error', description: 'An unexpected error (the details are in sendbox\'s console, never in the response).' },
] as const satisfies readonly ErrorDefinition[]

export type ErrorCode = (typeof API_ERRORS)[number]['code']

/** The codes POST /messages can answer with, by status, in the order of its checks. */
export const SEND_ERROR_CODES: readonly ErrorCode[] = [
  'unauthorized',
  'sandbox_token_required',
  'unsupported_media_type',
  'payload_too_large',
  'invalid_json',
  'validation_failed',
  'template_not_found',
  'template_invalid',
  'missing_variables',
  'render_failed',
  'simulated_fault',
  'method_not_allowed',
  'internal_error',
]
