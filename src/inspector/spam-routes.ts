import * as v from 'valibot'
import { SpamdError } from '../checks/spamd-protocol.js'
import { spamdName } from '../checks/spamd.js'
import { SpamCheckNotConfiguredError } from '../core/spam.js'
import { str } from '../http/components.js'
import { defineOperation, type Operation } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { PROJECT_ACCESS } from '../http/viewer.js'
import { component } from '../lib/schema.js'
import { findMessage, ID } from './messages.js'
import { SHARED_ACCESS } from '../http/viewer.js'
import { renderEml } from '../core/spam.js'
import type { AppContext } from '../http/context.js'
import {
  CASE_ERRORS,
  CASE_QUERY,
  one,
  preview,
  previewVariables,
  RENDER_ERRORS,
  templateOf,
  VARIABLES_BODY,
} from './templates.js'

const points = (description: string, examples: number[]) =>
  v.pipe(v.number(), v.description(description), v.examples(examples))

export const SPAM_REPORT = component(
  'SpamReport',
  v.object({
    score: points("SpamAssassin's score of the message: the sum of the rules' points.", [2.1]),
    threshold: points(
      "The score from which spamd calls a message spam (its required_score, 5 unless spamd's configuration says otherwise).",
      [5],
    ),
    isSpam: v.pipe(v.boolean(), v.description('Whether the score reaches the threshold.')),
    rules: v.pipe(
      v.array(
        v.object({
          name: str("SpamAssassin's rule name.", ['HTML_IMAGE_ONLY_16']),
          score: points(
            'Its points, as the report shows them (one decimal; negative ones help).',
            [1.1],
          ),
          description: str("The rule's description.", [
            'BODY: HTML: images with 1200-1600 bytes of words',
          ]),
        }),
      ),
      v.description('The rules that fired, highest score first.'),
    ),
  }),
)

/** spamd's failures as the API answers them. */
function spamError(error: unknown): never {
  if (error instanceof SpamCheckNotConfiguredError)
    throw apiError(409, 'spam_check_not_configured', error.message)
  if (error instanceof SpamdError)
    throw apiError(502, 'spam_check_failed', error.message, {
      details: [{ spamd: error.address, reason: error.reason }],
    })
  throw error
}

/** A template's render scored: each time asked (a template changes as it is edited), never kept. */
async function scoreRender(
  ctx: AppContext,
  slug: string,
  caseName: string | null,
  variables: Record<string, unknown>,
) {
  const { html, text } = preview(ctx, templateOf(ctx, slug), variables)
  return ctx.spam.ofEml(renderEml({ slug, caseName, html, text })).catch(spamError)
}

const SPAM_ERRORS = [
  [409, 'spam_check_not_configured'],
  [502, 'spam_check_failed'],
] as const
const RENDER_SPAM =
  "The template rendered as a message of it would go out (its HTML and text; the subject from the HTML's `<title>`, else the template's name; example addresses), checked by `--spamassassin`'s spamd, each time asked."

/** The spam score (docs/checks.md#spam-score-spamassassin): a stored message, or a template's render, scored by `--spamassassin`'s spamd. */
export const spamOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/spam',
    operationId: 'getSpamCheck',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'Whether messages can be scored for spam, and by which spamd.',
    description:
      "The spamd `--spamassassin` names. The inbox asks this once, so that without the flag it says how to turn it on rather than asking every message's score for a 409.",
    success: {
      status: 200,
      description: 'The spam check.',
      schema: v.object({
        configured: v.pipe(v.boolean(), v.description('Whether --spamassassin was given.')),
        spamd: v.pipe(
          v.nullable(v.string()),
          v.description("spamd's `host:port`; null without --spamassassin."),
          v.examples(['localhost:783']),
        ),
      }),
    },
    handler: ({ ctx }) => ({
      configured: ctx.config.spamassassin !== null,
      spamd: ctx.config.spamassassin && spamdName(ctx.config.spamassassin),
    }),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/spam',
    operationId: 'getMessageSpamScore',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: "The message's SpamAssassin score and the rules that fired.",
    description:
      "The stored message, exactly as GET …/eml serves it, checked by the SpamAssassin spamd of `--spamassassin` (its rules; what DNS or network tests it runs is spamd's configuration). A message is scored at the first request, once: the score is kept while the message is, in this process's memory. A send never waits for it.",
    params: { id: ID },
    success: { status: 200, description: 'The score.', schema: SPAM_REPORT },
    errors: [[404, 'message_not_found'], ...SPAM_ERRORS],
    async handler({ ctx, params, caller }) {
      // A project's token scores its own messages only (another's is not found).
      const record = await findMessage(ctx, params.id, caller)
      return ctx.spam.of(record).catch(spamError)
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/templates/:slug/spam',
    operationId: 'getFixtureSpamScore',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'The SpamAssassin score of the template rendered with a fixture case.',
    description: RENDER_SPAM,
    params: one,
    query: CASE_QUERY,
    success: { status: 200, description: 'The score.', schema: SPAM_REPORT },
    errors: [...RENDER_ERRORS, ...CASE_ERRORS, ...SPAM_ERRORS],
    handler: ({ ctx, params, query }) =>
      scoreRender(
        ctx,
        params.slug,
        query.case ?? null,
        previewVariables(ctx, templateOf(ctx, params.slug), query.case),
      ),
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/templates/:slug/spam',
    operationId: 'getVariablesSpamScore',
    tag: 'inspector',
    security: SHARED_ACCESS,
    summary: 'The SpamAssassin score of the template rendered with the posted variables.',
    description: RENDER_SPAM,
    params: one,
    body: VARIABLES_BODY,
    success: { status: 200, description: 'The score.', schema: SPAM_REPORT },
    errors: [...RENDER_ERRORS, ...SPAM_ERRORS],
    handler: ({ ctx, params, body }) => scoreRender(ctx, params.slug, null, body.variables ?? {}),
  }),
]
