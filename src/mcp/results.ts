import * as v from 'valibot'
import { described } from '../lib/schema.js'

/**
 * The tools' results as Valibot schemas, listed to the agent as JSON Schema (each tool's
 * `outputSchema`). They are loose on purpose: the inspector's record passes through unchanged,
 * fields added to it later included; only what an agent acts on is named and described.
 */

const text = v.string()
const texts = v.array(text)
const free = v.record(v.string(), v.unknown())
const ADDRESS = v.looseObject({ name: v.nullable(text), address: text })

export const RECORD = described(
  v.looseObject({
    id: text,
    status: described(text, 'The overall delivery state.'),
    createdAt: text,
    template: text,
    from: ADDRESS,
    to: v.array(ADDRESS),
    subject: text,
    html: v.optional(described(text, 'The rendered HTML (not in summaries).')),
    text: v.optional(described(text, 'The plain-text part (not in summaries).')),
    links: v.optional(
      described(
        v.array(v.looseObject({ href: text, text: v.nullable(text) })),
        "Every link of the HTML in document order (`text` the anchor's visible text), then the text part's other URLs (`text` null).",
      ),
    ),
    codes: v.optional(
      described(texts, 'One-time codes a reader would type, from the text part: ["482913"].'),
    ),
  }),
  'A stored message, as the inspector has it.',
)

const WARNING = v.looseObject({ code: text, message: text })
const FIXTURES = v.array(v.looseObject({ name: text }))

const FINDING = v.looseObject({
  check: described(text, 'size, clients, images, links, text or accessibility'),
  code: text,
  severity: text,
  message: text,
  fix: text,
  line: described(v.nullable(v.number()), 'Line in the rendered HTML.'),
  column: described(v.nullable(v.number()), "Column of the element's start tag."),
})

export const OUTPUT = {
  list_messages: v.looseObject({
    messages: described(v.array(RECORD), 'Newest first.'),
    total: described(v.number(), 'How many match, before limit and offset.'),
    cursor: v.optional(
      described(
        text,
        "Where the log stood: wait_for_message's `after` counts only messages stored after it.",
      ),
    ),
  }),
  record: RECORD,
  list_templates: v.looseObject({
    templates: v.array(
      v.looseObject({
        slug: text,
        description: v.nullable(text),
        variables: described(texts, 'Top-level names the template expects.'),
        fixtures: described(FIXTURES, 'Its fixture cases.'),
      }),
    ),
  }),
  get_template: v.looseObject({
    slug: text,
    source: described(text, 'The file as it is on disk; error lines count in it.'),
    variables: texts,
    required: described(texts, 'Dotted paths a send must supply.'),
    fixtures: FIXTURES,
    skeleton: described(
      free,
      'Starting values for `variables`: examples, then a placeholder per path.',
    ),
  }),
  render_template: v.looseObject({
    slug: text,
    html: text,
    text,
    warnings: v.array(WARNING),
    missing: described(texts, 'Dotted paths the template needs that were not given.'),
    variables: described(free, 'The variables it rendered with.'),
  }),
  check_template: v.looseObject({
    htmlBytes: described(v.number(), "The HTML's size in bytes (Gmail clips past 102 KB)."),
    findings: described(v.array(FINDING), 'Errors first, then warnings, then notes.'),
    clients: described(v.array(v.looseObject({})), 'Support of what it uses, per mail client.'),
    counts: v.looseObject({}),
    spam: v.optional(
      described(
        v.looseObject({}),
        "With a sandbox started with --spamassassin: SpamAssassin's { score, threshold, isSpam, rules: [{ name, score, description }] }, or { error } when spamd failed.",
      ),
    ),
  }),
  clear_messages: v.looseObject({
    deleted: described(v.number(), 'How many messages matched when the clear was asked for.'),
  }),
}
