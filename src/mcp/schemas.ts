import { toJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import { SIMULATED_EVENT_TYPES } from '../core/simulated-event-types.js'
import { WAIT_MAX_MS } from '../core/wait-types.js'
import { CONVERSION, tidy } from '../http/json-schema.js'
import {
  AFTER_QUERY,
  FIELDS_QUERY,
  FILTER_QUERY,
  PAGING_QUERY,
  TIMEOUT_QUERY,
} from '../http/message-query.js'
import type { Param } from '../http/param-schemas.js'
import { typeName } from '../lib/json.js'
import {
  enumOf,
  type JsonSchema,
  jsonObject,
  object,
  optional,
  pipeOf,
  type Schema,
  string,
} from '../lib/schema.js'

/**
 * The tools' arguments. Those the inspector reads from its query (the message filters, limit,
 * offset, fields, timeout, after) are the routes' own parameters (src/http/message-query.ts):
 * their types, bounds, patterns and values come from there, listed as JSON Schema the way the
 * OpenAPI document converts them, and a call is checked with the same Valibot schema. Their
 * descriptions are the tools' own, in an agent's terms (tool names, not routes). The few
 * arguments that are path segments or bodies are defined here with the schema kit.
 */

// One definition each: the store's statuses, the delivery engine's simulated events, the wait's
// limit (modules of constants and types only: `sendbox mcp` loads nothing of the server).
export { MESSAGE_STATUSES } from '../store/recipients.js'
export { SIMULATED_EVENT_TYPES as EVENT_TYPES } from '../core/simulated-event-types.js'
export { WAIT_MAX_MS } from '../core/wait-types.js'

/** One argument: the schema a call's value is checked with, and its JSON Schema for the list. */
export interface Argument {
  schema: Schema
  json: JsonSchema
  required?: boolean
}

const JSON_TYPES = {
  string: (value: unknown) => typeof value === 'string',
  integer: Number.isInteger,
} as const

/**
 * A query parameter of the inspector as a tool's argument: a JSON string or integer, then read
 * by the route's own schema (an integer as the text the query would carry).
 *
 * @example limit: queryArgument(PAGING_QUERY.limit, 'How many messages.', 'integer')
 */
export function queryArgument(
  param: Param,
  description: string,
  type: keyof typeof JSON_TYPES = 'string',
): Argument {
  const typed = v.custom(
    JSON_TYPES[type],
    (issue) => `Invalid input: expected ${type}, received ${typeName(issue.input)}`,
  )
  const asQuery = type === 'integer' ? [v.transform(String)] : []
  // The route's default is its own (a list's `fields` is "full"); a tool states and applies its own.
  const { default: _default, ...json } = tidy(toJsonSchema(param.schema, CONVERSION)) as JsonSchema
  return {
    schema: optional(pipeOf(typed, [...asQuery, param.schema])),
    json: { ...json, description },
  }
}

/**
 * An argument of the tool's own (a path segment, a body's field), checked as JSON.
 *
 * @example id: ownArgument(string({ minLength: 1, description: 'A message id.' }), true)
 */
export function ownArgument(schema: Schema, required = false): Argument {
  return {
    schema: required ? schema : optional(schema),
    json: tidy(toJsonSchema(schema, CONVERSION)) as JsonSchema,
    required,
  }
}

export type Arguments = Record<string, Argument>

/** A tool's whole input: strict (an unknown argument is refused, with the nearest name). */
export function inputOf(entries: Arguments): { schema: Schema; json: JsonSchema } {
  const names = Object.keys(entries)
  const required = names.filter((name) => entries[name]!.required)
  return {
    schema: object(Object.fromEntries(names.map((name) => [name, entries[name]!.schema]))),
    json: {
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, entries[name]!.json])),
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    },
  }
}

const ID = string({
  minLength: 1,
  description: 'A message id as POST /messages answered it and list_messages lists it: "msg_…".',
})
const SLUG = string({
  minLength: 1,
  description:
    'A template slug, as list_templates lists them (the file name without its extension).',
})

export const FILTERS: Arguments = {
  to: queryArgument(
    FILTER_QUERY.to,
    'Only messages with a recipient (name or address) containing this, case-insensitive: a substring ("ada" matches "lovelace-ada@example.com").',
  ),
  recipient: queryArgument(
    FILTER_QUERY.recipient,
    'Only messages with a recipient whose address is exactly this (case-insensitive). Prefer it to `to` when you know the address.',
  ),
  from: queryArgument(
    FILTER_QUERY.from,
    'Only messages whose sender (name or address) contains this, case-insensitive.',
  ),
  template: queryArgument(
    FILTER_QUERY.template,
    'Only messages whose template slug contains this, case-insensitive.',
  ),
  subject: queryArgument(
    FILTER_QUERY.subject,
    'Only messages whose subject contains this, case-insensitive.',
  ),
  status: queryArgument(
    FILTER_QUERY.status,
    'Only messages in this overall delivery state: "sent" until every recipient settled, then "delivered", or the first of "bounced", "complained", "suppressed", "deferred".',
  ),
  since: queryArgument(
    FILTER_QUERY.since,
    'Only messages created at or after this time: RFC 3339 ("2026-11-21T10:00:00Z") or a date.',
  ),
}

/** A variables object, or a fixture case: how render_template and check_template render. */
export const RENDER_INPUT: Arguments = {
  slug: ownArgument(SLUG, true),
  variables: ownArgument(
    jsonObject({
      description:
        'Values for the template\'s variables, any JSON: { "name": "Ada" }. Missing ones render empty and are listed in `missing`.',
    }),
  ),
  case: ownArgument(
    string({
      description:
        'A fixture case of the template (get_template lists them in `fixtures`), instead of `variables`. With neither, the first case, else the front-matter examples.',
    }),
  ),
}

export const INPUT = {
  list_messages: inputOf({
    ...FILTERS,
    limit: queryArgument(
      PAGING_QUERY.limit,
      'How many messages, newest first (default 50, at most 1000).',
      'integer',
    ),
    offset: queryArgument(
      PAGING_QUERY.offset,
      'How many of the newest matches to skip (default 0).',
      'integer',
    ),
    fields: queryArgument(
      FIELDS_QUERY.fields,
      '"summary" (the default) leaves out each message\'s html, text and templateVariables; "full" keeps them. get_message gives one message in full.',
    ),
  }),
  get_message: inputOf({ id: ownArgument(ID, true) }),
  wait_for_message: inputOf({
    ...FILTERS,
    timeout: queryArgument(
      TIMEOUT_QUERY.timeout,
      `How long to wait for a match to arrive, in milliseconds (default 5000, at most ${WAIT_MAX_MS}).`,
      'integer',
    ),
    after: queryArgument(
      AFTER_QUERY.after,
      'A `cursor` from list_messages, taken before making the application send: only a message stored after it counts, the newest such at once (so the wait may come after the send). "now": only a message stored after this call. Without it, the newest stored match answers at once.',
    ),
  }),
  list_templates: inputOf({}),
  get_template: inputOf({ slug: ownArgument(SLUG, true) }),
  render_template: inputOf(RENDER_INPUT),
  check_template: inputOf(RENDER_INPUT),
  simulate_event: inputOf({
    id: ownArgument(ID, true),
    type: ownArgument(
      enumOf(SIMULATED_EVENT_TYPES, {
        description:
          'What the recipient did: "opened", "clicked" (needs `url`), "bounced", "complained" or "delivered".',
      }),
      true,
    ),
    recipient: ownArgument(
      string({ description: "The recipient's address (default: the message's first recipient)." }),
    ),
    url: ownArgument(
      string({
        description:
          '"clicked" only, and required there: a link of the message (its `links[].href`, or a URL in its html).',
      }),
    ),
  }),
  clear_messages: inputOf({
    id: ownArgument(
      string({
        minLength: 1,
        description: 'Delete only this message. Without it, the filters choose.',
      }),
    ),
    ...FILTERS,
  }),
}
