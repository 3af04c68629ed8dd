import { z } from 'zod'
import { SIMULATED_EVENT_TYPES } from '../core/simulated-event-types.js'
import { WAIT_MAX_MS } from '../core/wait-types.js'
import { MESSAGE_STATUSES } from '../store/recipients.js'

/**
 * The tools' arguments and results as Zod schemas: the SDK validates arguments with them (a bad
 * argument is a tool error the agent reads, never a crash) and lists them as JSON Schema. Names
 * are the inspector's query and body names, so what an agent learns here works on the HTTP API.
 * Result schemas are loose (`looseObject`): the record passes through unchanged, fields added
 * to it later included.
 */

// One definition each: the store's statuses, the delivery engine's simulated events, the wait's
// limit (modules of constants and types only: `sendbox mcp` loads nothing of the server).
export { MESSAGE_STATUSES } from '../store/recipients.js'
export { SIMULATED_EVENT_TYPES as EVENT_TYPES } from '../core/simulated-event-types.js'
export { WAIT_MAX_MS } from '../core/wait-types.js'

const ID = z
  .string()
  .min(1)
  .describe('A message id as POST /messages answered it and list_messages lists it: "msg_…".')
const SLUG = z
  .string()
  .min(1)
  .describe('A template slug, as list_templates lists them (the file name without its extension).')

export const FILTERS = {
  to: z
    .string()
    .optional()
    .describe(
      'Only messages with a recipient (name or address) containing this, case-insensitive: a substring ("ada" matches "lovelace-ada@example.com").',
    ),
  recipient: z
    .string()
    .optional()
    .describe(
      'Only messages with a recipient whose address is exactly this (case-insensitive). Prefer it to `to` when you know the address.',
    ),
  from: z
    .string()
    .optional()
    .describe('Only messages whose sender (name or address) contains this, case-insensitive.'),
  template: z
    .string()
    .optional()
    .describe('Only messages whose template slug contains this, case-insensitive.'),
  subject: z
    .string()
    .optional()
    .describe('Only messages whose subject contains this, case-insensitive.'),
  status: z
    .enum(MESSAGE_STATUSES)
    .optional()
    .describe(
      'Only messages in this overall delivery state: "sent" until every recipient settled, then "delivered", or the first of "bounced", "complained", "suppressed", "deferred".',
    ),
  since: z
    .string()
    .optional()
    .describe(
      'Only messages created at or after this time: RFC 3339 ("2026-11-21T10:00:00Z") or a date.',
    ),
}

/** A variables object, or a fixture case: how render_template and check_template render. */
export const RENDER_INPUT = {
  slug: SLUG,
  variables: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Values for the template\'s variables, any JSON: { "name": "Ada" }. Missing ones render empty and are listed in `missing`.',
    ),
  case: z
    .string()
    .optional()
    .describe(
      'A fixture case of the template (get_template lists them in `fixtures`), instead of `variables`. With neither, the first case, else the front-matter examples.',
    ),
}

export const INPUT = {
  list_messages: z.strictObject({
    ...FILTERS,
    limit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('How many messages, newest first (default 50, at most 1000).'),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('How many of the newest matches to skip (default 0).'),
    fields: z
      .enum(['summary', 'full'])
      .optional()
      .describe(
        '"summary" (the default) leaves out each message\'s html, text and templateVariables; "full" keeps them. get_message gives one message in full.',
      ),
  }),
  get_message: z.strictObject({ id: ID }),
  wait_for_message: z.strictObject({
    ...FILTERS,
    timeout: z
      .number()
      .int()
      .min(0)
      .max(WAIT_MAX_MS)
      .optional()
      .describe(
        `How long to wait for a match to arrive, in milliseconds (default 5000, at most ${WAIT_MAX_MS}).`,
      ),
    after: z
      .string()
      .regex(/^(?:now|\d{1,15})$/)
      .optional()
      .describe(
        'A `cursor` from list_messages, taken before making the application send: only a message stored after it counts, the newest such at once (so the wait may come after the send). "now": only a message stored after this call. Without it, the newest stored match answers at once.',
      ),
  }),
  list_templates: z.strictObject({}),
  get_template: z.strictObject({ slug: SLUG }),
  render_template: z.strictObject(RENDER_INPUT),
  check_template: z.strictObject(RENDER_INPUT),
  simulate_event: z.strictObject({
    id: ID,
    type: z
      .enum(SIMULATED_EVENT_TYPES)
      .describe(
        'What the recipient did: "opened", "clicked" (needs `url`), "bounced", "complained" or "delivered".',
      ),
    recipient: z
      .string()
      .optional()
      .describe("The recipient's address (default: the message's first recipient)."),
    url: z
      .string()
      .optional()
      .describe(
        '"clicked" only, and required there: a link of the message (its `links[].href`, or a URL in its html).',
      ),
  }),
  clear_messages: z.strictObject({
    id: ID.optional().describe('Delete only this message. Without it, the filters choose.'),
    ...FILTERS,
  }),
}

const ADDRESS = z.looseObject({ name: z.string().nullable(), address: z.string() })

const RECORD_FIELDS = {
  id: z.string(),
  status: z.string().describe('The overall delivery state.'),
  createdAt: z.string(),
  template: z.string(),
  from: ADDRESS,
  to: z.array(ADDRESS),
  subject: z.string(),
  html: z.string().optional().describe('The rendered HTML (not in summaries).'),
  text: z.string().optional().describe('The plain-text part (not in summaries).'),
  links: z
    .array(z.looseObject({ href: z.string(), text: z.string().nullable() }))
    .optional()
    .describe(
      "Every link of the HTML in document order (`text` the anchor's visible text), then the text part's other URLs (`text` null).",
    ),
  codes: z
    .array(z.string())
    .optional()
    .describe('One-time codes a reader would type, from the text part: ["482913"].'),
}

export const RECORD = z
  .looseObject(RECORD_FIELDS)
  .describe('A stored message, as the inspector has it.')

const WARNING = z.looseObject({ code: z.string(), message: z.string() })

export const OUTPUT = {
  list_messages: z.looseObject({
    messages: z.array(RECORD).describe('Newest first.'),
    total: z.number().describe('How many match, before limit and offset.'),
    cursor: z
      .string()
      .optional()
      .describe(
        "Where the log stood: wait_for_message's `after` counts only messages stored after it.",
      ),
  }),
  record: RECORD,
  list_templates: z.looseObject({
    templates: z.array(
      z.looseObject({
        slug: z.string(),
        description: z.string().nullable(),
        variables: z.array(z.string()).describe('Top-level names the template expects.'),
        fixtures: z.array(z.looseObject({ name: z.string() })).describe('Its fixture cases.'),
      }),
    ),
  }),
  get_template: z.looseObject({
    slug: z.string(),
    source: z.string().describe('The file as it is on disk; error lines count in it.'),
    variables: z.array(z.string()),
    required: z.array(z.string()).describe('Dotted paths a send must supply.'),
    fixtures: z.array(z.looseObject({ name: z.string() })),
    skeleton: z
      .record(z.string(), z.unknown())
      .describe('Starting values for `variables`: examples, then a placeholder per path.'),
  }),
  render_template: z.looseObject({
    slug: z.string(),
    html: z.string(),
    text: z.string(),
    warnings: z.array(WARNING),
    missing: z.array(z.string()).describe('Dotted paths the template needs that were not given.'),
    variables: z.record(z.string(), z.unknown()).describe('The variables it rendered with.'),
  }),
  check_template: z.looseObject({
    htmlBytes: z.number().describe("The HTML's size in bytes (Gmail clips past 102 KB)."),
    findings: z
      .array(
        z.looseObject({
          check: z.string().describe('size, clients, images, links, text or accessibility'),
          code: z.string(),
          severity: z.string(),
          message: z.string(),
          fix: z.string(),
          line: z.number().nullable().describe('Line in the rendered HTML.'),
          column: z.number().nullable().describe("Column of the element's start tag."),
        }),
      )
      .describe('Errors first, then warnings, then notes.'),
    clients: z.array(z.looseObject({})).describe('Support of what it uses, per mail client.'),
    counts: z.looseObject({}),
  }),
  clear_messages: z.looseObject({
    deleted: z.number().describe('How many messages matched when the clear was asked for.'),
  }),
}
