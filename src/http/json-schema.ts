import type { ConversionConfig } from '@valibot/to-json-schema'
import { FIELD_PROBLEM_CODES } from '../lib/problems.js'
import type { JsonSchema } from '../lib/schema.js'

/**
 * How a Valibot schema becomes JSON Schema, for the OpenAPI document (openapi.ts) and the MCP
 * tools' arguments alike: one setting each, in a module that loads neither h3 nor the routes.
 */

type Json = Record<string, unknown>

/** Actions that check or transform a value and have no JSON Schema keyword: left out. */
const UNWRITTEN: ReadonlySet<string> = new Set([
  ...FIELD_PROBLEM_CODES,
  'check',
  'partial_check',
  'raw_transform',
  'transform',
  'trim',
])

export const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  // A parameter's schema reads its text into a value; the document describes the value.
  typeMode: 'output',
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  overrideAction: ({ valibotAction, jsonSchema }) =>
    UNWRITTEN.has(valibotAction.type) ? jsonSchema : undefined,
  // Free JSON: `additionalProperties: true`, not a record of string keys to `{}`. A custom
  // schema (a plain object, `jsonObject`) says what it is with metadata.
  overrideSchema: ({ valibotSchema, jsonSchema }) =>
    valibotSchema.type === 'record' &&
    (valibotSchema as unknown as { value: { type: string } }).value.type === 'unknown'
      ? { type: 'object', additionalProperties: true }
      : valibotSchema.type === 'custom'
        ? {}
        : valibotSchema.type === 'union'
          ? exclusive(jsonSchema as JsonSchema)
          : undefined,
}

/** A union of different JSON types (a string or an array) is `oneOf`: exactly one fits. */
function exclusive(schema: JsonSchema): JsonSchema | undefined {
  const options = schema.anyOf as JsonSchema[]
  const types = options.map((option) => option.type)
  if (types.some((type) => typeof type !== 'string') || new Set(types).size !== types.length)
    return undefined
  const { anyOf: _anyOf, ...rest } = schema
  return { ...rest, oneOf: options }
}

/** Drops what says nothing: `required: []`, and a `$schema` inside the document. */
export function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy)
  if (typeof node !== 'object' || node === null) return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || (key === 'required' && Array.isArray(value) && !value.length)) continue
    out[key] = tidy(value)
  }
  return out
}
