import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { JsonSchema, Schema } from '../lib/schema.js'
import type { InspectorAnswer, InspectorRequest } from './inspector.js'
import { OUTPUT } from './results.js'
import { INPUT } from './schemas.js'

/**
 * The tools of docs/mcp.md#tools, in the order an agent lists them: each its name, words,
 * schemas and the one or two inspector requests it makes (`run`). tools.ts registers them.
 */

export type Ask = (request: Omit<InspectorRequest, 'signal'>) => Promise<InspectorAnswer>

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const

/** Two arguments that exclude each other: refused in the inspector's words for a bad body. */
const notBoth = (field: string, message: string): InspectorAnswer => ({
  ok: false,
  error: {
    code: 'validation_failed',
    message,
    details: [{ field, code: 'invalid_value', message }],
  },
})

type Filters = Partial<
  Record<'to' | 'recipient' | 'from' | 'template' | 'subject' | 'status' | 'since', string>
>
const filterQuery = (args: Filters) => ({
  to: args.to,
  recipient: args.recipient,
  from: args.from,
  template: args.template,
  subject: args.subject,
  status: args.status,
  since: args.since,
})

type RenderArgs = { slug: string; variables?: Record<string, unknown>; case?: string }

/** render_template and check_template: a refusal of both `variables` and `case`, or the request. */
const renderRun =
  (what: 'render' | 'checks' | 'spam') =>
  async (args: RenderArgs, ask: Ask): Promise<InspectorAnswer> => {
    const request = renderRequest(what, args)
    return 'ok' in request ? request : ask(request)
  }

/** render_template and check_template: GET with a fixture case, POST with variables. */
function renderRequest(
  what: 'render' | 'checks' | 'spam',
  args: RenderArgs,
): InspectorAnswer | InspectorRequest {
  const path = `/templates/${encodeURIComponent(args.slug)}/${what}`
  if (args.variables !== undefined && args.case !== undefined)
    return notBoth('case', 'Give `variables` or a fixture `case`, not both.')
  if (args.variables !== undefined)
    return { method: 'POST', path, body: { variables: args.variables } }
  return { path, query: { case: args.case } }
}

/**
 * check_template: the email checks, and with a sandbox started with `--spamassassin`, the
 * SpamAssassin score under `spam` (or why spamd could not say, `spam: { error }`); without the
 * flag (`409 spam_check_not_configured`), the checks alone.
 */
async function checkTemplate(args: RenderArgs, ask: Ask): Promise<InspectorAnswer> {
  const checks = await renderRun('checks')(args, ask)
  if (!checks.ok) return checks
  const spam = await renderRun('spam')(args, ask)
  if (!spam.ok && spam.error.code === 'spam_check_not_configured') return checks
  const score = spam.ok ? spam.body : { error: spam.error }
  return { ...checks, body: { ...(checks.body as object), spam: score } }
}

/** One tool: what the agent is shown of it, and what a call does. */
export interface Tool {
  name: string
  title: string
  description: string
  /** Its arguments: checked with `schema`, listed as `json`. */
  input: { schema: Schema; json: JsonSchema }
  output: Schema
  /** Arguments the tool defaults unlike the route (applied before the check). */
  defaults?: Record<string, unknown>
  annotations: ToolAnnotations
  run(args: never, ask: Ask): Promise<InspectorAnswer>
}

/** A tool whose `run` is typed by the arguments it reads (its input schema has checked them). */
const defineTool = <A>(
  tool: Omit<Tool, 'run'> & { run(args: A, ask: Ask): Promise<InspectorAnswer> },
): Tool => tool as Tool

/**
 * clear_messages: one message by id, or those the filters match (all, without any); how many
 * went, counted first (one record's worth of answer), so the agent learns what it deleted.
 */
async function clearMessages(args: Filters & { id?: string }, ask: Ask): Promise<InspectorAnswer> {
  const { id, ...filters } = args
  if (id !== undefined && Object.values(filters).some((value) => value !== undefined))
    return notBoth('id', 'Give an `id` or filters, not both.')
  if (id !== undefined) {
    const deleted = await ask({ method: 'DELETE', path: `/messages/${encodeURIComponent(id)}` })
    return deleted.ok ? { ok: true, status: 200, body: { deleted: 1 } } : deleted
  }
  const counted = await ask({
    path: '/messages',
    query: { ...filterQuery(args), limit: 1, fields: 'summary' },
  })
  if (!counted.ok) return counted
  const cleared = await ask({ method: 'DELETE', path: '/messages', query: filterQuery(args) })
  if (!cleared.ok) return cleared
  return { ok: true, status: 200, body: { deleted: (counted.body as { total: number }).total } }
}

export const TOOLS: readonly Tool[] = [
  defineTool({
    name: 'list_messages',
    title: 'List messages',
    description:
      'Messages the sandbox received, newest first, as `{ messages, total }`. Each message carries id, status, template, from, to, subject, createdAt, and its `links` ({ href, text }) and one-time `codes`. Filters narrow the list (all must match). Summaries by default; `fields: "full"` adds html, text and templateVariables.',
    input: INPUT.list_messages,
    output: OUTPUT.list_messages,
    // The route's default is "full"; an agent reading a list wants it short.
    defaults: { fields: 'summary' },
    annotations: READ_ONLY,
    run: (args: Filters & { limit?: number; offset?: number; fields: string }, ask) =>
      ask({
        path: '/messages',
        query: {
          ...filterQuery(args),
          limit: args.limit,
          offset: args.offset,
          fields: args.fields,
        },
      }),
  }),
  defineTool({
    name: 'get_message',
    title: 'Get a message',
    description:
      'One message in full: the record with html, text, templateVariables, recipients and their delivery events, `links` ({ href, text }: follow one to test a flow) and `codes` (one-time codes to type). Error message_not_found when there is none with that id.',
    input: INPUT.get_message,
    output: OUTPUT.record,
    annotations: READ_ONLY,
    run: (args: { id: string }, ask) => ask({ path: `/messages/${encodeURIComponent(args.id)}` }),
  }),
  defineTool({
    name: 'wait_for_message',
    title: 'Wait for a message',
    description:
      'The newest message matching the filters, or the first to arrive within `timeout` milliseconds (default 5000, at most 60000): use it right after making the application send. Returns the whole record, with `links` and `codes`. Error wait_timeout when none came. To wait for what an action sends, take `cursor` from list_messages first, act, then wait with `after` set to that cursor.',
    input: INPUT.wait_for_message,
    output: OUTPUT.record,
    annotations: READ_ONLY,
    run: (args: Filters & { timeout?: number; after?: string }, ask) =>
      ask({
        path: '/messages/wait',
        query: { ...filterQuery(args), timeout: args.timeout, after: args.after },
        holds: args.timeout ?? 5000,
      }),
  }),
  defineTool({
    name: 'list_templates',
    title: 'List templates',
    description:
      'The templates a message can be sent with, as `{ templates }`: each with its slug, description, the variables it expects, and its fixture cases (sample variables).',
    input: INPUT.list_templates,
    output: OUTPUT.list_templates,
    annotations: READ_ONLY,
    run: (_args: unknown, ask) => ask({ path: '/templates' }),
  }),
  defineTool({
    name: 'get_template',
    title: 'Get a template',
    description:
      'One template in full: its Liquid source, the variables and dotted paths it needs, declared variables, fixture cases, and a `skeleton` of starting values for render_template. Error template_not_found (with the nearest slugs) when there is none.',
    input: INPUT.get_template,
    output: OUTPUT.get_template,
    annotations: READ_ONLY,
    run: (args: { slug: string }, ask) =>
      ask({ path: `/templates/${encodeURIComponent(args.slug)}` }),
  }),
  defineTool({
    name: 'render_template',
    title: 'Render a template',
    description:
      'Renders a template without sending or storing anything, with `variables` or a fixture `case`. Returns html, text, warnings, and `missing`: the variables a send would still need (they render empty here). Errors carry the code: template_not_found, template_invalid or render_failed (with file, line and column), fixture_not_found.',
    input: INPUT.render_template,
    output: OUTPUT.render_template,
    annotations: READ_ONLY,
    run: renderRun('render'),
  }),
  defineTool({
    name: 'check_template',
    title: 'Check a template',
    description:
      "Email checks of a template rendered with `variables` or a fixture `case` (the same checks a sent message gets): the HTML's size against Gmail's clipping, mail-client support of its HTML and CSS, images, links, the plain text, and accessibility (check: 'accessibility': alt text, link names, lang, title, contrast, text size, heading order). Returns `findings` (errors first; each with a fix, and the line and column of its element in the rendered HTML), per-client support and counts; with a sandbox started with --spamassassin, also `spam`: SpamAssassin's score against its threshold and the rules that fired.",
    input: INPUT.check_template,
    output: OUTPUT.check_template,
    annotations: READ_ONLY,
    run: checkTemplate,
  }),
  defineTool({
    name: 'simulate_event',
    title: 'Simulate a delivery event',
    description:
      'Makes a recipient of a message open it, click a link (type "clicked" with `url`, one of its links), bounce, complain, or be delivered: the states change and the webhooks fire as if it had happened. Returns the message record after the event. Errors: message_not_found, recipient_not_found, url_not_in_message (its details list the links).',
    input: INPUT.simulate_event,
    output: OUTPUT.record,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    run: (args: { id: string; type: string; recipient?: string; url?: string }, ask) =>
      ask({
        method: 'POST',
        path: `/messages/${encodeURIComponent(args.id)}/events`,
        body: { type: args.type, recipient: args.recipient, url: args.url },
      }),
  }),
  defineTool({
    name: 'clear_messages',
    title: 'Clear messages',
    description:
      'Deletes messages from the sandbox: the one with `id`, or those the filters match, or, with no arguments, every message. Returns `{ deleted }`, how many matched. Use it before a flow to start from an empty inbox.',
    input: INPUT.clear_messages,
    output: OUTPUT.clear_messages,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: clearMessages,
  }),
]
